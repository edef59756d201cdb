-- Webhooks: each platform's endpoint and signing secrets (admin-path writes), and the delivery record
-- of every event the queue consumer tried to deliver (written by the consumer, off the session path).
-- Secrets are kept in plaintext: signing needs them. They are never logged and leave only in the
-- admin answer that creates or rotates them.
CREATE TABLE platform_webhooks (
  platform_id TEXT PRIMARY KEY REFERENCES platforms(id),
  url TEXT NOT NULL,
  events TEXT,                       -- JSON array of event types; NULL = every type
  secret TEXT NOT NULL,              -- whsec_<base64>
  previous_secret TEXT,              -- still signs until previous_secret_until (a rotation's overlap)
  previous_secret_until TEXT,
  created_at TEXT NOT NULL,          -- events created before this are not delivered to it
  updated_at TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
  event_id TEXT PRIMARY KEY,         -- evt_<random>, the webhook-id header
  platform_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  type TEXT NOT NULL,
  event_created_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL,
  last_status_code INTEGER,          -- NULL when no answer came (timeout, connection refused)
  last_error TEXT,
  first_attempt_at TEXT NOT NULL,
  last_attempt_at TEXT NOT NULL,
  next_attempt_at TEXT               -- set while pending
);

CREATE INDEX webhook_deliveries_by_platform ON webhook_deliveries (platform_id, event_created_at);
CREATE INDEX webhook_deliveries_by_age ON webhook_deliveries (last_attempt_at);
