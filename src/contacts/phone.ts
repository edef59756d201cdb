// A contact number as the directory accepts it: E.164, valid, and for a line that rings the 911 floor a
// 10-digit North American number. Validated with libphonenumber-js (Google's libphonenumber metadata).
import { parsePhoneNumberFromString } from "libphonenumber-js/min";
import type { PhoneKind } from "../../sdk/src/protocol.ts";

export type PhoneCheck = { ok: true; e164: string } | { ok: false; message: string };

export function checkContactPhone(phone: string, kind: PhoneKind): PhoneCheck {
  if (!/^\+[1-9]\d{6,14}$/.test(phone)) {
    return { ok: false, message: "must be an E.164 number: + then the country code and number, digits only" };
  }
  const parsed = parsePhoneNumberFromString(phone);
  if (!parsed?.isValid() || parsed.number !== phone)
    return { ok: false, message: "is not a valid phone number" };
  if (kind === "emergency" && (parsed.countryCallingCode !== "1" || parsed.nationalNumber.length !== 10)) {
    return {
      ok: false,
      message: "an emergency line must be a 10-digit North American number (+1 and 10 digits)",
    };
  }
  return { ok: true, e164: parsed.number };
}
