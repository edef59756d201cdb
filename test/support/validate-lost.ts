// LoST documents checked with libxml2's xmllint (Debian's libxml2-utils): validity against RFC 5222's
// RELAX NG schema, and XPath reads of a document. xmllint runs with --nonet: no document it reads can make
// it fetch anything.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** RFC 5222, Appendix A (XML syntax): see lost-schema/README.md. */
export const LOST_SCHEMA = fileURLToPath(new URL("./lost-schema/rfc5222-appendix-a.rng", import.meta.url));

const XMLLINT = process.env.XMLLINT ?? "xmllint";
/** xmllint's exit codes: 1 the document is not well-formed, 3 and 4 it is invalid (anything else: xmllint failed). */
const DOCUMENT_ERROR_CODES = new Set([1, 3, 4]);
const RUN_TIMEOUT_MS = 30_000;

/** Why xmllint cannot run here, or null when it can. */
export function xmllintMissing(): string | null {
  const probe = spawnSync(XMLLINT, ["--version"], { encoding: "utf8" });
  if (probe.error)
    return `xmllint is not installed (Debian: apt-get install libxml2-utils): ${probe.error.message}`;
  return probe.status === 0 ? null : `xmllint --version failed: ${probe.stderr}`;
}

/**
 * The errors of `xml` against RFC 5222's RELAX NG schema, as xmllint words them (with line numbers):
 * none for a valid document, at least one for an invalid or malformed one. Throws when xmllint itself
 * cannot do the check (not installed, the schema does not compile), so that is never mistaken for a verdict.
 */
export function validateLost(xml: string): Promise<string[]> {
  return schemaErrors(["--relaxng", LOST_SCHEMA], xml);
}

/**
 * The errors xmllint finds in `xml` against the schema its `schemaArgs` name (`--relaxng FILE`, `--schema
 * FILE`): none for a valid document. Throws when xmllint itself cannot do the check.
 */
export async function schemaErrors(schemaArgs: string[], xml: string): Promise<string[]> {
  const { code, stderr } = await xmllint(["--noout", "--nonet", ...schemaArgs, "-"], xml);
  if (code === 0) return [];
  if (!DOCUMENT_ERROR_CODES.has(code))
    throw new Error(`xmllint could not validate (exit ${code}):\n${stderr}`);
  const errors = stderr
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && line !== "- fails to validate" && line !== "- validates");
  return errors.length > 0 ? errors : [`xmllint exit ${code} without a message`];
}

/**
 * The string value of an XPath 1.0 expression over `xml` (namespaces through `namespace-uri()` and
 * `local-name()`). Throws on a malformed document or expression.
 */
export async function xpathString(xml: string, expression: string): Promise<string> {
  const { code, stdout, stderr } = await xmllint(["--nonet", "--xpath", `string(${expression})`, "-"], xml);
  if (code !== 0) throw new Error(`xmllint --xpath ${expression} failed (exit ${code}):\n${stderr}`);
  // xmllint ends a string result with one newline of its own.
  return stdout.endsWith("\n") ? stdout.slice(0, -1) : stdout;
}

function xmllint(args: string[], input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(XMLLINT, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${XMLLINT}: ${error.message}`));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === null) reject(new Error(`xmllint was stopped (${signal}) after ${RUN_TIMEOUT_MS} ms`));
      else resolve({ code, stdout, stderr });
    });
    // xmllint may exit before reading everything (a parse error early on): that is its answer, not ours.
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}
