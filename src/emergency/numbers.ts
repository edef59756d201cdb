// Emergency numbers for every ISO 3166-1 country and territory: what the patient (or someone with them) dials there.
//
// One row per ISO 3166-1 alpha-2 code (all 249, plus XK for Kosovo, which the country library returns), numbers
// in the order to dial, written as dialled inside the country (digits and spaces only):
// 1. the general number (service "all") when one number reaches police, ambulance and fire. Where a country has
//    none, the police number comes first: the police line is the one answered around the clock everywhere, it is
//    what people there are told to call in any emergency, and it sends or connects the others;
// 2. the service numbers where they differ: ambulance, police, fire (ambulance first, because a telehealth
//    emergency is most often a medical one). One number for two services is one row, named after the service a
//    patient most likely needs, with the other in the comment (JP 119: ambulance, also fire). A general number
//    that only mobile phones reach comes after the local numbers (ZA 112);
// 3. a national crisis line (service "crisis") where one is well established, answered nationally and dialled as
//    digits; most countries have none that meets all three, and then none is listed.
// Places without a public emergency service (uninhabited islands, Antarctica, research stations) get the fallback
// numbers used at sea. The table is data: to correct a row, change the row, its comment, and say where the new
// number comes from in the commit.
//
// Sources (reviewed November 2026):
// - Android's emergency number database, which phones use to recognise emergency calls: AOSP
//   packages/services/Telephony, ecc/input/eccdata.txt (revision of March 2024);
// - Google libphonenumber, resources/ShortNumberMetadata.xml, the <emergency> pattern of every region (July 2026).
//   Every police, ambulance, fire and general number below was checked against both lists; a row that neither
//   confirms either follows its country's (French, Australian, Norwegian, Italian, US) numbers, is a fallback, or
//   was confirmed by the pages below;
// - national government and service pages and national press, read for numbers the two lists lack or disagree on:
//   Eswatini 977 and 933, Sierra Leone 117 (National Emergency Medical Service), Norfolk Island 000, Sint Maarten
//   911 and 919, Papua New Guinea 112 (NICTA), Zambia 991 and 993; and for these crisis lines: CN 12356 (National
//   Health Commission, nationwide since May 2025), KR 109 (since January 2024), MY 15555, PH 1553, UA 7333,
//   FI 09 2525 0111, DK 70 201 201, SE 90101, GR 1018, IL 1201, TH 1323;
// - the other crisis lines are long-established national lines that their services publish (988, Samaritans'
//   116 123, Lifeline's 13 11 14, 3114, TelefonSeelsorge, 143, 113, 024, 1737, 14416, 188, ...): not re-read in
//   this review;
// - to check a doubtful row: the ITU's list of emergency numbers (ITU-T E.164 supplement and Operational
//   Bulletin), the European Emergency Number Association's "112 in Europe" report, and Wikipedia's "List of
//   emergency telephone numbers" as a cross-check.
// Rows marked "doubtful" are those where the sources disagree or are thin; they are still the best numbers found,
// and every GSM phone also treats 112 and 911 as emergency numbers wherever it is.
import type { EmergencyService } from "../../sdk/src/protocol.ts";

export interface EmergencyNumber {
  number: string;
  service: EmergencyService;
}

const row =
  (service: EmergencyService) =>
  (digits: string): EmergencyNumber => ({ number: digits, service });
const all = row("all");
const police = row("police");
const ambulance = row("ambulance");
const fire = row("fire");
const crisis = row("crisis");

/**
 * When the country is unknown (at sea, on a border the data leaves open): 112 and 911 are the two numbers every
 * GSM or later phone treats as emergency calls in every country, with or without a SIM card, and the network
 * routes them to its local emergency service.
 */
export const FALLBACK_NUMBERS: readonly EmergencyNumber[] = Object.freeze([all("112"), all("911")]);

