// Webhooks end to end: `npm run dev` (wrangler dev, its emulated queue) beside a receiver on 127.0.0.1.
// A whole SOS arrives signed (checked with `standardwebhooks`, as a platform would), a 500 is retried with
// the same id, nothing arrives once the webhook is removed, and with a receiver that refuses each event's
// first request every event of a session still arrives within a minute (each on its own retry schedule).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../support/dev-server.ts";
import { freePort } from "../support/processes.ts";

const READY_TIMEOUT_MS = 170_000;
/** The patient's fix (central Chicago, in the demo data) and the address on file: never in a webhook. */
const FIX = { latitude: 41.87912, longitude: -87.63623, accuracy: 18 };
const ADDRESS = "1200 W Harrison St, Chicago, IL 60607";

interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

let server: DevServer | undefined;
let receiver: Server | undefined;
let base = "";
let hookUrl = "";
let adminToken = "";
const received: Received[] = [];
/** Event types the receiver refuses once with a 500, to see the retry. */
const refuseOnce = new Set<string>(["session.ended"]);
/** Platforms whose every event's first request the receiver refuses with a 500. */
const refuseEveryFirst = new Set<string>();
/** Event ids already seen (for refuseEveryFirst). */
const seenEvents = new Set<string>();

beforeAll(async () => {
  const receiverPort = await freePort();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let parsed: { type?: string; id?: string; platform_id?: string } = {};
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        // recorded as it came
      }
      const firstOfItsEvent = !seenEvents.has(parsed.id ?? "");
      seenEvents.add(parsed.id ?? "");
      const refused =
        refuseOnce.delete(parsed.type ?? "") ||
        (refuseEveryFirst.has(parsed.platform_id ?? "") && firstOfItsEvent);
      const status = refused ? 500 : 204;
      received.push({ at: Date.now(), headers: req.headers, body, answered: status });
      res.writeHead(status).end(status === 500 ? "try again" : undefined);
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(receiverPort, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${receiverPort}/hooks/sos`;

  // Local state of this test's server, apart from a developer's (kept between runs: the demo data loads once).
  server = await startDevServer({
    stateName: "webhooks-e2e",
    args: ["--demo"],
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
  base = server.base;
  adminToken = server.adminToken;
  expect(adminToken).not.toBe("");
}, READY_TIMEOUT_MS + 10_000);

afterAll(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

async function api<T>(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

async function waitUntil(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) {
      const seen = received.map((r) => `${JSON.parse(r.body).type} → ${r.answered}`);
      throw new Error(
        `timed out waiting for ${what}; received ${JSON.stringify(seen)}\n${server?.process.output().slice(-4000)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function eventOf(r: Received): { id: string; type: string; session_id: string } {
  return JSON.parse(r.body) as { id: string; type: string; session_id: string };
}

async function newPlatformWithWebhook(
  name: string,
): Promise<{ platformId: string; apiKey: string; secret: string }> {
  const admin = { Authorization: `Bearer ${adminToken}` };
  const platform = await api<{ platform_id: string; api_key: string }>("POST", "/v1/admin/platforms", admin, {
    name,
  });
  expect(platform.status).toBe(201);
  const hook = await api<{ secret: string }>(
    "PUT",
    `/v1/admin/platforms/${platform.body.platform_id}/webhook`,
    admin,
    { url: hookUrl },
  );
  expect(hook.status).toBe(200);
  return { platformId: platform.body.platform_id, apiKey: platform.body.api_key, secret: hook.body.secret };
}

describe("webhooks against npm run dev", () => {
  it("delivers a whole SOS signed, retries a 500 with the same id, and stops after the webhook is removed", async () => {
    const admin = { Authorization: `Bearer ${adminToken}` };
    const platform = await api<{ platform_id: string; api_key: string }>(
      "POST",
      "/v1/admin/platforms",
      admin,
      {
        name: "webhooks e2e",
      },
    );
    expect(platform.status).toBe(201);
    const { platform_id: platformId, api_key: apiKey } = platform.body;
    const hook = await api<{ secret: string }>("PUT", `/v1/admin/platforms/${platformId}/webhook`, admin, {
      url: hookUrl,
    });
    expect(hook.status).toBe(200);
    const verifier = new Webhook(hook.body.secret);

    const key = { "X-API-Key": apiKey };
    const created = await api<{ session_id: string; counselor_token: string; patient_token: string }>(
      "POST",
      `/v1/platforms/${platformId}/sessions`,
      key,
      { meeting_id: "e2e", counselor_id: "c1", patient_id: "p1", patient_address: ADDRESS },
    );
    expect(created.status).toBe(201);
    const session = `/v1/platforms/${platformId}/sessions/${created.body.session_id}`;
    const counselor = { Authorization: `Bearer ${created.body.counselor_token}` };
    const patient = { Authorization: `Bearer ${created.body.patient_token}` };
    expect((await api("POST", `${session}/sos`, counselor, {})).status).toBe(202);
    expect((await api("POST", `${session}/sos/location`, patient, { unavailable: "timeout" })).status).toBe(
      200,
    );
    expect((await api("POST", `${session}/sos/location`, patient, FIX)).status).toBe(200);
    expect((await api("POST", `${session}/end`, key)).status).toBe(200);

    const expected = [
      "session.created",
      "session.sos_triggered",
      "session.location_unavailable",
      "session.psaps_delivered",
      "session.ended",
    ];
    // session.ended is refused once: its retry comes within 30 s (10 s by default).
    await waitUntil(
      "every event, and session.ended twice",
      () =>
        received.filter((r) => r.answered === 204).length >= expected.length &&
        received.filter((r) => eventOf(r).type === "session.ended").length >= 2,
      60_000,
    );
    const delivered = received.filter((r) => r.answered === 204).map(eventOf);
    expect(delivered.map((e) => e.type)).toEqual(expected);
    for (const r of received) {
      const verified = verifier.verify(r.body, {
        "webhook-id": String(r.headers["webhook-id"]),
        "webhook-timestamp": String(r.headers["webhook-timestamp"]),
        "webhook-signature": String(r.headers["webhook-signature"]),
      }) as { id: string; session_id: string };
      expect(verified.id).toBe(r.headers["webhook-id"]);
      expect(verified.session_id).toBe(created.body.session_id);
    }
    const ends = received.filter((r) => eventOf(r).type === "session.ended");
    expect(ends.map((r) => r.answered)).toEqual([500, 204]);
    expect(eventOf(ends[1] as Received).id).toBe(eventOf(ends[0] as Received).id);
    expect(ends[1]?.body).toBe(ends[0]?.body);
    expect((ends[1]?.at ?? 0) - (ends[0]?.at ?? 0)).toBeLessThanOrEqual(30_000);
    const everything = received.map((r) => `${JSON.stringify(r.headers)}${r.body}`).join("\n");
    for (const forbidden of ["41.879", "87.636", "Harrison", "60607"])
      expect(everything).not.toContain(forbidden);

    // The platform sees its deliveries.
    const list = await api<{ deliveries: { type: string; status: string; attempts: number }[] }>(
      "GET",
      `/v1/platforms/${platformId}/webhook/deliveries`,
      key,
    );
    expect(list.status).toBe(200);
    expect(list.body.deliveries.map((d) => d.status)).toEqual(expected.map(() => "delivered"));
    expect(list.body.deliveries.find((d) => d.type === "session.ended")?.attempts).toBe(2);

    // Removed: nothing created afterwards arrives.
    expect((await api("DELETE", `/v1/admin/platforms/${platformId}/webhook`, admin)).status).toBe(204);
    const count = received.length;
    const later = await api<{ session_id: string; counselor_token: string }>(
      "POST",
      `/v1/platforms/${platformId}/sessions`,
      key,
      { meeting_id: "e2e-2", counselor_id: "c1", patient_id: "p1" },
    );
    expect(later.status).toBe(201);
    const laterPath = `/v1/platforms/${platformId}/sessions/${later.body.session_id}`;
    expect(
      (await api("POST", `${laterPath}/sos`, { Authorization: `Bearer ${later.body.counselor_token}` }, {}))
        .status,
    ).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(received.slice(count).map((r) => eventOf(r).type)).toEqual([]);
  }, 120_000);
  it("delivers every event of a session within a minute when each event's first request is refused", async () => {
    const { platformId, apiKey } = await newPlatformWithWebhook("webhooks e2e: every first request refused");
    refuseEveryFirst.add(platformId);
    const key = { "X-API-Key": apiKey };
    const created = await api<{ session_id: string; counselor_token: string; patient_token: string }>(
      "POST",
      `/v1/platforms/${platformId}/sessions`,
      key,
      { meeting_id: "e2e-first-refused", counselor_id: "c1", patient_id: "p1" },
    );
    expect(created.status).toBe(201);
    const startedAt = Date.now();
    const session = `/v1/platforms/${platformId}/sessions/${created.body.session_id}`;
    const counselor = { Authorization: `Bearer ${created.body.counselor_token}` };
    const patient = { Authorization: `Bearer ${created.body.patient_token}` };
    expect((await api("POST", `${session}/sos`, counselor, {})).status).toBe(202);
    expect((await api("POST", `${session}/sos/location`, patient, FIX)).status).toBe(200);
    expect((await api("POST", `${session}/sos/cancel`, counselor, {})).status).toBe(200);
    expect((await api("POST", `${session}/end`, key)).status).toBe(200);
    const expected = [
      "session.created",
      "session.sos_triggered",
      "session.psaps_delivered",
      "session.sos_cancelled",
      "session.ended",
    ];
    const mine = () => received.filter((r) => eventOf(r).session_id === created.body.session_id);
    // Waits for the deliveries themselves; the minute is the contract, checked on the times they came.
    await waitUntil(
      "every event of the session delivered after its refused first request",
      () => mine().filter((r) => r.answered === 204).length >= expected.length,
      90_000,
    );
    const delivered = mine().filter((r) => r.answered === 204);
    expect(delivered.map((r) => eventOf(r).type)).toEqual(expected);
    for (const d of delivered) {
      const tries = mine().filter((r) => eventOf(r).id === eventOf(d).id);
      expect(tries.map((r) => r.answered)).toEqual([500, 204]);
      // Its own first retry, within 30 s of its own first failure (the schedule's 10 s, plus the queue's
      // batching): the contract. The minute for the whole session follows from it and is checked in
      // virtual time (test/worker/webhooks-schedule.test.ts), where a busy machine cannot stretch it.
      expect(d.at - (tries[0]?.at ?? 0), eventOf(d).type).toBeLessThanOrEqual(30_000);
    }
    console.info(
      `every event delivered ${((Math.max(...delivered.map((d) => d.at)) - startedAt) / 1000).toFixed(1)} s after the session started`,
    );
    const list = await api<{ deliveries: { status: string; attempts: number; last_error: string | null }[] }>(
      "GET",
      `/v1/platforms/${platformId}/webhook/deliveries?session_id=${created.body.session_id}`,
      key,
    );
    expect(list.body.deliveries.map((d) => [d.status, d.attempts])).toEqual(
      expected.map(() => ["delivered", 2]),
    );
  }, 120_000);
});
