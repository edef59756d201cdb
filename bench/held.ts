// Issue 37's dereference latency: a location URI's dereference (`POST /held/{token}`, a HELD
// locationRequest, answered with the PIDF-LO) beside a session read (`GET .../sessions/{id}` with the
// platform's key) and beside LoST's answer for the same fix (`POST /lost`), on one wrangler dev and the same
// seeded fixes. Each fix has a session of its own under SOS, located there (accuracy 0: a Point, as LoST is
// asked), and one URI. Each request is sent once untimed and then once timed, the three kinds taking turns
// at going first, so all meet the same moments of this shared machine on a warm server. Every timed
// dereference must give the fix back.
import { RATE_LIMITS } from "../lib/config.ts";
import { sendersFor, type Timed, timed } from "./lost.ts";
import { findServiceXml } from "./lost-answers.ts";
import type { HeldResult } from "./results.ts";
import { createPlatforms, type Platform, pool, postJson, type Target } from "./sessions.ts";
import { percentiles, round } from "./stats.ts";
import { type QueryPoint, queryPoints } from "./synthetic.ts";

export interface HeldPlan {
  points: number;
  seed: number;
}

export interface HeldDetail {
  planned_points: number;
  keys: number;
  /** Which points failed and why (no coordinates), the first of them. */
  errors: string[];
  ratio_read_p50: number;
  ratio_lost_p50: number;
}

/** Every timed figure and check of the part. */
export interface HeldTally {
  planned: number;
  derefMs: number[];
  readMs: number[];
  lostMs: number[];
  /** Timed dereferences whose PIDF-LO held the fix as it was sent. */
  located: number;
  failed: number;
  errors: string[];
}

/** Requests a point sends with its platform's key: the session, its URI, and two of each timed kind. */
const KEY_REQUESTS_PER_POINT = 6;
const HELD_TYPE = "application/held+xml;charset=utf-8";
const LOST_TYPE = "application/lost+xml;charset=utf-8";
/** What Kamailio's lost_held_dereference sends. */
const LOCATION_REQUEST =
  '<?xml version="1.0"?><locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held" ' +
  'responseTime="emergencyDispatch"><locationType exact="false">geodetic civic</locationType></locationRequest>';

type Kind = "deref" | "read" | "lost";
const KINDS: readonly Kind[] = ["deref", "read", "lost"];

/** latest.json's figures: two decimals for the p50s the goal divides, so rounding decides nothing. */
export function heldResult(t: HeldTally): HeldResult {
  const d = percentiles(t.derefMs, [50, 95, 99]);
  const r = percentiles(t.readMs, [50, 95, 99]);
  const l = percentiles(t.lostMs, [50, 95, 99]);
  return {
    points: t.derefMs.length,
    deref_ms_p50: round(d[50], 2),
    deref_ms_p95: round(d[95], 2),
    deref_ms_p99: round(d[99], 2),
    read_ms_p50: round(r[50], 2),
    read_ms_p95: round(r[95], 2),
    read_ms_p99: round(r[99], 2),
    lost_ms_p50: round(l[50], 2),
    lost_ms_p95: round(l[95], 2),
    lost_ms_p99: round(l[99], 2),
    located: t.located,
    failed: t.failed,
  };
}

export function heldDetail(t: HeldTally, keys: number): HeldDetail {
  const r = heldResult(t);
  return {
    planned_points: t.planned,
    keys,
    errors: t.errors,
    ratio_read_p50: round(r.deref_ms_p50 / r.read_ms_p50, 3),
    ratio_lost_p50: round(r.deref_ms_p50 / r.lost_ms_p50, 3),
  };
}

/** Whether a dereference's answer is the PIDF-LO of exactly this fix (a Point: it was sent with accuracy 0). */
export function holdsFix(xml: string, fix: Pick<QueryPoint, "latitude" | "longitude">): boolean {
  return (
    xml.includes("<locationResponse") && xml.includes(`<gml:pos>${fix.latitude} ${fix.longitude}</gml:pos>`)
  );
}

/** A fix's session under SOS, located, with its URI, and the key of its platform. */
interface Prepared {
  fix: QueryPoint;
  key: Platform;
  sessionUrl: string;
  uri: string;
}

