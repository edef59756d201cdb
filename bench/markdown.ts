// Figures and tables as the bench's generated Markdown writes them (the README sections, the accuracy report).

type Digits = 0 | 1 | 2;

export function num(v: number, digits: Digits): string {
  if (!Number.isFinite(v)) return "n/a";
  return v.toLocaleString("en-US", { minimumFractionDigits: 0, maximumFractionDigits: digits });
}

/** Fewer decimals for larger values (µs and ms figures). */
export function auto(v: number): string {
  return num(v, Math.abs(v) < 10 ? 2 : Math.abs(v) < 100 ? 1 : 0);
}

/** A figure, with its min–max over the kept runs when there are several. */
export function withSpread(
  value: number,
  over: readonly number[],
  show: (v: number) => string = auto,
): string {
  const vals = over.filter(Number.isFinite);
  if (vals.length < 2) return show(value);
  const lo = Math.min(...vals);
  const hi = Math.max(...vals);
  return lo === hi ? show(value) : `${show(value)} (${show(lo)}–${show(hi)})`;
}

/** A Markdown table, columns padded as the formatter (Biome) lays them out, so `npm run lint` stays clean. */
export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(3, h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: readonly string[]) => `| ${widths.map((w, i) => (r[i] ?? "").padEnd(w)).join(" | ")} |`;
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
