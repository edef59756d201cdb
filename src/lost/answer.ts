// What a findService is answered with: the lookup the session API runs, for the same fix, turned into
// one LoST mapping. urn:service:sos (and its sub-services) gets the first PSAP of docs/contract.md, section 4;
// urn:service:counseling (and its sub-services) the crisis line of the fix's country. A failure of ours
// is `internalError`, never `notFound`.
import { type CountryCode, getCountryCallingCode } from "libphonenumber-js";
import { PSAP_LIMITS } from "../../lib/config.ts";
import { isAroundTheClock } from "../../lib/lines.ts";
import type { EmergencyNumbers, PsapRecord } from "../../sdk/src/protocol.ts";
import { type LookupOptions, lookupPsaps, type PsapLookupResult } from "../answer/lookup.ts";
import { type PsapIndexStore, PsapIndexUnavailableError, PsapLookupFailedError } from "../psap/lookup.ts";
import { type FindServiceRequest, LostError } from "./request.ts";
import type { LostMapping } from "./response.ts";

export interface AnswerOptions {
  now: number;
  /**
   * Where a SIP server should send the call for a PSAP whose number is on file, or for a crisis line: with a
   * domain, the number is also given as `sip:+1...@domain;user=phone` (`sip:988@domain;user=phone` for the
   * US crisis line; RFC 3261 section 19.1.6), after its `tel:` URI. Kamailio's LoST client routes only to a
   * SIP URI. Unset: the `tel:` URI alone, as docs/contract.md, section 9 says.
   */
  sipDomain?: string;
  lookup?: LookupOptions;
}

/** A short, stable token of a text (FNV-1a, 32 bits, hex): the data version in a sourceId. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** The digits a number is dialled with ("116 123" -> "116123"). */
function digits(number: string): string {
  return number.replace(/[^0-9*#]/g, "");
}

/** The country's calling code (libphonenumber-js's metadata), or null for one it does not know. */
function callingCode(country: string): string | null {
  try {
    return getCountryCallingCode(country as CountryCode);
  } catch {
    return null;
  }
}

/** A dialled number as a tel: URI: US numbers as the contract writes them (tel:988), others in their country's context (RFC 3966). */
function telOf(number: string, country: string | null): string {
  const local = digits(number);
  const code = country && country !== "US" ? callingCode(country) : null;
  return code ? `tel:${local};phone-context=+${code}` : `tel:${local}`;
}

function lookupFailure(err: unknown): never {
  if (err instanceof PsapIndexUnavailableError || err instanceof PsapLookupFailedError)
    throw new LostError("internalError", "the PSAP data cannot be read at the moment; try again shortly");
  throw err;
}

function firstGeneralNumber(emergency: EmergencyNumbers): string | null {
  const n = emergency.numbers.find((x) => x.service === "all") ?? emergency.numbers[0];
  return n ? digits(n.number) : null;
}

function psapMapping(
  psap: PsapRecord,
  found: PsapLookupResult,
  request: FindServiceRequest,
  options: AnswerOptions,
): LostMapping {
  const uris: string[] = [];
  // Only a line answered around the clock routes an emergency call: a business line may ring out at night.
  const line = psap.lines.find(isAroundTheClock);
  if (line) {
    uris.push(`tel:${line.phone}`);
    if (options.sipDomain) uris.push(`sip:${line.phone}@${options.sipDomain};user=phone`);
  }
  return {
    displayName: `${psap.name} (${psap.state})`,
    service: request.service,
    uris,
    serviceNumber: firstGeneralNumber(found.emergency),
    expires: new Date(options.now + PSAP_LIMITS.pointerCacheMs).toISOString(),
    lastUpdated: found.data_updated_at,
    sourceId: `psap-${psap.id.replace(/[^A-Za-z0-9._-]/g, "_")}-${shortHash(found.data_version)}`,
  };
}

function counselingMapping(
  found: PsapLookupResult,
  request: FindServiceRequest,
  options: AnswerOptions,
): LostMapping {
  const country = found.area.country;
  const line = found.emergency.numbers.find((n) => n.service === "crisis");
  if (!line)
    throw new LostError("notFound", `no national crisis line is known for ${country ?? "this location"}`);
  const tel = telOf(line.number, country);
  // With a gateway, the same number as a SIP URI (RFC 3261 section 19.1.6), which Kamailio can route to.
  const sip = options.sipDomain ? [`sip:${tel.slice("tel:".length)}@${options.sipDomain};user=phone`] : [];
  return {
    displayName: `Crisis line ${line.number}${country ? ` (${country})` : ""}`,
    service: request.service,
    uris: [tel, ...sip],
    serviceNumber: digits(line.number),
    expires: new Date(options.now + PSAP_LIMITS.pointerCacheMs).toISOString(),
    lastUpdated: found.data_updated_at,
    sourceId: `crisis-${country ?? "xx"}-${digits(line.number)}-${shortHash(found.data_version)}`,
  };
}

/** The mapping for a findService: the lookup for its fix, as LoST says it. Throws LostError. */
export async function answerFindService(
  store: PsapIndexStore,
  request: FindServiceRequest,
  options: AnswerOptions,
): Promise<LostMapping> {
  const { latitude, longitude, accuracy } = request.fix;
  const found = await lookupPsaps(
    store,
    { latitude, longitude, accuracy },
    { ...options.lookup, limit: 1 },
  ).catch(lookupFailure);
  if (request.kind === "counseling") return counselingMapping(found, request, options);
  const first = found.psaps[0];
  if (!first) {
    throw new LostError(
      "notFound",
      "no PSAP answers for this location: it is outside the US and its territories, or beyond 500 km of every PSAP",
    );
  }
  return psapMapping(first, found, request, options);
}
