// What the session's sockets hear when it changes: each role its own copy of each message (messages.ts
// builds them, so only counselors ever see where the patient is), sent through the socket hub.
import type {
  CounselorUnavailableReason,
  LocationRequestPurpose,
  SessionEndReason,
} from "../../sdk/src/protocol.ts";
import type { SessionCaller } from "./caller.ts";
import {
  greetingMessages,
  locationCheckMessage,
  locationRequestMessage,
  locationUnavailableMessage,
  psapResultsMessage,
  sessionEndedMessage,
  sessionStateMessage,
} from "./messages.ts";
import type { SessionRecord } from "./record.ts";
import type { SocketHub } from "./sockets.ts";

export class SessionBroadcasts {
  readonly #sockets: SocketHub;

  constructor(sockets: SocketHub) {
    this.#sockets = sockets;
  }

  /** The session's state, to everyone. */
  state(record: SessionRecord): void {
    this.#sockets.broadcastEach(["patient", "counselor"], (role) => sessionStateMessage(record, role));
  }

  /** The patient's browsers are asked for a fix for the SOS; how many sockets were asked. */
  locationRequest(record: SessionRecord, now: number): number {
    return this.#sockets.broadcast("patient", locationRequestMessage(record, now, "sos"));
  }

  /** The latest location check, counselors first (patients hear only of a check with a fix). */
  check(record: SessionRecord): void {
    this.#sockets.broadcastEach(["counselor", "patient"], (role) => locationCheckMessage(record, role));
  }

  /** The latest PSAPs, counselors first. */
  results(record: SessionRecord): void {
    this.#sockets.broadcastEach(["counselor", "patient"], (role) => psapResultsMessage(record, role));
  }

  /** Counselors hear why no fix is coming. */
  noLocation(record: SessionRecord, reason: CounselorUnavailableReason): void {
    this.#sockets.broadcast("counselor", locationUnavailableMessage(record, reason));
  }

  /** The final state, then `session_ended`, then close 4000 (no SDK reconnects after it). */
  over(record: SessionRecord, reason: SessionEndReason): void {
    this.state(record);
    this.#sockets.closeAll(sessionEndedMessage(record, reason), `session ${reason}`);
  }

  /**
   * Opens a socket for `caller` and greets it (greetingMessages); returns the client's end, and what
   * the greeting asked the patient for a fix for, if it did.
   */
  open(
    record: SessionRecord,
    caller: SessionCaller,
    now: number,
  ): { client: WebSocket; askedFor: LocationRequestPurpose | null } {
    const { client, server } = this.#sockets.connect(caller, now);
    const greeting = greetingMessages(record, caller.role, now);
    for (const message of greeting) this.#sockets.send(server, message);
    const request = greeting.find((message) => message.type === "location_request");
    return { client, askedFor: request?.purpose ?? null };
  }
}
