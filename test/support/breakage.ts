// How the XML fuzz tests break a valid document at random: cut it short, drop a character, throw XML's own
// characters in, or repeat a piece of it many times (fast-check picks where and how).
import fc from "fast-check";

export type Breakage =
  | { kind: "cut"; at: number }
  | { kind: "drop"; at: number }
  | { kind: "insert"; at: number; text: string }
  | { kind: "repeat"; at: number; length: number; times: number };

export const breakage: fc.Arbitrary<Breakage> = fc.oneof(
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("drop" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("insert" as const),
    at: fc.nat(),
    text: fc.string({
      unit: fc.constantFrom(..."<>&\"'/=;!?[]-:# \u0000\uFFFFé"),
      minLength: 1,
      maxLength: 8,
    }),
  }),
  fc.record({
    kind: fc.constant("repeat" as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 60 }),
    times: fc.integer({ min: 2, max: 50 }),
  }),
);

/** `text` broken as `how` says (its position taken modulo the text's length). */
export function broken(text: string, how: Breakage): string {
  const at = how.at % (text.length + 1);
  switch (how.kind) {
    case "cut":
      return text.slice(0, at);
    case "drop":
      return text.slice(0, at) + text.slice(at + 1);
    case "insert":
      return text.slice(0, at) + how.text + text.slice(at);
    case "repeat":
      return (
        text.slice(0, at) + text.slice(at, at + how.length).repeat(how.times) + text.slice(at + how.length)
      );
  }
}
