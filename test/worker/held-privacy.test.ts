// Location URIs and privacy (docs/contract.md, section 10): the patient's coordinates reach only the counselors'
// sockets and whoever dereferences a live URI, never a log line, an audit event, a webhook, an error or a
// URL; and a URI stops answering, with the one 404 of an unknown token, once its SOS is cancelled, the
// session ends or expires, a new SOS starts, or an hour has passed.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HELD_LIMITS } from "../../lib/config.ts";
import type { AuditEventsPage, SessionCreateResponse } from "../../sdk/src/protocol.ts";
import { fixOf, heldErrorCode, heldGet, heldPath, heldPost, newLocationUri } from "./held-helpers.ts";
import {
  asCounselor,
  asPatient,
  asPlatform,
  BASE,
  call,
  eventsWithoutTimes,
  expectNeverLogged,
  newPlatform,
  newSession,
  openSocket,
  SESSION_BODY,
  seedPsapIndex,
  sessionPath,
  shiftClock,
  type TestPlatform,
} from "./helpers.ts";
import { FakeReceiver, RECEIVER, setWebhook } from "./webhook-receiver.ts";

/** Five decimals, so any copy of a coordinate would be seen. */
const FIX = { latitude: 41.88123, longitude: -87.63457, accuracy: 23 };
const MOVED = { latitude: 41.89417, longitude: -87.62281, accuracy: 11 };
const SECRETS = ["41.88123", "87.63457", "41.89417", "87.62281"];

expectNeverLogged(SECRETS);

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

async function sosWithUri(platform?: TestPlatform) {
  const owner = platform ?? (await newPlatform());
  const session = await newSession(owner);
  expect((await asCounselor(session, "/sos")).status).toBe(202);
  const { uri } = await newLocationUri(session);
  expect((await asPatient(session, "/sos/location", FIX)).status).toBe(200);
  expect(fixOf(await (await heldPost(uri)).text())?.pos).toBe("41.88123 -87.63457");
  return { platform: owner, session, uri };
}

/** The answer of a token nobody sealed: what every dead URI must answer too, byte for byte. */
async function unknownTokenAnswer(): Promise<{ status: number; body: string }> {
  const res = await call(`/held/${"Q".repeat(80)}`);
  return { status: res.status, body: await res.text() };
}

async function expectGone(uri: string): Promise<void> {
  const unknown = await unknownTokenAnswer();
  expect(unknown.status).toBe(404);
  for (const res of [await heldPost(uri), await heldGet(uri)]) {
    expect({ status: res.status, body: await res.text() }).toEqual(unknown);
  }
}

/** Waits for `done`, polling the way the receiver does. */
async function until(done: () => boolean, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the webhooks");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a location URI that no longer answers", () => {
  it("stops answering when the SOS is cancelled, and a new SOS does not bring it back", async () => {
    const { session, uri } = await sosWithUri();
    expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
    await expectGone(uri);
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    expect((await asPatient(session, "/sos/location", FIX)).status).toBe(200);
    await expectGone(uri);
  });

  it("stops answering when the session ends", async () => {
    const { platform, session, uri } = await sosWithUri();
    expect((await asPlatform(platform, sessionPath(session, "/end"), "POST")).status).toBe(200);
    await expectGone(uri);
  });

  it("stops answering an hour after it was made, though the SOS goes on", async () => {
    const { session, uri } = await sosWithUri();
    const restore = shiftClock(HELD_LIMITS.uriLifetimeMs + 1_000);
    try {
      await expectGone(uri);
      // The SOS itself is still on: a new URI answers.
      const fresh = await newLocationUri(session);
      expect(fixOf(await (await heldPost(fresh.uri)).text())?.pos).toBe("41.88123 -87.63457");
    } finally {
      restore();
    }
  });

  it("stops answering when the session expires, 24 hours into its SOS, before its own hour is up", async () => {
    const { platform, session } = await sosWithUri();
    const sosStartedAt = Date.parse(
      (await (await asPlatform(platform, sessionPath(session))).json<{ sos_started_at: string }>())
        .sos_started_at,
    );
    const day = 24 * 60 * 60_000;
    let restore = shiftClock(day - 30 * 60_000);
    let late: { uri: string; expires_at: string };
    try {
      // Made half an hour before the SOS's end: it expires with the SOS, not an hour later.
      late = await newLocationUri(session);
      expect(Date.parse(late.expires_at)).toBe(sosStartedAt + day);
      expect(fixOf(await (await heldPost(late.uri)).text())?.pos).toBe("41.88123 -87.63457");
    } finally {
      restore();
    }
    restore = shiftClock(day + 1_000);
    try {
      await expectGone(late.uri);
      const read = await asPlatform(platform, sessionPath(session));
      expect((await read.json<{ state: string }>()).state).toBe("expired");
    } finally {
      restore();
    }
  });
});

