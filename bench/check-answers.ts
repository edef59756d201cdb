// How the check part reads what the counselor sockets received: the `location_check` of the check and
// the `psap_results` of the SOS loop for the same fix, whether the check is an answer a counselor can act
// on, and whether the two name the same first PSAP. Pure: no socket is read here.
import type { LocationCheckMessage, PsapResultsMessage } from "../sdk/src/protocol.ts";
import { readSessionAnswer, type SessionAnswer } from "./lost-answers.ts";

/** What a check says: its first PSAP, why it found none, or the browser's reason it has no fix. */
export type CheckAnswer = SessionAnswer | { unlocated: string };

/** The check's answer as the counselor got it. */
export function readCheckAnswer(message: LocationCheckMessage): CheckAnswer {
  if (message.outcome !== "located") return { unlocated: message.outcome };
  return readSessionAnswer(message);
}

/** The SOS loop's answer as the counselor got it. */
export function readSosAnswer(message: PsapResultsMessage): SessionAnswer {
  return readSessionAnswer(message);
}

/**
 * Actionable: the check located the patient and names a centre to call. A check without a fix, or one
 * outside every PSAP's coverage, arrives but gives the counselor no centre.
 */
export function actionable(answer: CheckAnswer): answer is { psap: string } {
  return "psap" in answer;
}

/**
 * null when the check and the SOS loop agree on the same fix: the same first PSAP, or both found none
 * for the same reason. Otherwise what differs, with no coordinates in it.
 */
export function checkDisagreement(check: CheckAnswer, sos: SessionAnswer): string | null {
  const said = (a: CheckAnswer): string =>
    "psap" in a ? `"${a.psap}"` : "none" in a ? `none (${a.none})` : `no fix (${a.unlocated})`;
  if ("psap" in check && "psap" in sos && check.psap === sos.psap) return null;
  if ("none" in check && "none" in sos && check.none === sos.none) return null;
  return `check ${said(check)}, SOS loop ${said(sos)}`;
}
