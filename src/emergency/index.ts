// The patient's country and the emergency numbers to dial there: what the PSAP lookup puts in `area` and `emergency`.
import type { EmergencyNumbers } from "../../sdk/src/protocol.ts";
import { US_TERRITORIES } from "./locate.ts";
import { EMERGENCY_NUMBERS, type EmergencyNumber, FALLBACK_NUMBERS } from "./numbers.ts";

export { type CountryLocation, locateCountry, US_TERRITORIES, withinReachOfUs } from "./locate.ts";
export { EMERGENCY_NUMBERS, type EmergencyNumber, FALLBACK_NUMBERS } from "./numbers.ts";

/**
 * The numbers to dial in `country` (as `locateCountry` returns it), first the one to dial first. A US territory
 * (`state` PR, GU, VI, AS, MP, UM) uses its own row, still reported as the US, as `area` does; any other state
 * (a state code such as CA or IN, which are also country codes) is ignored. An unknown country (at sea) or a code
 * missing from the table gets FALLBACK_NUMBERS (112 and 911).
 */
export function emergencyNumbersFor(country: string | null, state: string | null = null): EmergencyNumbers {
  const row = tableRow(country, state) ?? FALLBACK_NUMBERS;
  return { country, numbers: row.map((n) => ({ number: n.number, service: n.service })) };
}

function tableRow(country: string | null, state: string | null): readonly EmergencyNumber[] | undefined {
  if (country === "US" && state !== null && US_TERRITORIES.has(state)) return EMERGENCY_NUMBERS[state];
  if (country !== null && Object.hasOwn(EMERGENCY_NUMBERS, country)) return EMERGENCY_NUMBERS[country];
  return undefined;
}
