-- The PSAP contact directory: phone numbers operators set over the imported index (the FCC registry
-- has none), and every change to them. Admin-path writes only; lookups read the current numbers
-- through an isolate cache refreshed every 30 s.
CREATE TABLE psap_contacts (
  psap_id TEXT PRIMARY KEY,
  phone TEXT NOT NULL,
  phone_kind TEXT NOT NULL CHECK (phone_kind IN ('emergency', 'administrative')),
  source TEXT NOT NULL,
  note TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE psap_contact_history (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  psap_id TEXT NOT NULL,
  at TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('set', 'deleted')),
  old_phone TEXT,
  old_phone_kind TEXT,
  new_phone TEXT,
  new_phone_kind TEXT,
  source TEXT,
  note TEXT
);

CREATE INDEX psap_contact_history_by_psap ON psap_contact_history (psap_id, seq);
