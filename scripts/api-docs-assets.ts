// Swagger UI's browser files for the /docs page (src/http/routes/docs.ts), taken from the swagger-ui-dist
// package as published, with its licence and notice, so that the service serves them itself.
// swagger-ui-dist depends on @scarf/scarf, whose install script reports each install to scarf.sh:
// `scarfSettings.enabled: false` in package.json turns that off (installs here make no such call).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** Where they go in a served folder (git-ignored in public/), as the page names them. */
export const SWAGGER_UI_DIR = "docs/swagger-ui";

const FILES = [
  "swagger-ui-bundle.js",
  "swagger-ui-bundle.js.LICENSE.txt",
  "swagger-ui.css",
  "LICENSE",
  "NOTICE",
];

/** Each file's bytes, by its name. */
export function swaggerUiFiles(): Map<string, Uint8Array> {
  const dir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return new Map(FILES.map((name) => [name, readFileSync(join(dir, name))]));
}
