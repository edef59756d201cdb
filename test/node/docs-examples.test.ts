// The docs' examples against `npm run dev` serving the real data: the answer docs/location-check.md shows
// for its fix (the area in words and the centre to call first) is the answer the service gives for it, so a
// reader who tries the example sees what the page says. The README's walk-through is checked the same way.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, ROOT, startDevServer } from "../support/dev-server.ts";

const READY_TIMEOUT_MS = 300_000;

/** The JSON example of a doc whose `type` is `type` (the first such block). */
function jsonExample(doc: string, type: string): Record<string, unknown> {
  const text = readFileSync(join(ROOT, doc), "utf8");
  for (const m of text.matchAll(/```json\n([\s\S]*?)```/g)) {
    const value = JSON.parse(m[1] as string) as Record<string, unknown>;
    if (value.type === type) return value;
  }
  throw new Error(`${doc} has no JSON example of type ${type}`);
}

describe("the docs' examples, asked of npm run dev", () => {
  let server: DevServer;
  let platform: { platform_id: string; api_key: string };

  beforeAll(async () => {
    server = await startDevServer({ stateName: "docs-examples-tests", readyTimeoutMs: READY_TIMEOUT_MS });
    const res = await fetch(`${server.base}/v1/admin/platforms`, {
      method: "POST",
      headers: { Authorization: `Bearer ${server.adminToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "docs examples" }),
    });
    expect(res.status).toBe(201);
    platform = (await res.json()) as typeof platform;
  }, READY_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await server?.stop();
  });

  /** The answer to a fix sent during an SOS, as the patient's SDK gets it. */
  async function answerFor(location: { latitude: number; longitude: number; accuracy: number }) {
    const base = `${server.base}/v1/platforms/${platform.platform_id}/sessions`;
    const created = await fetch(base, {
      method: "POST",
      headers: { "X-API-Key": platform.api_key, "Content-Type": "application/json" },
      body: JSON.stringify({ meeting_id: "docs", counselor_id: "c", patient_id: "p" }),
    });
    const session = (await created.json()) as {
      session_id: string;
      counselor_token: string;
      patient_token: string;
    };
    const sos = await fetch(`${base}/${session.session_id}/sos`, {
      method: "POST",
      headers: { Authorization: `Bearer ${session.counselor_token}` },
    });
    expect(sos.status).toBe(202);
    const res = await fetch(`${base}/${session.session_id}/sos/location`, {
      method: "POST",
      headers: { Authorization: `Bearer ${session.patient_token}`, "Content-Type": "application/json" },
      body: JSON.stringify(location),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { area: unknown; psaps: { id: string; name: string }[] };
  }

  it("docs/location-check.md: its fix's area and the centre to call first", async () => {
    const example = jsonExample("docs/location-check.md", "location_check");
    const answer = await answerFor(
      example.location as { latitude: number; longitude: number; accuracy: number },
    );
    expect(answer.area).toEqual(example.area);
    const shown = (example.psaps as { id: string; name: string }[])[0];
    expect(answer.psaps[0]).toMatchObject({ id: shown?.id, name: shown?.name });
  });

  it("the README's walk-through: the fix it sends is answered with a centre, its area and 911", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const sent = /-d '(\{"latitude":[^']+\})'/.exec(readme)?.[1];
    expect(sent).toBeDefined();
    const answer = await answerFor(JSON.parse(sent as string));
    expect(answer.psaps[0]?.name).toMatch(/Chicago/);
    expect(answer.area).toMatchObject({ country: "US", state: "IL", county: "Cook", place: "Chicago" });
  });
});
