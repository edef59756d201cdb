// Limits and defaults of the service, in one place. wrangler.toml's [[ratelimits]] must match RATE_LIMITS.apiKey.

export const SESSION_LIMITS = {
  /** Bounds and default of `expires_in_minutes`. */
  minExpiresInMinutes: 1,
  maxExpiresInMinutes: 1440,
  defaultExpiresInMinutes: 60,
  /** Length bounds of meeting_id, counselor_id, patient_id. */
  maxIdLength: 256,
  /** Longest `patient_address` (the address on file, free text). */
  maxPatientAddressLength: 500,
  /** A cancelled SOS keeps the session alive at least this long. */
  cancelGraceMs: 10 * 60_000,
  /** A session in `sos` expires this long after `sos_started_at` whatever else happens. */
  sosMaxDurationMs: 24 * 60 * 60_000,
  /** Counselors hear `location_unavailable: timeout` when no fix or report arrives in this time. */
  locationDeadlineMs: 30_000,
  /** Audit events of a finished session are purged after this. */
  auditRetentionMs: 30 * 24 * 60 * 60_000,
  /** JWT `exp` is `expires_at` plus this (an outer bound; the session object decides liveness). */
  tokenGraceMs: 24 * 60 * 60_000,
} as const;

export const HTTP_LIMITS = {
  /** Largest accepted request body. */
  maxBodyBytes: 16 * 1024,
  /** Idempotency-Key length bounds and how long a key is remembered. */
  maxIdempotencyKeyLength: 255,
  idempotencyTtlMs: 24 * 60 * 60_000,
  /** Platform names. */
  maxPlatformNameLength: 200,
} as const;

export const RATE_LIMITS = {
  /** Per API key: 600 a minute (binding API_KEY_LIMITER; it answers yes or no, so Retry-After is its period). */
  apiKey: { limit: 600, periodSeconds: 60 },
  /**
   * Per session and role on the JWT routes: 30 in any 10 s (an exact sliding window, counted by the
   * session object itself). A trigger that starts an SOS is never refused.
   */
  sessionRole: { limit: 30, windowMs: 10_000 },
} as const;

export const SOCKET_LIMITS = {
  /** Open sockets per session and role (tabs). */
  maxPerRole: 10,
  /** Accepted upgrades per session and role in any `upgradeWindowMs`. */
  upgradesPerWindow: 30,
  upgradeWindowMs: 60_000,
  /** Retry-After of a refusal for too many open sockets: when one closes is unknown. */
  fullRetryAfterSeconds: 10,
} as const;

export const AUDIT_LIMITS = {
  /** Events per page of `GET .../events`, by default and at most. */
  defaultPageSize: 100,
  maxPageSize: 1000,
} as const;

export const AUTH_LIMITS = {
  /** API key lookups are cached in the isolate this long: a revoked key stops within this time. */
  apiKeyCacheMs: 5_000,
  /** Random base62 characters after `sk_live_`. */
  apiKeyRandomChars: 40,
  /** "No such key" answers are cached this briefly: enough to absorb a burst of one bad key. */
  apiKeyNegativeCacheMs: 1_000,
  /** Most API key lookups one isolate remembers (oldest dropped first). */
  apiKeyCacheMaxEntries: 1_000,
  /** Random base62 characters after `plt_` and `key_`. */
  idRandomChars: 24,
  /**
   * Session tokens one isolate remembers as verified (least recently used dropped first): a session's every request
   * carries the same two tokens, and an EdDSA check costs about 0.2 ms of CPU. About 1 KB each.
   */
  verifiedTokenCacheMaxEntries: 2_048,
} as const;

export const PSAP_LIMITS = {
  /** Records returned per lookup. */
  maxResults: 5,
  /** No record farther than this is returned. */
  maxDistanceKm: 500,
  /** A fix this close to a border (or within its accuracy, if larger) counts as inside every area the border separates. */
  minBorderToleranceM: 500,
  /**
   * Largest border tolerance the index is built for: a larger accuracy counts as this much at a
   * border. Beyond it a fix is too coarse to tell one city from the next anyway, and every entry
   * carries the borders within this distance of its cells.
   */
  maxBorderToleranceKm: 10,
  /** Retry-After of a 503 when the index cannot be read (a KV hiccup usually passes within seconds). */
  lookupRetryAfterSeconds: 3,
  /** A lookup still unanswered after this is a failure (503, lookup_failed), not a wait without end. */
  lookupTimeoutMs: 5_000,
  /**
   * A lookup past `lookupTimeoutMs` is not thrown away: if it still answers within this much more, for
   * the same SOS and fix, its PSAPs go to both sockets (a slow index under load is late, not lost).
   */
  lateLookupMs: 25_000,
  /** How long an isolate trusts the index pointer before reading it again (a switch shows within this). */
  pointerCacheMs: 30_000,
  /** Decoded index entries one isolate keeps (least recently used dropped first)... */
  entryCacheMaxEntries: 2_048,
  /**
   * ...and the most characters of entry text they may add up to (a cached entry keeps its text, whose
   * ring section its rings are decoded from, its parsed header and the rings decoded so far: a few
   * times its text at most, well inside a 128 MB isolate).
   */
  entryCacheMaxChars: 16 * 1024 * 1024,
} as const;

