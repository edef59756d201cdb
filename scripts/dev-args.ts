// The `wrangler dev` flags `npm run dev` must understand: where the server will listen, and which
// local state and config the setup steps must share with it. Everything else passes through untouched.

export const DEFAULT_PORT = 8787;
/** wrangler's own default (`localhost`, or 127.0.0.1 on Windows). */
export const DEFAULT_HOST = process.platform === "win32" ? "127.0.0.1" : "localhost";

export interface DevFlags {
  port?: number;
  ip?: string;
  protocol: "http" | "https";
  /** Flags the setup commands (`wrangler d1 ...`) need too, so they touch the same database. */
  sharedFlags: string[];
  /** The value of `--persist-to`, if any (the PSAP import needs it as well). */
  persistTo?: string;
}

/** Reads the flags we care about, in the forms yargs accepts: `--port 9000`, `--port=9000`. */
export function readDevFlags(args: readonly string[]): DevFlags {
  const flags: DevFlags = { protocol: "http", sharedFlags: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") break;
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const takesValue = VALUE_FLAGS.has(name);
    if (!takesValue) continue;
    let value = eq === -1 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      value = args[i + 1];
      if (value === undefined || value.startsWith("-")) throw new DevArgsError(`${name} needs a value`);
      i++;
    }
    switch (name) {
      case "--port": {
        const port = Number(value);
        if (!Number.isInteger(port) || port < 0 || port > 65_535) {
          throw new DevArgsError(`--port must be a port number (0-65535), not "${value}"`);
        }
        flags.port = port;
        break;
      }
      case "--ip":
        flags.ip = value;
        break;
      case "--local-protocol":
        if (value !== "http" && value !== "https")
          throw new DevArgsError('--local-protocol must be "http" or "https"');
        flags.protocol = value;
        break;
      case "--persist-to":
        flags.persistTo = value;
        flags.sharedFlags.push("--persist-to", value);
        break;
      default:
        // --config/-c and --env/-e choose the wrangler.toml and environment: the setup must use the same.
        flags.sharedFlags.push(name, value);
    }
  }
  return flags;
}

const VALUE_FLAGS = new Set([
  "--port",
  "--ip",
  "--local-protocol",
  "--persist-to",
  "--config",
  "-c",
  "--env",
  "-e",
]);

/** The URL a browser on this machine uses to reach the server wrangler will start. */
export function serverUrl(flags: Pick<DevFlags, "ip" | "protocol">, port: number): string {
  const ip = flags.ip ?? DEFAULT_HOST;
  // A wildcard address listens everywhere; locally it is reached as localhost.
  const host = ip === "*" || ip === "0.0.0.0" || ip === "::" || ip === "[::]" ? "localhost" : ip;
  const hostPart = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `${flags.protocol}://${hostPart}:${port}`;
}

/** The host to probe for a free port (what wrangler binds). */
export function listenHost(flags: Pick<DevFlags, "ip">): string {
  const ip = flags.ip ?? DEFAULT_HOST;
  if (ip === "*") return "0.0.0.0";
  return ip.replace(/^\[(.*)\]$/, "$1");
}

/**
 * The arguments for `wrangler dev`: the user's, plus `--port` when they gave none, so that the port we
 * print is the port wrangler uses (left alone, it would silently move on when 8787 is taken).
 */
export function wranglerDevArgs(
  userArgs: readonly string[],
  flags: Pick<DevFlags, "port">,
  port: number,
): string[] {
  return flags.port === undefined ? ["dev", ...userArgs, "--port", String(port)] : ["dev", ...userArgs];
}

/** A flag we cannot make sense of: reported as a message, never as a stack trace. */
export class DevArgsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DevArgsError";
  }
}
