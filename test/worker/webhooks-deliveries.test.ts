// GET /v1/platforms/{id}/webhook/deliveries: a platform sees its own recent deliveries, with their status.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliveryRecord } from "../../src/webhooks/deliveries.ts";
import { asCounselor, asPlatform, call, newPlatform, newSession, type TestPlatform } from "./helpers.ts";
import { FakeReceiver, RECEIVER, setWebhook } from "./webhook-receiver.ts";

interface DeliveriesBody {
  deliveries: DeliveryRecord[];
}

let receiver: FakeReceiver;

beforeEach(() => {
  receiver = new FakeReceiver().install();
});

afterEach(() => {
  receiver.restore();
});

function deliveriesPath(platformId: string, query = ""): string {
  return `/v1/platforms/${platformId}/webhook/deliveries${query}`;
}

async function waitForDeliveries(platform: TestPlatform, count: number): Promise<DeliveriesBody> {
  const deadline = Date.now() + 8_000;
  for (;;) {
    const res = await asPlatform(platform, deliveriesPath(platform.platform_id));
    expect(res.status).toBe(200);
    const body = await res.json<DeliveriesBody>();
    if (body.deliveries.length >= count) return body;
    if (Date.now() > deadline) throw new Error(`only ${body.deliveries.length} deliveries listed`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the deliveries route", () => {
  it("lists the platform's deliveries, newest first, with status, attempts and the last answer", async () => {
    const platform = await newPlatform();
    await setWebhook(platform.platform_id, { url: `${RECEIVER}/list` });
    // The receiver refuses everything this once: both events are listed as pending.
    for (let i = 0; i < 2; i++) receiver.answers.push(() => new Response("busy", { status: 503 }));
    const session = await newSession(platform);
    await asCounselor(session, "/sos");
    const body = await waitForDeliveries(platform, 2);
    const [newest, oldest] = body.deliveries;
    // Each tried on its own (no event waits behind another), each refused once.
    expect(newest).toMatchObject({
      type: "session.sos_triggered",
      session_id: session.session_id,
      status: "pending",
      attempts: 1,
      last_status_code: 503,
      last_error: "status 503",
    });
    expect(oldest).toMatchObject({
      type: "session.created",
      session_id: session.session_id,
      status: "pending",
      attempts: 1,
      last_status_code: 503,
      last_error: "status 503",
    });
    expect(oldest?.event_id).toMatch(/^evt_/);
    expect(Date.parse(oldest?.next_attempt_at ?? "") - Date.parse(oldest?.last_attempt_at ?? "")).toBe(
      10_000,
    );
    expect(Object.keys(oldest ?? {}).sort()).toEqual([
      "attempts",
      "event_created_at",
      "event_id",
      "first_attempt_at",
      "last_attempt_at",
      "last_error",
      "last_status_code",
      "next_attempt_at",
      "session_id",
      "status",
      "type",
    ]);
    const filtered = await asPlatform(platform, deliveriesPath(platform.platform_id, "?status=delivered"));
    expect((await filtered.json<DeliveriesBody>()).deliveries).toEqual([]);
    const limited = await asPlatform(platform, deliveriesPath(platform.platform_id, "?limit=1"));
    expect((await limited.json<DeliveriesBody>()).deliveries.map((d) => d.event_id)).toEqual([
      newest?.event_id,
    ]);
    const bySession = await asPlatform(
      platform,
      deliveriesPath(platform.platform_id, `?session_id=${session.session_id}`),
    );
    expect((await bySession.json<DeliveriesBody>()).deliveries).toHaveLength(2);
  });

  it("shows a platform only its own deliveries", async () => {
    const own = await newPlatform();
    const other = await newPlatform();
    await setWebhook(other.platform_id, { url: `${RECEIVER}/other` });
    await newSession(other);
    await waitForDeliveries(other, 1);
    const res = await asPlatform(own, deliveriesPath(own.platform_id));
    expect(res.status).toBe(200);
    expect((await res.json<DeliveriesBody>()).deliveries).toEqual([]);
  });

  it("refuses another platform's key (403), a bad key or none (401), and a bad query (400)", async () => {
    const own = await newPlatform();
    const other = await newPlatform();
    const forbidden = await asPlatform(other, deliveriesPath(own.platform_id));
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("Content-Type")).toBe("application/problem+json");
    expect((await call(deliveriesPath(own.platform_id))).status).toBe(401);
    const bad = await call(deliveriesPath(own.platform_id), { headers: { "X-API-Key": "sk_live_nope" } });
    expect(bad.status).toBe(401);
    for (const query of ["?limit=0", "?limit=201", "?limit=x", "?status=lost", "?session_id=nope"]) {
      const res = await asPlatform(own, deliveriesPath(own.platform_id, query));
      expect(res.status, query).toBe(400);
      expect((await res.json<{ code: string }>()).code).toBe("invalid_request");
    }
  });
});