/** One session per fix: created, SOS, the fix posted as the patient's, a URI made with the key. */
async function prepare(target: Target, fix: QueryPoint, key: Platform): Promise<Prepared> {
  const base = `${target.baseUrl}/v1/platforms/${key.platform_id}/sessions`;
  const session = await postJson<{ session_id: string; counselor_token: string; patient_token: string }>(
    base,
    { meeting_id: "bench-held", counselor_id: "bench-counselor", patient_id: "bench-patient" },
    { "X-API-Key": key.api_key },
  );
  const sessionUrl = `${base}/${session.session_id}`;
  await postJson(`${sessionUrl}/sos`, {}, { Authorization: `Bearer ${session.counselor_token}` });
  await postJson(
    `${sessionUrl}/sos/location`,
    { latitude: fix.latitude, longitude: fix.longitude, accuracy: 0 },
    { Authorization: `Bearer ${session.patient_token}` },
  );
  const { uri } = await postJson<{ uri: string }>(`${sessionUrl}/location-uri`, undefined, {
    "X-API-Key": key.api_key,
  });
  // The URI names the origin it was made on: the bench's own target.
  return { fix, key, sessionUrl, uri };
}

function ask(target: Target, p: Prepared, i: number, kind: Kind): Promise<Timed> {
  switch (kind) {
    case "deref":
      return timed(p.uri, { method: "POST", headers: { "Content-Type": HELD_TYPE }, body: LOCATION_REQUEST });
    case "read":
      return timed(p.sessionUrl, { headers: { "X-API-Key": p.key.api_key } });
    case "lost":
      return timed(`${target.baseUrl}/lost`, {
        method: "POST",
        headers: { "Content-Type": LOST_TYPE, "X-API-Key": p.key.api_key },
        body: findServiceXml(p.fix, `point-${i}`),
      });
  }
}

/** The three kinds in the order of point `i` (each goes first on every third point). */
async function round3(target: Target, p: Prepared, i: number): Promise<Record<Kind, Timed>> {
  const out = {} as Record<Kind, Timed>;
  for (let k = 0; k < KINDS.length; k++) {
    const kind = KINDS[(i + k) % KINDS.length] as Kind;
    out[kind] = await ask(target, p, i, kind);
  }
  return out;
}

async function timePoint(target: Target, p: Prepared, i: number, t: HeldTally): Promise<void> {
  try {
    await round3(target, p, i);
    const done = await round3(target, p, i);
    for (const kind of KINDS) {
      const r = done[kind];
      if (r.status !== 200) throw new Error(`${kind} ${r.status} ${r.text.slice(0, 120)}`);
    }
    t.derefMs.push(done.deref.ms);
    t.readMs.push(done.read.ms);
    t.lostMs.push(done.lost.ms);
    if (holdsFix(done.deref.text, p.fix)) t.located++;
    else throw new Error("the dereference did not give the fix back");
  } catch (err) {
    t.failed++;
    if (t.errors.length < 10) t.errors.push(`point ${i}: ${(err as Error).message}`);
  }
}

export async function benchHeld(
  target: Target,
  plan: HeldPlan,
  log: (line: string) => void = () => {},
): Promise<{ result: HeldResult; detail: HeldDetail }> {
  const fixes = queryPoints(plan.points, plan.seed);
  const keys = await createPlatforms(
    target,
    sendersFor(fixes.length, KEY_REQUESTS_PER_POINT, RATE_LIMITS.apiKey.limit),
  );
  const prepared = await pool(fixes, 8, (fix, i) => prepare(target, fix, keys[i % keys.length] as Platform));
  log(
    `  held: ${prepared.length} sessions under SOS with a fix and a location URI, over ${keys.length} API keys`,
  );
  const tally: HeldTally = {
    planned: fixes.length,
    derefMs: [],
    readMs: [],
    lostMs: [],
    located: 0,
    failed: 0,
    errors: [],
  };
  for (const [i, p] of prepared.entries()) {
    await timePoint(target, p, i, tally);
    if ((i + 1) % 100 === 0) log(`  held: ${i + 1}/${prepared.length} points`);
  }
  return { result: heldResult(tally), detail: heldDetail(tally, keys.length) };
}
