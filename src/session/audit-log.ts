// The session's audit trail, in the object's own SQLite storage, and the sockets it shows as connected.
// Events never hold coordinates or the address on file.
import type {
  AuditActor,
  AuditData,
  AuditEvent,
  AuditEventsPage,
  AuditEventType,
  Role,
} from "../../sdk/src/protocol.ts";

/** Which page of the trail: the events after `after` (a seq), at most `limit` of them. */
export type AuditPageQuery = { after: number; limit: number };

/** Keys that would carry a position or an address: refused at write time, as a last line of defence. */
const FORBIDDEN_KEYS =
  /^(lat|latitude|lon|lng|longitude|coords?|location|position|address|patient_address)$/i;

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
    // The upgrade rate is read from the trail itself: exact, and no write of its own.
    this.#sql.exec(
      "CREATE INDEX IF NOT EXISTS socket_connects ON audit_events(actor) WHERE type = 'socket_connected'",
    );
    // Sockets the trail shows as connected, so a socket that vanished without a close can be found.
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS open_sockets (
      socket_id TEXT PRIMARY KEY,
      role TEXT NOT NULL
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

  /** Up to `limit` events after `after`, in order. */
  page(after: number, limit: number): AuditEventsPage {
    const rows = this.#sql
      .exec<{ seq: number; type: string; at: string; actor: string; data: string | null }>(
        "SELECT seq, type, at, actor, data FROM audit_events WHERE seq > ? ORDER BY seq LIMIT ?",
        after,
        limit + 1,
      )
      .toArray();
    const more = rows.length > limit;
    const events = rows.slice(0, limit).map((row) => {
      const event: AuditEvent = {
        seq: row.seq,
        type: row.type as AuditEventType,
        at: row.at,
        actor: row.actor as AuditActor,
      };
      if (row.data !== null) event.data = JSON.parse(row.data) as AuditData;
      return event;
    });
    return { events, next_after: more ? (events.at(-1)?.seq ?? null) : null };
  }

  /** When the `count`-th most recent accepted socket of `role` connected (ms), or null if there were fewer. */
  nthLatestConnect(role: Role, count: number): number | null {
    const row = this.#sql
      .exec<{ at: string }>(
        "SELECT at FROM audit_events WHERE type = 'socket_connected' AND actor = ? ORDER BY seq DESC LIMIT 1 OFFSET ?",
        role,
        count - 1,
      )
      .toArray()[0];
    return row ? Date.parse(row.at) : null;
  }

  socketConnected(socketId: string, role: Role, at: number): void {
    this.#sql.exec("INSERT OR REPLACE INTO open_sockets (socket_id, role) VALUES (?, ?)", socketId, role);
    this.append("socket_connected", role, at, { socket_id: socketId });
  }

  /** Records the socket as gone, once: a close after an error (or a reconciled one) adds nothing. */
  socketDisconnected(socketId: string, at: number, data: AuditData = {}): boolean {
    const gone = this.#sql
      .exec<{ role: string }>("DELETE FROM open_sockets WHERE socket_id = ? RETURNING role", socketId)
      .toArray()[0];
    if (!gone) return false;
    this.append("socket_disconnected", gone.role as Role, at, { socket_id: socketId, ...data });
    return true;
  }

  /** Ids of the sockets the trail shows as connected. */
  openSocketIds(): string[] {
    return this.#sql
      .exec<{ socket_id: string }>("SELECT socket_id FROM open_sockets")
      .toArray()
      .map((row) => row.socket_id);
  }
}
