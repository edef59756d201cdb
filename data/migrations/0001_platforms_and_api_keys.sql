-- Platforms (telehealth platforms registered by an operator) and their API keys.
-- Keys are stored only as SHA-256 hashes; the plaintext is shown once, at creation.
CREATE TABLE platforms (
  id TEXT PRIMARY KEY,            -- plt_<random>
  name TEXT NOT NULL,
  created_at TEXT NOT NULL        -- ISO 8601 UTC
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,            -- key_<random>
  platform_id TEXT NOT NULL REFERENCES platforms(id),
  key_hash TEXT NOT NULL UNIQUE,  -- hex SHA-256 of the whole key
  created_at TEXT NOT NULL,
  revoked_at TEXT                 -- NULL while the key works
);

CREATE INDEX api_keys_by_platform ON api_keys(platform_id);
