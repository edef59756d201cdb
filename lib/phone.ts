// A contact number as the directory accepts it: any number libphonenumber-js (Google's libphonenumber
// metadata) reads as valid for the PSAP's country or territory, written as an operator has it
// ("(617) 343-4200", "617-343-4200", "+1 617 343 4200"), stored as E.164; and for a line that rings the
// 911 floor a 10-digit North American number. The same reading as the import's project CSV.
import { type CountryCode, parsePhoneNumberFromString } from "libphonenumber-js/min";
import type { PhoneKind } from "../sdk/src/protocol.ts";

export type PhoneCheck = { ok: true; e164: string } | { ok: false; message: string };

/** US territories with numbering plans of their own in libphonenumber (all within +1). */
const TERRITORIES = new Set<string>(["PR", "GU", "VI", "AS", "MP"]);

/** The libphonenumber region a national number of a PSAP in `state` is read in. */
export function phoneRegionOf(state: string): CountryCode {
  return TERRITORIES.has(state) ? (state as CountryCode) : "US";
}

export function checkContactPhone(phone: string, kind: PhoneKind, region: CountryCode = "US"): PhoneCheck {
  // Digits and the usual separators only: libphonenumber also reads letters (vanity numbers) and
  // extensions, which no one dials in an emergency.
  const text = phone.trim();
  if (!/^\+?[\d\s().-]{7,30}$/.test(text) || !/\d/.test(text)) {
    return {
      ok: false,
      message: `must be a phone number: E.164 such as +16173434200, or a national number of ${region} such as (617) 343-4200`,
    };
  }
  const parsed = parsePhoneNumberFromString(text, region);
  if (!parsed?.isValid()) return { ok: false, message: `is not a valid phone number for ${region}` };
  if (kind === "emergency" && (parsed.countryCallingCode !== "1" || parsed.nationalNumber.length !== 10)) {
    return {
      ok: false,
      message: "an emergency line must be a 10-digit North American number (+1 and 10 digits)",
    };
  }
  return { ok: true, e164: parsed.number };
}
