// wrangler dev's output on its way to the terminal, with its bindings table shown once. wrangler prints
// the table each time it reads its configuration and again once its local dev registry connects (a
// dozen times in a session that rebuilt its pages), which buried the banner. A table that differs from
// the last one shown (wrangler.toml edited meanwhile) is news, and is shown.

/** The table's first line ends so ("Your Worker has access...", or "<name> has access..."). */
const TITLE = /has access to the following bindings:\s*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes are what it removes
const COLOURS = /\u001b\[[0-9;]*m/g;
/** A line still without its end waits this long for it, then is written as it is (a prompt, say). */
const PARTIAL_LINE_MS = 50;

export class BindingsShownOnce {
  readonly #write: (text: string) => void;
  /** Text after the last line end, not yet written. */
  #partial = "";
  #partialTimer: ReturnType<typeof setTimeout> | undefined;
  /** The table being read (title to blank line), or null outside one. */
  #table: string[] | null = null;
  /** The last table written, without colours. */
  #shown: string | null = null;

  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  /** Some of wrangler's output, cut anywhere. */
  push(chunk: string): void {
    this.#stopWaiting();
    const lines = (this.#partial + chunk).split("\n");
    this.#partial = lines.pop() ?? "";
    for (const line of lines) this.#line(`${line}\n`);
    if (this.#partial && this.#table === null) {
      this.#partialTimer = setTimeout(() => this.#flushPartial(), PARTIAL_LINE_MS);
      this.#partialTimer.unref?.();
    }
  }

  /** wrangler's output ended: whatever is held is written. */
  end(): void {
    this.#stopWaiting();
    if (this.#partial) this.#line(this.#partial);
    this.#partial = "";
    if (this.#table) this.#endTable();
  }

  #line(line: string): void {
    const plain = line.replace(COLOURS, "").trimEnd();
    if (this.#table === null) {
      if (TITLE.test(plain)) this.#table = [line];
      else this.#write(line);
      return;
    }
    this.#table.push(line);
    if (plain === "") this.#endTable();
  }

  #endTable(): void {
    const table = this.#table ?? [];
    this.#table = null;
    const plain = table.join("").replace(COLOURS, "");
    if (plain === this.#shown) return;
    this.#shown = plain;
    this.#write(table.join(""));
  }

  #flushPartial(): void {
    this.#partialTimer = undefined;
    if (!this.#partial || this.#table !== null) return;
    this.#write(this.#partial);
    this.#partial = "";
  }

  #stopWaiting(): void {
    if (this.#partialTimer !== undefined) clearTimeout(this.#partialTimer);
    this.#partialTimer = undefined;
  }
}
