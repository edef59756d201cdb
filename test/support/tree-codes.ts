// Reads a pointer's tree text back into its roots and codes (the runtime finds one root at a time:
// lib/psap-index/tree.ts), for tests that walk every root of a built index.
export function treeCodes(text: string): Map<string, string> {
  const codes = new Map<string, string>();
  for (const part of text.split(";").slice(1)) {
    const [root = "", code = ""] = part.split("=");
    codes.set(root, code);
  }
  return codes;
}
