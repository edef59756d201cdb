// npm run dev shows wrangler's bindings table once: wrangler prints it on every configuration read and
// again when its dev registry connects; the filter passes everything else through as it came.
import { describe, expect, it } from "vitest";
import { BindingsShownOnce } from "../../scripts/dev-output.ts";

const TITLE = "Your Worker has access to the following bindings:";
const TABLE = [
  TITLE,
  "Binding                                  Resource            Mode",
  "env.SESSIONS (SessionObject)             Durable Object      local",
  "env.PSAP_INDEX (00000000000000000000)    KV Namespace        local",
  "env.DB (sos-platforms)                   D1 Database         local",
  "",
].join("\n");
/** wrangler's start, as it prints it: the table, the server starting, the table again, ready. */
const WRANGLER_START = [
  " ⛅️ wrangler 4.164.0\n",
  "Using secrets defined in .dev.vars\n",
  `${TABLE}\n`,
  "⎔ Starting local server...\n",
  "⎔ Connection status updated\n",
  `${TABLE}\n`,
  "[wrangler:info] Ready on http://127.0.0.1:8787\n",
].join("");

function filtered(chunks: string[]): string {
  let out = "";
  const filter = new BindingsShownOnce((text) => {
    out += text;
  });
  for (const chunk of chunks) filter.push(chunk);
  filter.end();
  return out;
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe("wrangler's output through npm run dev", () => {
  it("shows the bindings table once, and every other line as it came, in order", () => {
    const out = filtered([WRANGLER_START]);
    expect(count(out, TITLE)).toBe(1);
    expect(count(out, "env.SESSIONS (SessionObject)")).toBe(1);
    expect(out).toBe(
      WRANGLER_START.replace(`⎔ Connection status updated\n${TABLE}\n`, "⎔ Connection status updated\n"),
    );
  });

  it("does the same whatever the pipe cuts the output into", () => {
    const whole = filtered([WRANGLER_START]);
    for (const size of [1, 7, 64]) {
      const chunks = WRANGLER_START.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [];
      expect(filtered(chunks), `chunks of ${size}`).toBe(whole);
    }
  });

  it("shows the table again when the bindings changed, and not when only the colours did", () => {
    const changed = TABLE.replace(
      "D1 Database         local\n",
      "D1 Database         local\nenv.NEW (thing)                          KV Namespace        local\n",
    );
    const coloured = TABLE.replace(TITLE, `\u001b[1m${TITLE}\u001b[22m`);
    const out = filtered([`${TABLE}\n`, `${coloured}\n`, `${changed}\n`, `${TABLE}\n`]);
    expect(count(out, TITLE)).toBe(3);
    expect(count(out, "env.NEW (thing)")).toBe(1);
  });

  it("writes a line that has no end yet (a prompt) without waiting for one", async () => {
    let out = "";
    const written = new Promise<void>((resolve) => {
      const filter = new BindingsShownOnce((text) => {
        out += text;
        if (out.includes("? Continue")) resolve();
      });
      filter.push("[wrangler:info] Ready\n? Continue");
    });
    await written;
    expect(out).toBe("[wrangler:info] Ready\n? Continue");
  });
});
