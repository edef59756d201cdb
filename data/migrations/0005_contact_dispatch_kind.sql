-- An operator's line may now be `dispatch` (answered by the centre's dispatchers around the clock) beside
-- `emergency` and `administrative`. SQLite cannot change a CHECK constraint in place: the table is made
-- again with the wider one and its rows copied over (the history table has no such constraint).
CREATE TABLE psap_contacts_new (
  psap_id TEXT PRIMARY KEY,
  phone TEXT NOT NULL,
  phone_kind TEXT NOT NULL CHECK (phone_kind IN ('emergency', 'dispatch', 'administrative')),
  source TEXT NOT NULL,
  note TEXT,
  updated_at TEXT NOT NULL
);

INSERT INTO psap_contacts_new (psap_id, phone, phone_kind, source, note, updated_at)
  SELECT psap_id, phone, phone_kind, source, note, updated_at FROM psap_contacts;

DROP TABLE psap_contacts;

ALTER TABLE psap_contacts_new RENAME TO psap_contacts;