describe("where the coordinates never go", () => {
  it("not into the audit trail, a webhook, an error or a URL, through a whole SOS with URIs and moves", async () => {
    const platform = await newPlatform();
    await setWebhook(platform.platform_id, { url: `${RECEIVER}/hook` });
    const session: SessionCreateResponse = await newSession(platform, SESSION_BODY);
    const counselor = await openSocket(session.counselor_token);
    expect((await asCounselor(session, "/sos")).status).toBe(202);
    const first = await newLocationUri(session);
    const second = await newLocationUri(session);
    const urls = [first.uri, second.uri];
    const answers: string[] = [];
    answers.push(await (await heldPost(first.uri)).text()); // locationUnknown
    expect((await asPatient(session, "/sos/location", FIX)).status).toBe(200);
    expect(fixOf(await (await heldGet(first.uri)).text())?.pos).toBe("41.88123 -87.63457");
    expect((await asPatient(session, "/sos/location", MOVED)).status).toBe(200);
    expect(fixOf(await (await heldPost(second.uri)).text())?.pos).toBe("41.89417 -87.62281");
    // Every refusal a holder can provoke: a bad body, an exact civic request, past the rate, a dead URI.
    answers.push(await (await heldPost(first.uri, "<locationRequest", "application/held+xml")).text());
    answers.push(
      await (
        await heldPost(
          first.uri,
          '<locationRequest xmlns="urn:ietf:params:xml:ns:geopriv:held"><locationType exact="true">civic</locationType></locationRequest>',
        )
      ).text(),
    );
    for (let i = 0; i < HELD_LIMITS.dereferencesPerWindow; i++) await heldGet(second.uri);
    const limited = await heldGet(second.uri);
    expect(limited.status).toBe(429);
    answers.push(await limited.text());
    expect((await asCounselor(session, "/sos/cancel")).status).toBe(200);
    answers.push(await (await heldGet(first.uri)).text());
    expect(answers.map((a) => (a.startsWith("<") ? heldErrorCode(a) : JSON.parse(a).code))).toEqual([
      "locationUnknown",
      "xmlError",
      "cannotProvideLiType",
      "rate_limited",
      "not_found",
    ]);
    expect((await asPlatform(platform, sessionPath(session, "/end"), "POST")).status).toBe(200);

    // The counselor was told each URI, and nothing in any URL is a coordinate or names the session.
    expect(counselor.all("location_uri").map((m) => m.uri)).toEqual(urls);
    for (const url of urls) {
      expect(url.startsWith(`${BASE}/held/`)).toBe(true);
      for (const secret of [...SECRETS, session.session_id, session.platform_id])
        expect(url).not.toContain(secret);
    }
    const events = (
      await (await asPlatform(platform, `${sessionPath(session)}/events?limit=1000`)).json<AuditEventsPage>()
    ).events;
    expect(events.filter((e) => e.type === "location_dereferenced").length).toBe(
      4 + HELD_LIMITS.dereferencesPerWindow,
    );
    const trail = eventsWithoutTimes(events);
    await until(() => receiver.events().some((e) => e.type === "session.ended"));
    const webhooks = eventsWithoutTimes(receiver.events());
    for (const secret of SECRETS) {
      expect(trail).not.toContain(secret);
      expect(webhooks).not.toContain(secret);
      for (const answer of answers) expect(answer).not.toContain(secret);
    }
    counselor.close();
  });

  it("tells the platform each dereference by webhook: the URI's id and what it answered", async () => {
    const platform = await newPlatform();
    await setWebhook(platform.platform_id, {
      url: `${RECEIVER}/hook`,
      events: ["session.location_dereferenced"],
    });
    const { uri } = await sosWithUri(platform);
    await heldGet(uri);
    const [first, second] = (await receiver.waitFor(2)).map((h) => JSON.parse(h.body));
    expect(first).toMatchObject({
      type: "session.location_dereferenced",
      data: { uri_id: expect.stringMatching(/^luri_/), response: "location" },
    });
    expect(Object.keys(first.data).sort()).toEqual(["response", "uri_id"]);
    expect(second.data).toEqual(first.data);
  });
});

describe("the URI itself", () => {
  it("is on the service's origin, and its token carries 128 random bits and more", async () => {
    const { uri } = await sosWithUri();
    const token = heldPath(uri).slice("/held/".length);
    expect(atob(token.replaceAll("-", "+").replaceAll("_", "/")).length).toBeGreaterThanOrEqual(16 + 16);
  });
});
