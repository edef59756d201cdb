// The session's audit trail, in the object's own SQLite storage. Events never hold coordinates.
import type { Role } from "../../sdk/src/protocol.ts";

export type AuditEventType =
  | "session_created"
  | "socket_connected"
  | "socket_disconnected"
  | "sos_triggered"
  | "sos_cancelled"
  | "location_requested"
  | "location_received"
  | "location_unavailable"
  | "psaps_delivered"
  | "session_ended"
  | "session_expired";

/** Who caused an event: a browser role, the platform's backend, or the service itself (timers). */
export type AuditActor = Role | "platform" | "system";

/** Event data: identifiers, counts and reasons only. Typed so a coordinate cannot be put in by accident. */
export type AuditData = Record<string, string | number | boolean | null | string[]>;

export interface AuditEvent {
  seq: number;
  type: AuditEventType;
  at: string;
  actor: AuditActor;
  data?: AuditData;
}

/** Keys that would carry a position: refused at write time, as a last line of defence. */
const FORBIDDEN_KEYS = /^(lat|latitude|lon|lng|longitude|coords?|location|position)$/i;

export class AuditLog {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS audit_events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      type TEXT NOT NULL,
      at TEXT NOT NULL,
      actor TEXT NOT NULL,
      data TEXT
    )`);
  }

  append(type: AuditEventType, actor: AuditActor, at: number, data?: AuditData): void {
    if (data) {
      for (const key of Object.keys(data)) {
        if (FORBIDDEN_KEYS.test(key)) throw new Error(`audit data must not hold a position (${key})`);
      }
    }
    this.#sql.exec(
      "INSERT INTO audit_events (type, at, actor, data) VALUES (?, ?, ?, ?)",
      type,
      new Date(at).toISOString(),
      actor,
      data ? JSON.stringify(data) : null,
    );
  }

  list(): AuditEvent[] {
    const rows = this.#sql
      .exec<{ seq: number; type: string; at: string; actor: string; data: string | null }>(
        "SELECT seq, type, at, actor, data FROM audit_events ORDER BY seq",
      )
      .toArray();
    return rows.map((row) => {
      const event: AuditEvent = {
        seq: row.seq,
        type: row.type as AuditEventType,
        at: row.at,
        actor: row.actor as AuditActor,
      };
      if (row.data !== null) event.data = JSON.parse(row.data) as AuditData;
      return event;
    });
  }
}
