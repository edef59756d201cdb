// The proof that matters for .dev.vars: a real `wrangler dev` hands the worker exactly the values we wrote.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { wranglerBin } from "../../scripts/dev-run.ts";
import { completeDevVars, setDevVars } from "../../scripts/dev-vars.ts";
import { firstAnswer, freePort, type RunningProcess, startProcess } from "../support/processes.ts";

let running: RunningProcess | undefined;
let directory: string | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

describe(".dev.vars read by wrangler dev", () => {
  it("gives the worker the admin token, the JSON signing key and the demo values byte for byte", async () => {
    directory = mkdtempSync(join(tmpdir(), "dev-vars-"));
    const { secrets } = await completeDevVars({});
    // A user's own line with awkward characters must survive beside ours.
    const text = setDevVars("MY_NOTE='a # b \"c\"'\n", secrets);
    writeFileSync(join(directory, ".dev.vars"), text);
    writeFileSync(
      join(directory, "wrangler.toml"),
      'name = "dev-vars-probe"\nmain = "index.js"\ncompatibility_date = "2026-11-01"\n',
    );
    writeFileSync(
      join(directory, "index.js"),
      "export default { fetch: (request, env) => Response.json({ ADMIN_TOKEN: env.ADMIN_TOKEN, JWT_SIGNING_KEY: env.JWT_SIGNING_KEY, DEMO_PLATFORM_ID: env.DEMO_PLATFORM_ID, DEMO_API_KEY: env.DEMO_API_KEY, MY_NOTE: env.MY_NOTE }) };\n",
    );
    const port = await freePort();
    running = startProcess([wranglerBin(), "dev", "--port", String(port), "--ip", "127.0.0.1"], directory);
    const response = await firstAnswer(`http://127.0.0.1:${port}/`, running, 60_000);
    expect(await response.json()).toEqual({ ...secrets, MY_NOTE: 'a # b "c"' });
  });
});
