// Cleanups that must run however the bench ends: normally, on Ctrl-C or SIGTERM, or on a crash (an
// uncaught error still emits `exit`). Each is synchronous (an exit handler cannot wait), runs once.

const pending = new Set<() => void>();
let installed = false;

function runAll(): void {
  for (const fn of [...pending].reverse()) {
    pending.delete(fn);
    try {
      fn();
    } catch {
      // best effort: the others still run
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", runAll);
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    process.on(signal, () => {
      runAll();
      process.exit(code);
    });
  }
}

/** Registers `fn` to run on exit, a signal or a crash; returns an unregister for the normal path. */
export function onTerminate(fn: () => void): () => void {
  install();
  pending.add(fn);
  return () => {
    pending.delete(fn);
  };
}