/** Every ISO 3166-1 alpha-2 code (and XK) to its numbers, in the order to dial. */
// biome-ignore format: a table aligned by hand, one line per country
export const EMERGENCY_NUMBERS: Readonly<Record<string, readonly EmergencyNumber[]>> = Object.freeze({
  AD: [all("112"), ambulance("116"), police("110"), fire("118")],                    // Andorra
  AE: [police("999"), ambulance("998"), fire("997")],                                // United Arab Emirates: 112 on mobiles is routed to the police
  AF: [police("119"), ambulance("102")],                                             // Afghanistan: 119 also fire; doubtful: ambulance 102 (libphonenumber), Android lists Kabul's 020 112
  AG: [all("911"), all("999")],                                                      // Antigua and Barbuda
  AI: [all("911")],                                                                  // Anguilla
  AL: [police("129"), ambulance("127"), fire("128"), all("112")],                    // Albania: 112 introduced recently; the service numbers are better known
  AM: [all("911"), all("112")],                                                      // Armenia: 911 is the unified number since 2017
  AO: [police("113"), ambulance("112"), fire("115")],                                // Angola
  AQ: [all("112"), all("911")],                                                      // Antarctica: no public emergency service: stations run their own; the fallback numbers, as at sea
  AR: [all("911"), ambulance("107"), police("101"), fire("100")],                    // Argentina: doubtful: 911 is not in every province; 107, 101 and 100 are national
  AS: [all("911"), crisis("988")],                                                   // American Samoa
  AT: [all("112"), ambulance("144"), police("133"), fire("122"), crisis("142")],     // Austria: crisis: TelefonSeelsorge
  AU: [all("000"), all("112"), crisis("13 11 14")],                                  // Australia: 112 on mobiles; crisis: Lifeline
  AW: [all("911")],                                                                  // Aruba
  AX: [all("112")],                                                                  // Åland Islands
  AZ: [all("112"), ambulance("103"), police("102"), fire("101")],                    // Azerbaijan
  BA: [police("122"), ambulance("124"), fire("123")],                                // Bosnia and Herzegovina
  BB: [police("211"), ambulance("511"), fire("311")],                                // Barbados: doubtful: some lists add 911
  BD: [all("999")],                                                                  // Bangladesh: National Emergency Service
  BE: [all("112"), police("101")],                                                   // Belgium: no national crisis line (1813 is Flemish, 0800 32 123 French-speaking)
  BF: [police("17"), ambulance("18")],                                               // Burkina Faso: 18 is the fire brigade, which also runs the ambulances
  BG: [all("112"), ambulance("150"), police("166"), fire("160")],                    // Bulgaria
  BH: [all("999")],                                                                  // Bahrain
  BI: [police("117"), ambulance("112")],                                             // Burundi: doubtful: sources disagree (Android lists 112 for all services)
  BJ: [police("117"), ambulance("112"), fire("118")],                                // Benin: doubtful: ambulance 112
  BL: [all("112"), ambulance("15"), police("17"), fire("18")],                       // Saint-Barthélemy: French numbers
  BM: [all("911")],                                                                  // Bermuda
  BN: [police("993"), ambulance("991"), fire("995")],                                // Brunei
  BO: [police("110"), ambulance("118"), fire("119")],                                // Bolivia
  BQ: [all("911"), all("112")],                                                      // Caribbean Netherlands
  BR: [police("190"), ambulance("192"), fire("193"), crisis("188")],                 // Brazil: crisis: CVV
  BS: [all("919"), all("911")],                                                      // The Bahamas
  BT: [police("113"), ambulance("112"), fire("110")],                                // Bhutan
  BV: [all("112"), all("911")],                                                      // Bouvet Island: uninhabited: the fallback numbers, as at sea
  BW: [police("999"), ambulance("997"), fire("998")],                                // Botswana
  BY: [police("102"), ambulance("103"), fire("101")],                                // Belarus
  BZ: [all("911")],                                                                  // Belize
  CA: [all("911"), crisis("988")],                                                   // Canada: crisis: 988 Suicide Crisis Helpline
  CC: [all("000"), all("112")],                                                      // Cocos (Keeling) Islands: Australian numbers
  CD: [police("112"), ambulance("118")],                                             // Democratic Republic of the Congo: doubtful: sources disagree
  CF: [police("117"), fire("118")],                                                  // Central African Republic: doubtful
  CG: [police("117"), fire("118")],                                                  // Republic of the Congo: doubtful
  CH: [all("112"), ambulance("144"), police("117"), fire("118"), crisis("143")],     // Switzerland: crisis: Die Dargebotene Hand / La Main Tendue
  CI: [police("170"), ambulance("185"), fire("180")],                                // Côte d'Ivoire: 110 and 111 also reach the police; 185 is the SAMU
  CK: [police("999"), ambulance("998"), fire("996")],                                // Cook Islands
  CL: [police("133"), ambulance("131"), fire("132")],                                // Chile: no 24-hour crisis line dialable as digits only (*4141)
  CM: [police("117"), ambulance("119"), fire("118")],                                // Cameroon: doubtful: ambulance 119
  CN: [police("110"), ambulance("120"), fire("119"), crisis("12356")],               // People's Republic of China: crisis: national mental health line, nationwide since May 2025
  CO: [all("123")],                                                                  // Colombia
  CR: [all("911")],                                                                  // Costa Rica
  CU: [police("106"), ambulance("104"), fire("105")],                                // Cuba
  CV: [police("132"), ambulance("130"), fire("131")],                                // Cape Verde
  CW: [all("911"), all("112")],                                                      // Curaçao
  CX: [all("000"), all("112")],                                                      // Christmas Island: Australian numbers
  CY: [all("112"), all("199")],                                                      // Republic of Cyprus
  CZ: [all("112"), ambulance("155"), police("158"), fire("150")],                    // Czechia
  DE: [all("112"), police("110"), crisis("0800 111 0 111")],                         // Germany: crisis: TelefonSeelsorge
  DJ: [police("17"), ambulance("18")],                                               // Djibouti: 18 is the fire brigade, which also runs the ambulances
  DK: [all("112"), crisis("70 201 201")],                                            // Kingdom of Denmark: crisis: Livslinien
  DM: [all("999"), all("911")],                                                      // Dominica
  DO: [all("911")],                                                                  // Dominican Republic
  DZ: [police("17"), ambulance("14")],                                               // Algeria: 14 is the Protection civile (fire and ambulance)
  EC: [all("911")],                                                                  // Ecuador
  EE: [all("112")],                                                                  // Estonia
  EG: [police("122"), ambulance("123"), fire("180")],                                // Egypt
  EH: [police("19"), ambulance("15")],                                               // Western Sahara: Moroccan numbers where Morocco administers; 15 also fire
  ER: [police("113"), ambulance("114"), fire("116")],                                // Eritrea: doubtful
  ES: [all("112"), crisis("024")],                                                   // Spain: crisis: Línea 024
  ET: [police("991"), ambulance("907"), fire("939")],                                // Ethiopia: doubtful: ambulance 907
  FI: [all("112"), crisis("09 2525 0111")],                                          // Finland: crisis: MIELI Crisis Helpline
  FJ: [police("917"), ambulance("911")],                                             // Fiji: 911 also fire
  FK: [all("999")],                                                                  // Falkland Islands
  FM: [all("911")],                                                                  // Federated States of Micronesia
  FO: [all("112")],                                                                  // Faroe Islands
  FR: [all("112"), ambulance("15"), police("17"), fire("18"), crisis("3114")],       // France: crisis: numéro national de prévention du suicide
  GA: [police("1730"), ambulance("1300"), fire("18")],                               // Gabon: doubtful
  GB: [all("999"), all("112"), crisis("116 123")],                                   // United Kingdom: crisis: Samaritans
  GD: [all("911")],                                                                  // Grenada
  GE: [all("112")],                                                                  // Georgia
  GF: [all("112"), ambulance("15"), police("17"), fire("18")],                       // French Guiana: French numbers
  GG: [all("999"), all("112"), crisis("116 123")],                                   // Bailiwick of Guernsey: crisis: Samaritans
  GH: [all("112"), ambulance("193"), police("191"), fire("192")],                    // Ghana: doubtful: 112 since 2019, not yet in every data set
  GI: [all("112"), ambulance("190"), police("199")],                                 // Gibraltar: 190 also fire
  GL: [all("112")],                                                                  // Greenland
  GM: [police("117"), ambulance("116"), fire("118")],                                // The Gambia
  GN: [police("122")],                                                               // Guinea: doubtful: 122 from Android's list, 117 in others; no reliable ambulance or fire number found
  GP: [all("112"), ambulance("15"), police("17"), fire("18")],                       // Guadeloupe: French numbers
  GQ: [police("113"), fire("115")],                                                  // Equatorial Guinea: doubtful
  GR: [all("112"), ambulance("166"), police("100"), fire("199"), crisis("1018")],    // Greece: crisis: Klimaka
  GS: [all("112"), all("911")],                                                      // South Georgia and South Sandwich Islands: no permanent population: the fallback numbers, as at sea
  GT: [police("110"), ambulance("123"), fire("122")],                                // Guatemala: 123 is the municipal fire service, which runs ambulances; doubtful
  GU: [all("911"), crisis("988")],                                                   // Guam
  GW: [police("117"), ambulance("113"), fire("118")],                                // Guinea-Bissau: doubtful
  GY: [police("911"), ambulance("913"), fire("912")],                                // Guyana
  HK: [all("999"), all("112"), crisis("2389 2222")],                                 // Hong Kong: crisis: Samaritan Befrienders Hong Kong
  HM: [all("112"), all("911")],                                                      // Heard Island and McDonald Islands: uninhabited: the fallback numbers, as at sea
  HN: [all("911")],                                                                  // Honduras
  HR: [all("112"), ambulance("194"), police("192"), fire("193")],                    // Croatia
  HT: [police("114"), ambulance("116"), fire("115")],                                // Haiti
  HU: [all("112"), ambulance("104"), police("107"), fire("105")],                    // Hungary
  ID: [all("112"), ambulance("118"), police("110"), fire("113")],                    // Indonesia: doubtful: 112 answers in most regions, not all
  IE: [all("112"), all("999"), crisis("116 123")],                                   // Republic of Ireland: crisis: Samaritans
  IL: [police("100"), ambulance("101"), fire("102"), crisis("1201")],                // Israel: crisis: ERAN
  IM: [all("999"), all("112"), crisis("116 123")],                                   // Isle of Man: crisis: Samaritans
  IN: [all("112"), ambulance("108"), police("100"), fire("101"), crisis("14416")],   // India: crisis: Tele-MANAS
  IO: [all("112"), all("911")],                                                      // British Indian Ocean Territory: Diego Garcia (military base): the fallback numbers
  IQ: [police("104"), ambulance("122"), fire("115")],                                // Iraq: doubtful
  IR: [police("110"), ambulance("115"), fire("125")],                                // Iran
  IS: [all("112"), crisis("1717")],                                                  // Iceland: crisis: Red Cross helpline
  IT: [all("112"), ambulance("118"), police("113"), fire("115")],                    // Italy
  JE: [all("999"), all("112"), crisis("116 123")],                                   // Bailiwick of Jersey: crisis: Samaritans
  JM: [police("119"), ambulance("110")],                                             // Jamaica: 110 also fire
  JO: [all("911")],                                                                  // Jordan
  JP: [police("110"), ambulance("119")],                                             // Japan: 119 also fire; no 24-hour national crisis line
  KE: [all("999"), all("112")],                                                      // Kenya
  KG: [police("102"), ambulance("103"), fire("101")],                                // Kyrgyzstan
  KH: [police("117"), ambulance("119"), fire("118")],                                // Cambodia
  KI: [police("192"), ambulance("194"), fire("193")],                                // Kiribati
  KM: [police("17"), fire("18")],                                                    // Comoros: doubtful
  KN: [all("911")],                                                                  // St. Kitts and Nevis
  KP: [all("112"), ambulance("119")],                                                // North Korea: doubtful: few sources (Android: 112; libphonenumber: 112, 119)
  KR: [police("112"), ambulance("119"), crisis("109")],                              // South Korea: 119 also fire; crisis: national suicide prevention line since 2024
  KW: [all("112")],                                                                  // Kuwait
  KY: [all("911")],                                                                  // Cayman Islands
  KZ: [all("112"), ambulance("103"), police("102"), fire("101")],                    // Kazakhstan
  LA: [police("191"), ambulance("195"), fire("190")],                                // Laos
  LB: [police("112"), ambulance("140"), fire("175")],                                // Lebanon: 140: Lebanese Red Cross
  LC: [all("911"), police("999")],                                                   // St. Lucia
  LI: [all("112"), ambulance("144"), police("117"), fire("118"), crisis("143")],     // Liechtenstein: crisis: Telefonhilfe
  LK: [police("119"), ambulance("1990"), fire("110")],                               // Sri Lanka: 1990: Suwa Seriya ambulance
  LR: [all("911")],                                                                  // Liberia
  LS: [police("123"), ambulance("121"), fire("122")],                                // Lesotho: doubtful
  LT: [all("112")],                                                                  // Lithuania
  LU: [all("112"), police("113")],                                                   // Luxembourg
  LV: [all("112"), ambulance("113"), police("110")],                                 // Latvia
  LY: [police("1515"), ambulance("193"), fire("191")],                               // Libya: doubtful
  MA: [police("19"), ambulance("15")],                                               // Morocco: 15 also fire; 177 for the Gendarmerie outside towns
  MC: [all("112"), police("17"), fire("18")],                                        // Monaco: 18: the fire brigade also runs the ambulances
  MD: [all("112"), ambulance("903"), police("902"), fire("901")],                    // Moldova
  ME: [all("112"), ambulance("124"), police("122"), fire("123")],                    // Montenegro
  MF: [all("112"), ambulance("15"), police("17"), fire("18")],                       // Saint-Martin: French numbers
  MG: [police("117"), fire("118")],                                                  // Madagascar
  MH: [all("911")],                                                                  // Marshall Islands
  MK: [all("112"), ambulance("194"), police("192"), fire("193")],                    // North Macedonia
  ML: [police("17"), ambulance("15"), fire("18")],                                   // Mali
  MM: [police("199"), ambulance("192"), fire("191")],                                // Myanmar
  MN: [police("102"), ambulance("103"), fire("101")],                                // Mongolia
  MO: [all("999")],                                                                  // Macau
  MP: [all("911"), crisis("988")],                                                   // Northern Mariana Islands
  MQ: [all("112"), ambulance("15"), police("17"), fire("18")],                       // Martinique: French numbers
  MR: [police("117"), fire("118")],                                                  // Mauritania
  MS: [all("911"), all("999")],                                                      // Montserrat
  MT: [all("112")],                                                                  // Malta
  MU: [police("999"), ambulance("114"), fire("115")],                                // Mauritius
  MV: [police("119"), ambulance("102"), fire("118")],                                // Maldives
  MW: [police("997"), ambulance("998"), fire("999")],                                // Malawi
  MX: [all("911"), crisis("800 911 2000")],                                          // Mexico: crisis: Línea de la Vida
  MY: [all("999"), all("112"), crisis("15555")],                                     // Malaysia: crisis: Talian HEAL (8 am to midnight)
  MZ: [police("119"), ambulance("117"), fire("198")],                                // Mozambique
  NA: [police("10111")],                                                             // Namibia: ambulances and fire brigades have town numbers
  NC: [police("17"), ambulance("15"), fire("18")],                                   // New Caledonia
  NE: [police("17"), ambulance("15"), fire("18")],                                   // Niger
  NF: [all("000")],                                                                  // Norfolk Island: Australian number since 2016
  NG: [all("112"), police("199")],                                                   // Nigeria
  NI: [police("118"), ambulance("128"), fire("115")],                                // Nicaragua: 128: Cruz Roja
  NL: [all("112"), crisis("113")],                                                   // Kingdom of the Netherlands: crisis: 113 Zelfmoordpreventie
  NO: [police("112"), ambulance("113"), fire("110"), crisis("116 123")],             // Norway: no general number: 112 is the police; crisis: Mental Helse
  NP: [police("100"), ambulance("102"), fire("101")],                                // Nepal
  NR: [police("110"), ambulance("111"), fire("112")],                                // Nauru
  NU: [all("999")],                                                                  // Niue
  NZ: [all("111"), crisis("1737")],                                                  // New Zealand: crisis: Need to talk? (call or text)
  OM: [all("9999")],                                                                 // Oman
  PA: [all("911"), police("104")],                                                   // Panama
  PE: [police("105"), ambulance("106"), fire("116")],                                // Peru: 106: SAMU
  PF: [police("17"), ambulance("15"), fire("18")],                                   // French Polynesia
  PG: [police("112"), ambulance("111"), fire("110")],                                // Papua New Guinea
  PH: [all("911"), crisis("1553")],                                                  // Philippines: crisis: National Center for Mental Health
  PK: [police("15"), ambulance("1122"), fire("16")],                                 // Pakistan: 1122: Rescue 1122 (ambulance and fire in most provinces)
  PL: [all("112"), ambulance("999"), police("997"), fire("998"), crisis("116 123")], // Poland: crisis: Kryzysowy Telefon Zaufania
  PM: [police("17"), ambulance("15"), fire("18")],                                   // Saint Pierre and Miquelon
  PN: [all("112"), all("911")],                                                      // Pitcairn Islands: about 40 inhabitants, no emergency number: the fallback numbers
  PR: [all("911"), crisis("988")],                                                   // Puerto Rico
  PS: [police("100"), ambulance("101"), fire("102")],                                // Palestine
  PT: [all("112")],                                                                  // Portugal
  PW: [all("911")],                                                                  // Palau
  PY: [all("911")],                                                                  // Paraguay
  QA: [all("999")],                                                                  // Qatar
  RE: [all("112"), ambulance("15"), police("17"), fire("18")],                       // Réunion: French numbers
  RO: [all("112")],                                                                  // Romania
  RS: [police("192"), ambulance("194"), fire("193")],                                // Serbia
  RU: [all("112"), ambulance("103"), police("102"), fire("101")],                    // Russia
  RW: [all("112"), ambulance("912"), fire("111")],                                   // Rwanda
  SA: [all("911"), ambulance("997"), police("999"), fire("998")],                    // Saudi Arabia: 911 is the unified number in the main regions
  SB: [police("999"), ambulance("911"), fire("988")],                                // Solomon Islands: doubtful
  SC: [all("999")],                                                                  // Seychelles
  SD: [police("999"), ambulance("333")],                                             // Sudan: 999 also fire
  SE: [all("112"), crisis("90101")],                                                 // Sweden: crisis: Mind Självmordslinjen
  SG: [police("999"), ambulance("995"), crisis("1767")],                             // Singapore: 995 also fire; crisis: Samaritans of Singapore
  SH: [all("999"), ambulance("911")],                                                // Saint Helena, Ascension and Tristan da Cunha: doubtful
  SI: [all("112"), police("113")],                                                   // Slovenia
  SJ: [police("112"), ambulance("113"), fire("110")],                                // Svalbard and Jan Mayen: Norwegian numbers
  SK: [all("112"), ambulance("155"), police("158"), fire("150")],                    // Slovakia
  SL: [police("019"), ambulance("117")],                                             // Sierra Leone: 117: National Emergency Medical Service since 2019; doubtful: police 019 (999 also listed)
  SM: [police("113"), ambulance("118"), fire("115")],                                // San Marino
  SN: [police("17"), ambulance("1515"), fire("18")],                                 // Senegal: doubtful: ambulance 1515 (SAMU)
  SO: [police("888")],                                                               // Somalia: doubtful
  SR: [all("115")],                                                                  // Suriname
  SS: [all("999")],                                                                  // South Sudan
  ST: [all("112")],                                                                  // São Tomé and Principe: doubtful
  SV: [all("911"), fire("913")],                                                     // El Salvador
  SX: [all("911"), fire("919")],                                                     // Sint Maarten
  SY: [police("112"), ambulance("110"), fire("113")],                                // Syria
  SZ: [police("999"), ambulance("977"), fire("933")],                                // Eswatini
  TC: [all("911"), all("999")],                                                      // Turks and Caicos Islands
  TD: [police("17"), fire("18")],                                                    // Chad: doubtful
  TF: [all("112"), all("911")],                                                      // French Southern Territories: research stations only: the fallback numbers, as at sea
  TG: [police("117"), fire("118")],                                                  // Togo: doubtful
  TH: [police("191"), ambulance("1669"), fire("199"), crisis("1323")],               // Thailand: crisis: Department of Mental Health
  TJ: [police("102"), ambulance("103"), fire("101")],                                // Tajikistan
  TK: [all("111")],                                                                  // Tokelau: doubtful: few sources
  TL: [police("112"), ambulance("110")],                                             // East Timor: doubtful
  TM: [police("02"), ambulance("03"), fire("01")],                                   // Turkmenistan
  TN: [police("197"), ambulance("190"), fire("198")],                                // Tunisia
  TO: [police("922"), ambulance("933"), fire("999")],                                // Tonga: doubtful: some lists give 911
  TR: [all("112")],                                                                  // Turkey: 155 and 110 are routed to 112
  TT: [police("999"), ambulance("811"), fire("990")],                                // Trinidad and Tobago: doubtful: ambulance 811 (990 also listed)
  TV: [all("911")],                                                                  // Tuvalu
  TW: [police("110"), ambulance("119"), crisis("1925")],                             // Taiwan: 119 also fire; crisis: Ministry of Health and Welfare
  TZ: [all("112")],                                                                  // Tanzania
  UA: [all("112"), ambulance("103"), police("102"), fire("101"), crisis("7333")],    // Ukraine: crisis: Lifeline Ukraine
  UG: [all("999"), all("112")],                                                      // Uganda
  UM: [all("911")],                                                                  // United States Minor Outlying Islands: minor outlying islands (military bases, refuges): US numbers
  US: [all("911"), crisis("988")],                                                   // United States of America: crisis: 988 Suicide & Crisis Lifeline
  UY: [all("911")],                                                                  // Uruguay
  UZ: [police("102"), ambulance("103"), fire("101")],                                // Uzbekistan
  VA: [all("112"), ambulance("118"), police("113"), fire("115")],                    // Vatican City: Italian numbers
  VC: [all("911"), all("999")],                                                      // St. Vincent and the Grenadines
  VE: [all("911")],                                                                  // Venezuela
  VG: [all("911"), all("999")],                                                      // British Virgin Islands
  VI: [all("911"), crisis("988")],                                                   // United States Virgin Islands
  VN: [police("113"), ambulance("115"), fire("114")],                                // Vietnam
  VU: [police("111"), ambulance("112"), fire("113")],                                // Vanuatu
  WF: [police("17"), ambulance("15"), fire("18")],                                   // Wallis and Futuna
  WS: [all("911")],                                                                  // Samoa
  XK: [all("112"), ambulance("194"), police("192"), fire("193")],                    // Kosovo: user-assigned code (ISO has none for Kosovo)
  YE: [police("199"), ambulance("191")],                                             // Yemen: doubtful
  YT: [all("112"), ambulance("15"), police("17"), fire("18")],                       // Mayotte: French numbers
  ZA: [police("10111"), ambulance("10177"), all("112"), crisis("0800 567 567")],     // South Africa: 112 from mobiles only; crisis: SADAG
  ZM: [police("991"), ambulance("999"), fire("993"), all("112")],                    // Zambia: doubtful: sources disagree on 999 and 991
  ZW: [all("999"), ambulance("994"), police("995"), fire("993")],                    // Zimbabwe
});
