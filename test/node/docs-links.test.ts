// The docs a newcomer reads: a short front page, every relative link and #anchor in every Markdown file of
// the repository resolving, and the sections moved out of the front page still where it says they are.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SECTION_MARKER } from "../../bench/readme.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Folders that hold no docs of ours (dependencies, local state, build output). */
const SKIP = new Set([
  "node_modules",
  ".git",
  ".wrangler",
  "test-results",
  "dist",
  ".bench-state",
  ".scratch",
]);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

/** The text outside fenced code blocks (a "# comment" in a shell block is not a heading). */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of withoutFences(markdown).split("\n")) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading?.[1]) continue;
    const text = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .replace(/`/g, "");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every link target of the prose: `[text](target)` and `![alt](target)`, titles left off. */
function linksOf(markdown: string): string[] {
  // Code spans hold headings' and commands' text, not links, so they go first.
  const text = withoutFences(markdown).replace(/`[^`\n]*`/g, "`");
  return [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? "");
}

function brokenLinks(file: string): string[] {
  const markdown = readFileSync(file, "utf8");
  return linksOf(markdown).flatMap((target) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return []; // https:, mailto: ...: not ours to check offline
    const [path = "", anchor] = target.split("#", 2);
    const resolved = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
    const where = `${relative(ROOT, file)}: ${target}`;
    if (!existsSync(resolved)) return [`${where} (no such file)`];
    if (anchor === undefined) return [];
    if (statSync(resolved).isDirectory() || !resolved.endsWith(".md"))
      return [`${where} (an anchor into a non-Markdown file)`];
    return anchorsOf(readFileSync(resolved, "utf8")).has(anchor) ? [] : [`${where} (no such heading)`];
  });
}

describe("docs", () => {
  const files = markdownFiles(ROOT);

  it("finds the docs the front page links to", () => {
    const names = files.map((f) => relative(ROOT, f));
    for (const doc of [
      "README.md",
      "CONTRIBUTING.md",
      "bench/README.md",
      "data/README.md",
      "sdk/README.md",
      "docs/webhooks.md",
      "docs/operations.md",
    ])
      expect(names).toContain(doc);
  });

  it("resolves every relative link and #anchor in every Markdown file", () => {
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it("keeps the front page short, and links every doc it moved out", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12 * 1024);
    const links = new Set(linksOf(readme).map((l) => l.split("#")[0]));
    for (const doc of [
      "CONTRIBUTING.md",
      "bench/README.md",
      "data/README.md",
      "sdk/README.md",
      "docs/webhooks.md",
      "docs/operations.md",
    ])
      expect(links).toContain(doc);
    // The two commands, the walk-through, the public data files, and how the code is laid out.
    for (const heading of [
      "walk-through-with-curl",
      "the-public-data-files-and-what-needs-them",
      "how-the-code-is-laid-out",
    ])
      expect(anchorsOf(readme)).toContain(heading);
  });

  it("has each moved section in the file the front page names for it", () => {
    const headings = (path: string) => anchorsOf(readFileSync(join(ROOT, path), "utf8"));
    const expected: Record<string, string[]> = {
      "bench/README.md": ["accuracy-against-real-places", "performance", "goals", "sdk-size"],
      "data/README.md": [
        "psap-data",
        "import-the-registry-at-full-resolution-or-a-newer-one",
        "who-answers-where",
        "lines-the-shipped-directory-and-the-operators-own",
        "land-areas-reservations-and-national-parks",
        "country-and-emergency-numbers",
      ],
      "sdk/README.md": ["browser-sdks", "patient-page", "errors-retries-reconnects", "demo-pages"],
      "docs/webhooks.md": ["webhooks-for-platform-developers", "events", "verify-the-signature-node"],
      "docs/operations.md": ["configuration", "deploy-to-cloudflare"],
      "CONTRIBUTING.md": ["development"],
    };
    for (const [file, anchors] of Object.entries(expected))
      for (const anchor of anchors) expect(headings(file), `${file}#${anchor}`).toContain(anchor);
  });

  it("keeps the bench's generated figures out of the front page", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const bench = readFileSync(join(ROOT, "bench/README.md"), "utf8");
    expect(readme).not.toContain(SECTION_MARKER);
    expect(bench).toContain(SECTION_MARKER);
  });
});

describe("the link check itself", () => {
  it("names headings as GitHub does", () => {
    const anchors = anchorsOf(
      "# Where `../shared` comes from, and what needs it\n## Events\n## Events\n```sh\n# not a heading\n```\n",
    );
    expect([...anchors]).toEqual(["where-shared-comes-from-and-what-needs-it", "events", "events-1"]);
  });

  it("reads links outside code only", () => {
    expect(linksOf('[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n![i](p.png "title")')).toEqual([
      "x.md",
      "p.png",
    ]);
  });
});
