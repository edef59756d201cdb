// The contact directory in D1: the current number of each PSAP an operator set, and the history of changes.
import type { ContactAction, PhoneKind } from "../../sdk/src/protocol.ts";
import type { ContactSource } from "./overlay.ts";

export interface Contact {
  psap_id: string;
  phone: string;
  phone_kind: PhoneKind;
  source: string;
  note: string | null;
  updated_at: string;
}

export interface ContactChange {
  at: string;
  action: ContactAction;
  old: { phone: string; phone_kind: PhoneKind } | null;
  new: { phone: string; phone_kind: PhoneKind } | null;
  source: string | null;
  note: string | null;
}

interface HistoryRow {
  at: string;
  action: ContactAction;
  old_phone: string | null;
  old_phone_kind: PhoneKind | null;
  new_phone: string | null;
  new_phone_kind: PhoneKind | null;
  source: string | null;
  note: string | null;
}

export async function getContact(db: D1Database, psapId: string): Promise<Contact | null> {
  return db.prepare("SELECT * FROM psap_contacts WHERE psap_id = ?").bind(psapId).first<Contact>();
}

export async function allContacts(db: D1Database): Promise<Contact[]> {
  return (await db.prepare("SELECT * FROM psap_contacts").all<Contact>()).results;
}

/** Sets a PSAP's number, recording the change (old and new value) in the same batch. */
export async function putContact(
  db: D1Database,
  value: Omit<Contact, "updated_at">,
  now: Date = new Date(),
): Promise<Contact> {
  const old = await getContact(db, value.psap_id);
  const contact: Contact = { ...value, updated_at: now.toISOString() };
  await db.batch([
    db
      .prepare(
        `INSERT INTO psap_contacts (psap_id, phone, phone_kind, source, note, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (psap_id) DO UPDATE SET phone = excluded.phone, phone_kind = excluded.phone_kind,
           source = excluded.source, note = excluded.note, updated_at = excluded.updated_at`,
      )
      .bind(
        contact.psap_id,
        contact.phone,
        contact.phone_kind,
        contact.source,
        contact.note,
        contact.updated_at,
      ),
    db
      .prepare(
        `INSERT INTO psap_contact_history (psap_id, at, action, old_phone, old_phone_kind, new_phone, new_phone_kind, source, note)
         VALUES (?, ?, 'set', ?, ?, ?, ?, ?, ?)`,
      )
      .bind(
        contact.psap_id,
        contact.updated_at,
        old?.phone ?? null,
        old?.phone_kind ?? null,
        contact.phone,
        contact.phone_kind,
        contact.source,
        contact.note,
      ),
  ]);
  return contact;
}

/** Removes a PSAP's number (the imported one shows again); recorded when there was one. */
export async function deleteContact(
  db: D1Database,
  psapId: string,
  now: Date = new Date(),
): Promise<boolean> {
  const old = await getContact(db, psapId);
  if (!old) return false;
  await db.batch([
    db.prepare("DELETE FROM psap_contacts WHERE psap_id = ?").bind(psapId),
    db
      .prepare(
        `INSERT INTO psap_contact_history (psap_id, at, action, old_phone, old_phone_kind, new_phone, new_phone_kind, source, note)
         VALUES (?, ?, 'deleted', ?, ?, NULL, NULL, NULL, NULL)`,
      )
      .bind(psapId, now.toISOString(), old.phone, old.phone_kind),
  ]);
  return true;
}

export async function contactHistory(db: D1Database, psapId: string): Promise<ContactChange[]> {
  const rows = await db
    .prepare("SELECT * FROM psap_contact_history WHERE psap_id = ? ORDER BY seq")
    .bind(psapId)
    .all<HistoryRow>();
  return rows.results.map((r) => ({
    at: r.at,
    action: r.action,
    old: r.old_phone && r.old_phone_kind ? { phone: r.old_phone, phone_kind: r.old_phone_kind } : null,
    new: r.new_phone && r.new_phone_kind ? { phone: r.new_phone, phone_kind: r.new_phone_kind } : null,
    source: r.source,
    note: r.note,
  }));
}

/** The operator's lines as the lookup reads them (through the isolate cache of overlay.ts). */
export function d1Contacts(db: D1Database): ContactSource {
  return { list: () => allContacts(db) };
}
