// Text from an input file, made safe to print on an operator's terminal: a control character (C0, DEL,
// C1) is shown as \xNN, and the Unicode controls that reorder or break a line as \u{NNNN}, so an id that
// holds `ESC ] 0 ; ... BEL` or `ESC [ 2 J` cannot retitle or clear the terminal, or forge a line.

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it exists to find.
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;
const INVISIBLE_LAYOUT = /[\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** One line: every control character escaped, newlines and tabs included. */
export function printable(text: string): string {
  return text
    .replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)
    .replace(INVISIBLE_LAYOUT, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`);
}

/** Several lines: each escaped as `printable` does, the line breaks between them kept. */
export function printableLines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}