export const CONTACT_LIMITS = {
  /** Lookups read the operator's lines again once their cached copy is this old... */
  cacheMs: 30_000,
  /** ...so that a change reaches every lookup within this (docs/contract.md, section 2). */
  changeVisibleWithinMs: 60_000,
  /** Lengths of a contact's source and note. */
  maxSourceLength: 200,
  maxNoteLength: 500,
  /** Lines a PSAP record lists, best first. */
  maxLinesPerPsap: 4,
  /** Longest label of a line (what the source says it is for). */
  maxLabelLength: 80,
  /** A line not read at its source for this many days counts as stale in the coverage report. */
  staleAfterDays: 365,
} as const;

export const ADMIN_LIMITS = {
  /** PSAPs per page of GET /v1/admin/psaps. */
  defaultPageSize: 100,
  maxPageSize: 1_000,
} as const;

export const WEBHOOK_LIMITS = {
  /** Queue names: keep in step with wrangler.toml's [[queues.*]] (both environments). */
  queue: "sos-webhooks",
  deadLetterQueue: "sos-webhooks-dlq",
  /** A receiver that has not answered (headers) within this is a failed attempt. */
  timeoutMs: 10_000,
  /**
   * Delay before retry n of one event (n = 1 is its second try), in seconds, counted from that event's own
   * failed try: the first retry within 30 s, then backing off to an hour; 8 tries over about 1 h 50 min
   * (the contract (docs/contract.md) asks for 5 over 10 minutes at least). maxAttempts is its length + 1. Each event carries its
   * own count (the consumer re-queues it), so wrangler.toml's max_retries only bounds consumer crashes.
   */
  retryDelaysSeconds: [10, 30, 60, 300, 900, 1_800, 3_600],
  /** After a rotation, deliveries are signed with the old secret too for this long. */
  rotationOverlapMs: 24 * 60 * 60_000,
  /**
   * After the queue refused (or did not take) a send, the session object wakes this much later to send
   * its outbox again, so an event is never left waiting for a next event that may never come (an end).
   */
  outboxRetryMs: 30_000,
  /** Random bytes of a signing secret (`whsec_` + their base64). */
  secretBytes: 32,
  /** Longest webhook URL. */
  maxUrlLength: 2_048,
  /** Deliveries per page of GET /v1/platforms/{id}/webhook/deliveries, by default and at most. */
  defaultDeliveriesPageSize: 50,
  maxDeliveriesPageSize: 200,
  /** Delivery records older than this are pruned by the consumer. */
  deliveryRetentionMs: 30 * 24 * 60 * 60_000,
  /**
   * The outbox is sent this long after its first waiting event, so the events of one SOS (the trigger,
   * then the PSAPs a few tens of ms later) go to the queue in one send and one outbox commit, not one
   * each. Webhooks are notifications: a quarter second more matters less than the emergency path's CPU.
   */
  outboxFlushDelayMs: 250,
  /** Outbox rows sent to the queue in one sendBatch (the queue accepts at most 100). */
  outboxBatchSize: 50,
  /** A queue send unanswered after this counts as failed; its events stay in the outbox and go again later. */
  queueSendTimeoutMs: 10_000,
  /** The outbox reads the platform's webhook before a send; unanswered after this, every event goes to the queue. */
  webhookReadTimeoutMs: 5_000,
} as const;

/** Tries of one event in all: the first and every retry. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_LIMITS.retryDelaysSeconds.length + 1;

/** LoST (docs/contract.md, section 9): `POST /lost` for SIP servers. */
export const LOST_LIMITS = {
  /** Deepest XML element nesting taken: a findService is 4 deep; 32 leaves room for extensions. */
  maxXmlDepth: 32,
  /** Days of query counts kept per platform (the usage route lists them). */
  usageDays: 90,
} as const;

/** Location URIs for the call path (docs/contract.md, section 10): `POST .../location-uri`, `GET|POST /held/{token}`. */
export const HELD_LIMITS = {
  /** A location URI dies this long after it was made, if its SOS has not ended first. */
  uriLifetimeMs: 60 * 60_000,
  /** Location URIs alive at once per session (a fourth is 409 location_uri_limit). */
  maxLiveUrisPerSession: 3,
  /** Dereferences of one URI in any `dereferenceWindowMs` (an exact window in the session object). */
  dereferencesPerWindow: 60,
  dereferenceWindowMs: 60_000,
  /** Random bytes of a URI's id (sealed into its token with the session's id): 128 bits. */
  uriIdBytes: 16,
  /** As LoST (docs/contract.md, section 9): a locationRequest is 2 deep; 32 leaves room for extensions. */
  maxXmlDepth: 32,
  /** A fix's own time (the browser's) is believed only this far back; an older one is dated by its arrival. */
  maxFixAgeMs: 24 * 60 * 60_000,
} as const;
