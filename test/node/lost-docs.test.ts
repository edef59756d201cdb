// docs/lost.md works as written: its first request is a findService valid against RFC 5222's schema,
// read by the server as the point it shows, sent by a curl line whose here-document is the whole body; and
// Kamailio (`kamailio -c`) loads its configuration snippet, with its http_client connection file, and every
// module and function it names. Skipped without Kamailio or xmllint, except in CI.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readFindService } from "../../src/lost/request.ts";
import { ROOT } from "../support/dev-server.ts";
import { kamailioBinary, kamailioMissing } from "../support/kamailio.ts";
import { validateLost, xmllintMissing } from "../support/validate-lost.ts";

const DOC = readFileSync(join(ROOT, "docs/lost.md"), "utf8");
const CONNECTIONS_PATH_IN_DOC = "/etc/kamailio/http-connections.cfg";
const missing = kamailioMissing();

/** The fenced code blocks of the section under `heading`. */
function blocksUnder(heading: string): string[] {
  const section = DOC.split(/^## /m).find((part) => part.startsWith(heading)) ?? "";
  return [...section.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? "");
}

describe.skipIf(xmllintMissing() !== null)("docs/lost.md's first request", () => {
  const [sample] = blocksUnder("A first request");
  const curl = /^curl .*--data-binary @- <<'EOF'\n([\s\S]*?)^EOF$/m.exec(sample ?? "");

  it("sends a whole findService with curl, to /lost, as application/lost+xml, with the platform's key", () => {
    expect(curl, sample).not.toBeNull();
    expect(sample).toMatch(
      /-X POST "\$BASE\/lost" -H "X-API-Key: \$KEY" -H 'Content-Type: application\/lost\+xml'/,
    );
  });

  it("is a findService valid against RFC 5222's schema, read as the point it shows", async () => {
    const body = curl?.[1] ?? "";
    expect(await validateLost(body), body).toEqual([]);
    const request = readFindService(body);
    expect(request).toMatchObject({ kind: "sos", service: "urn:service:sos", locationId: "loc1" });
    expect(request.fix).toMatchObject({ latitude: 41.8781, longitude: -87.6298, accuracy: 0 });
  });
});

describe.skipIf(missing !== null)(
  `docs/lost.md's Kamailio configuration${missing ? ` (skipped: ${missing})` : ""}`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), "lost-docs-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("is loaded by Kamailio as written, with its connection file", () => {
      const [config, connections] = blocksUnder("Kamailio");
      expect(config).toContain('lost_query("lost"');
      expect(connections).toContain("[lost]");
      const connectionsFile = join(dir, "http-connections.cfg");
      writeFileSync(connectionsFile, connections ?? "", { mode: 0o600 });
      const configFile = join(dir, "kamailio.cfg");
      // Only the connection file's place changes: it is this test's folder, not /etc.
      writeFileSync(configFile, (config ?? "").replace(CONNECTIONS_PATH_IN_DOC, connectionsFile));
      const check = spawnSync(kamailioBinary() ?? "kamailio", ["-c", "-f", configFile], {
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    });
  },
);

if (missing !== null && process.env.CI === "true") {
  it("has Kamailio with its lost module in CI (.ci/run installs it)", () => {
    throw new Error(missing);
  });
}
