// The one error that stops an import: an unreadable or unusable input. Nothing is written after it.
export class ImportError extends Error {
  readonly code = "import_failed";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ImportError";
  }
}
