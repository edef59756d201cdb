// A whole SOS through the real queue and consumer: every event reaches the platform in order, signed,
// in the documented envelope, and with no coordinate or address in it.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_TYPES } from "../../sdk/src/protocol.ts";
import { WebhookEvent } from "../../src/http/schemas-webhooks.ts";
import {
  ADMIN_HEADERS,
  asCounselor,
  asPatient,
  asPlatform,
  call,
  newPlatform,
  newSession,
  SESSION_BODY,
  seedPsapIndex,
  sessionPath,
  sessionStubOf,
} from "./helpers.ts";
import { deliveryRows, FakeReceiver, RECEIVER, setWebhook, verify } from "./webhook-receiver.ts";

/** The patient's fix, the location check's and the address on file: none may appear in any webhook. */
const FIX = { latitude: 41.88123, longitude: -87.63457, accuracy: 23 };
const CHECK_FIX = { latitude: 41.79312, longitude: -87.59817, accuracy: 41 };
const ADDRESS = "1200 W Harrison St, Chicago, IL 60607";

let receiver: FakeReceiver;

beforeAll(async () => {
  await seedPsapIndex();
});

beforeEach(() => {
  receiver = new FakeReceiver().install();
});

afterEach(() => {
  receiver.restore();
});

describe("webhooks of a whole SOS", () => {
  it("delivers every event in order, signed, in the envelope, without coordinates or the address", async () => {
    const platform = await newPlatform();
    const { secret } = await setWebhook(platform.platform_id, { url: `${RECEIVER}/hook` });
    if (!secret) throw new Error("no secret shown");
    const session = await newSession(platform, {
      ...SESSION_BODY,
      patient_address: ADDRESS,
      location_check: "at_start",
    });
    const check = await asPatient(session, "/location-check", CHECK_FIX);
    expect(check.status).toBe(200);
    const checked = await check.json<{ area: { state: string | null } }>();
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    expect((await asPatient(session, "/sos/location", { unavailable: "permission_denied" })).status).toBe(
      200,
    );
    const located = await asPatient(session, "/sos/location", FIX);
    expect(located.status).toBe(200);
    const result = await located.json<{
      result_id: string;
      psaps: { id: string; name: string; phone: string | null }[];
    }>();
    expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
    expect((await asPlatform(platform, sessionPath(session, "/end"), "POST")).status).toBe(200);

    const requests = await receiver.waitFor(7);
    const events = receiver.events();
    expect(events.map((e) => e.type)).toEqual([
      "session.created",
      "session.location_checked",
      "session.sos_triggered",
      "session.location_unavailable",
      "session.psaps_delivered",
      "session.sos_cancelled",
      "session.ended",
    ]);
    for (const [i, request] of requests.entries()) {
      const event = events[i];
      expect(request.method).toBe("POST");
      expect(request.url).toBe(`${RECEIVER}/hook`);
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers["webhook-id"]).toBe(event?.id);
      expect(Math.abs(Number(request.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
      expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verify(secret, request)).toEqual(event);
      expect(Object.keys(event ?? {}).sort()).toEqual([
        "created_at",
        "data",
        "id",
        "platform_id",
        "session_id",
        "type",
      ]);
      expect(event?.id).toMatch(/^evt_[0-9a-f]{32}$/);
      // Exactly as the OpenAPI document's `webhooks` describes it.
      expect(WebhookEvent.safeParse(event).error).toBeUndefined();
      expect(event?.platform_id).toBe(platform.platform_id);
      expect(event?.session_id).toBe(session.session_id);
      expect(event?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(7);
    const times = events.map((e) => Date.parse(e.created_at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    expect(events[0]?.data).toEqual({ meeting_id: SESSION_BODY.meeting_id, expires_at: session.expires_at });
    // The check: how it ended, the country and the state; nothing nearer.
    expect(events[1]?.data).toEqual({ outcome: "located", country: "US", state: checked.area.state });
    expect(events[2]?.data).toMatchObject({ repeat: false });
    expect(events[3]?.data).toEqual({ reason: "permission_denied" });
    const delivered = events[4];
    if (delivered?.type !== "session.psaps_delivered") throw new Error("no psaps_delivered");
    expect(delivered.data.result_id).toBe(result.result_id);
    expect(delivered.data.psaps).toEqual(result.psaps.map(({ id, name, phone }) => ({ id, name, phone })));
    expect(delivered.data.psaps.length).toBeGreaterThan(0);
    expect(delivered.data.area).toMatchObject({ country: "US" });

    // The audit trail's rule, for webhooks: grep every byte that left for the fix and the address.
    const everything = requests.map((r) => `${JSON.stringify(r.headers)}\n${r.body}`).join("\n");
    for (const forbidden of [
      "41.881",
      "87.634",
      "41.88123",
      "-87.63457",
      "41.793",
      "87.598",
      "Harrison",
      "60607",
      "latitude",
      "longitude",
    ]) {
      expect(everything).not.toContain(forbidden);
    }

    // The consumer recorded each as delivered on its first try.
    const rows = await deliveryRows(platform.platform_id);
    expect(rows).toHaveLength(7);
    for (const row of rows)
      expect(row).toMatchObject({ status: "delivered", attempts: 1, last_status_code: 200 });
  });

  it("delivers only the types the webhook asked for", async () => {
    const platform = await newPlatform();
    await setWebhook(platform.platform_id, {
      url: `${RECEIVER}/only`,
      events: ["session.sos_triggered", "session.ended"],
    });
    const session = await newSession(platform);
    await asCounselor(session, "/sos");
    await asCounselor(session, "/sos/cancel");
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    await receiver.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(receiver.events().map((e) => e.type)).toEqual(["session.sos_triggered", "session.ended"]);
  });

  it("delivers session.expired and a location timeout", async () => {
    const platform = await newPlatform();
    await setWebhook(platform.platform_id, { url: `${RECEIVER}/timers` });
    const timedOut = await newSession(platform);
    await asCounselor(timedOut, "/sos");
    const expiring = await newSession(platform, { ...SESSION_BODY, expires_in_minutes: 1 });
    // Run the deadlines as if their time had come (the object reads its clock through Date.now).
    const realNow = Date.now;
    Date.now = () => realNow() + 2 * 60_000;
    try {
      for (const id of [timedOut.session_id, expiring.session_id]) {
        await runInDurableObject(sessionStubOf(id), (instance) => instance.alarm());
      }
    } finally {
      Date.now = realNow;
    }
    await receiver.waitFor(5);
    const types = receiver
      .events()
      .map((e) => `${e.session_id === expiring.session_id ? "B" : "A"} ${e.type}`);
    expect(types).toEqual(
      expect.arrayContaining([
        "A session.created",
        "A session.sos_triggered",
        "A session.location_unavailable",
        "B session.created",
        "B session.expired",
      ]),
    );
    const timeout = receiver.events().find((e) => e.type === "session.location_unavailable");
    expect(timeout?.data).toEqual({ reason: "timeout" });
  });

  it("delivers nothing created after the webhook is removed", async () => {
    const platform = await newPlatform();
    await setWebhook(platform.platform_id, { url: `${RECEIVER}/gone` });
    const session = await newSession(platform);
    await receiver.waitFor(1);
    const removed = await call(`/v1/admin/platforms/${platform.platform_id}/webhook`, {
      method: "DELETE",
      headers: ADMIN_HEADERS,
    });
    expect(removed.status).toBe(204);
    await asCounselor(session, "/sos");
    await asPlatform(platform, sessionPath(session, "/end"), "POST");
    await newSession(platform);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(receiver.events().map((e) => e.type)).toEqual(["session.created"]);
  });

  it("sends events created after a second PUT to its new URL, signed with the kept secret", async () => {
    const platform = await newPlatform();
    const { secret } = await setWebhook(platform.platform_id, { url: `${RECEIVER}/first` });
    const session = await newSession(platform);
    await receiver.waitFor(1);
    const again = await setWebhook(platform.platform_id, { url: `${RECEIVER}/second` });
    expect(again.secret).toBeNull();
    await asCounselor(session, "/sos");
    await receiver.waitFor(2);
    expect(receiver.received.map((r) => new URL(r.url).pathname)).toEqual(["/first", "/second"]);
    for (const request of receiver.received) expect(verify(secret ?? "", request)).toBeTruthy();
  });

  it("delivers nothing created before the webhook was set", async () => {
    const platform = await newPlatform();
    const session = await newSession(platform);
    await setWebhook(platform.platform_id, { url: `${RECEIVER}/late` });
    await asCounselor(session, "/sos");
    await receiver.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(receiver.events().map((e) => e.type)).toEqual(["session.sos_triggered"]);
  });

  it("documents every type it sends", () => {
    expect(WEBHOOK_EVENT_TYPES).toEqual([
      "session.created",
      "session.sos_triggered",
      "session.sos_cancelled",
      "session.location_unavailable",
      "session.psaps_delivered",
      "session.location_checked",
      "session.location_dereferenced",
      "session.ended",
      "session.expired",
    ]);
  });
});
