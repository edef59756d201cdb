// The PSAP data `npm run dev` loads into the local index: the import CLI does the work, and does
// nothing when an index is loaded already (--if-empty).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runNode, warn } from "./dev-run.ts";

export async function loadPsapData(persistTo: string | undefined): Promise<void> {
  const cli = join(ROOT, "data/import/cli.ts");
  if (!existsSync(cli)) return warn("data/import/cli.ts is missing: no PSAP data loaded");
  const args = [cli, "--demo", "--if-empty", ...(persistTo === undefined ? [] : ["--persist-to", persistTo])];
  const { code } = await runNode(args, false);
  if (code !== 0) {
    warn(
      `loading the demo PSAP data failed (exit code ${code}); retry with \`npm run psap:import -- --demo\``,
    );
  }
}
