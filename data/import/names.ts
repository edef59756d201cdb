// Name normalisation for matching registry text to Census county and place names.

/** Lower case, no accents, no punctuation or spaces; "Saint" -> "st", "Fort" -> "ft", "Mount" -> "mt", "-boro" -> "-borough". */
export function normalizeName(s: string): string {
  return (
    s
      .normalize("NFD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/&/g, " and ")
      .replace(/\bsaint\b/g, "st")
      .replace(/\bsainte\b/g, "ste")
      .replace(/\bfort\b/g, "ft")
      .replace(/\bmount\b/g, "mt")
      // "Marlboro", "Foxboro Police": Massachusetts's Marlborough and Foxborough, as the registry writes them.
      .replace(/boro\b/g, "borough")
      .replace(/[^a-z0-9]/g, "")
  );
}

const COUNTY_SUFFIX =
  /\s+(county|counties|parish|parishes|borough|census area|city and borough|municipality|municipio|cnty|co\.?)$/i;

/** Drops "County", "Parish", "Borough", ... from a county name before normalising it. */
export function normalizeCountyName(s: string): string {
  let t = s.trim();
  for (let i = 0; i < 2; i++) t = t.replace(COUNTY_SUFFIX, "");
  return normalizeName(t);
}

/** Splits a registry county field that lists several counties ("Hancock, Henderson", "Tulsa/Osage"). */
export function splitCountyList(s: string): string[] {
  return s
    .replace(/\s+counties$/i, "")
    .split(/\s*(?:,|\/|&|\band\b|;)\s*/i)
    .map((x) => x.trim())
    .filter((x) => x.length > 0);
}
