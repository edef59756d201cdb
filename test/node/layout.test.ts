// The rules of docs/architecture.md that are not about imports (dependency-cruiser checks those): the session
// object stays small, and the repository stands on its own: no tracked file refers to a document outside it,
// the public data files of ../shared/psap-data aside.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/dev-server.ts";

/** Tracked text files (binary data and the bundle's archives left out). */
function trackedTextFiles(): string[] {
  return execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((f) => f !== "" && !/\.(gz|png|jpg|zip|xlsx|pbf)$/.test(f));
}

/** A reference to a file outside the repository: the team's folder beside it, save its public data files. */
const OUTSIDE =
  /\.\.\/shared\/(?!psap-data\b)|\bSPEC\.md\b|\bSPEC sections?\b|\bSTYLE\.md\b|\bSTACK-NOTES\.md\b/;

describe("the layout the code keeps", () => {
  it("keeps the session object under 400 lines", () => {
    const lines = readFileSync(join(ROOT, "src/session/session-object.ts"), "utf8").split("\n").length - 1;
    expect(lines).toBeLessThan(400);
  });

  it("names no document outside the repository in any tracked file (../shared/psap-data's data aside)", () => {
    const offenders: string[] = [];
    for (const file of trackedTextFiles()) {
      if (file === "test/node/layout.test.ts") continue;
      const text = readFileSync(join(ROOT, file), "utf8");
      text.split("\n").forEach((line, i) => {
        if (OUTSIDE.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  it("catches what it looks for", () => {
    expect(OUTSIDE.test("see ../shared/SPEC.md, section 4")).toBe(true);
    expect(OUTSIDE.test("// SPEC section 9")).toBe(true);
    expect(OUTSIDE.test("STYLE.md says")).toBe(true);
    expect(OUTSIDE.test("../shared/psap-data/census-places-2019.geojson.gz")).toBe(false);
    expect(OUTSIDE.test("docs/contract.md, section 4")).toBe(false);
  });
});
