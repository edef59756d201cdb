// Kamailio and its `lost` module as a real LoST client in tests (Debian: kamailio, kamailio-utils-modules):
// started on loopback with a configuration of its own (kamailio-config.ts), ready once it answers SIP,
// always stopped with everything it started; emergency calls placed through it, and where it routed each.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createSocket } from "node:dgram";
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { httpConnectionsConfig, kamailioConfig, type LostConnection } from "./kamailio-config.ts";
import { type GeodeticFix, pidfBody, referenceCarriage, rfc6442Body } from "./pidf-lo.ts";
import { killGroup } from "./processes.ts";
import { parseNameAddr, SipUdpClient } from "./sip-uac.ts";

export type { HttpAuthMethod, LostConnection } from "./kamailio-config.ts";

const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;
/** Longer than the LoST connection's own timeout, so Kamailio's verdict arrives before ours. */
const CALL_MARGIN_MS = 15_000;

export interface EmergencyCall {
  fix: GeodeticFix;
  /** The INVITE carries the PIDF-LO as its whole body, or as RFC 6442 says (multipart body + Geolocation). */
  carriage: "pidf-body" | "rfc6442";
  /** The Request-URI, the service lost_query asks for: urn:service:sos unless given. */
  service?: string;
}

/** A call with its location by reference (RFC 6442, a location URI): Kamailio dereferences it first. */
export interface ReferenceCall {
  carriage: "reference";
  locationUri: string;
  /** By GET inside lost_query, or by POST with lost_held_dereference before it. */
  dereference: "get" | "post";
  service?: string;
}

/** What Kamailio did with one call. */
export interface RoutedCall {
  /** Its SIP answer: 302 when it routed the call, 500 when lost_query gave it no URI. */
  status: number;
  /** lost_query's return code: 200 mapped; 400 failed in Kamailio (HTTP error, unreadable answer, no sip: or sips: URI); 500 a LoST error answer. */
  lostResult: number | null;
  /** The URI lost_query returned: where the call goes. */
  uri: string | null;
  displayName: string | null;
  /** The LoST error lost_query read (`notFound`...), null when none. */
  lostError: string | null;
  /** lost_held_dereference's return code (202: a location came back), for a call dereferenced by POST. */
  heldResult?: number;
}

export interface RunningKamailio {
  sipPort: number;
  /** Everything Kamailio logged so far (its lost module logs each answer it read). */
  output(): string;
  call(call: EmergencyCall | ReferenceCall): Promise<RoutedCall>;
  stop(): Promise<void>;
}

/** The kamailio binary: $KAMAILIO, else the first on the PATH or in the sbin folders (Debian puts it in /usr/sbin). */
export function kamailioBinary(): string | null {
  const chosen = process.env.KAMAILIO;
  if (chosen) return isExecutable(chosen) ? chosen : null;
  const folders = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin", "/sbin"];
  return folders.map((folder) => join(folder, "kamailio")).find(isExecutable) ?? null;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return path.startsWith("/");
  } catch {
    return false;
  }
}

/**
 * Why this machine cannot run the test's Kamailio, or null when it can: the binary is found and
 * `kamailio -c` accepts the very configuration the test uses (so http_client.so and lost.so load).
 */
export function kamailioMissing(): string | null {
  const binary = kamailioBinary();
  if (binary === null) {
    return process.env.KAMAILIO
      ? `KAMAILIO=${process.env.KAMAILIO} is not an executable`
      : "kamailio is not installed (Debian: apt-get install kamailio kamailio-utils-modules)";
  }
  const dir = mkdtempSync(join(tmpdir(), "kamailio-check-"));
  try {
    const cfg = writeConfiguration(dir, 5060, { url: "http://127.0.0.1:9/lost", user: "u", password: "p" });
    const check = spawnSync(binary, ["-c", "-f", cfg], { encoding: "utf8", timeout: 30_000 });
    if (check.status === 0) return null;
    const said = `${check.stdout ?? ""}${check.stderr ?? ""}`.trim().split("\n").slice(-5).join("\n");
    return `kamailio cannot load the test configuration (is kamailio-utils-modules installed?): ${said || check.error?.message}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function writeConfiguration(dir: string, sipPort: number, lost: LostConnection): string {
  const connections = join(dir, "http-connections.cfg");
  writeFileSync(connections, httpConnectionsConfig(lost), { mode: 0o600 }); // it holds the API key
  const cfg = join(dir, "kamailio.cfg");
  writeFileSync(cfg, kamailioConfig(sipPort, connections));
  return cfg;
}

/** A loopback UDP port nobody listens on right now. */
function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket("udp4");
    socket.once("error", reject);
    socket.bind(0, "127.0.0.1", () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

/** Starts Kamailio against `lost` and resolves once it answers SIP on its port (never after a fixed wait). */
export async function startKamailio(lost: LostConnection): Promise<RunningKamailio> {
  const binary = kamailioBinary();
  if (binary === null) throw new Error("kamailio is not installed");
  // The port is free when chosen but not reserved: another process may take it first; then try another.
  for (let attempt = 1; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), "kamailio-lost-"));
    const running = launch(binary, dir, await freeUdpPort(), lost);
    try {
      await running.ready;
      return running.handle;
    } catch (error) {
      await running.handle.stop();
      if (attempt < 3 && /Address already in use/.test(running.handle.output())) continue;
      throw error;
    }
  }
}

function launch(
  binary: string,
  dir: string,
  sipPort: number,
  lost: LostConnection,
): { handle: RunningKamailio; ready: Promise<void> } {
  const cfg = writeConfiguration(dir, sipPort, lost);
  // -DD: stay in the foreground (children forked); -E: log to stderr; small memory, runtime files in `dir`.
  const child: ChildProcess = spawn(
    binary,
    ["-DD", "-E", "-f", cfg, "-m", "32", "-M", "8", "-Y", dir, "-w", dir],
    {
      detached: true, // a process group of its own: stop() reaches the workers too
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  let hasExited = false;
  const exited = new Promise<void>((resolve) => {
    const end = () => {
      hasExited = true;
      resolve();
    };
    child.once("close", end);
    child.once("error", (error) => {
      output += `\ncannot run ${binary}: ${error.message}`;
      end();
    });
  });
  /** Rejects once Kamailio is gone: raced against whatever waits for it to answer. */
  const died = (doing: string) =>
    exited.then(() => {
      throw new Error(`kamailio exited (${child.exitCode ?? child.signalCode}) ${doing}`);
    });
  const withOutput = (error: Error) => {
    throw new Error(`${error.message}\nKamailio's output:\n${output}`);
  };
  const client = SipUdpClient.open();

  const handle: RunningKamailio = {
    sipPort,
    output: () => output,
    async call(call) {
      const sip = await client;
      const carriage =
        call.carriage === "reference"
          ? referenceCarriage(call.locationUri)
          : call.carriage === "rfc6442"
            ? rfc6442Body(call.fix)
            : pidfBody(call.fix);
      const headers =
        call.carriage === "reference" && call.dereference === "post"
          ? [...carriage.headers, "X-Dereference: post"]
          : carriage.headers;
      const timeoutMs = (lost.timeoutSeconds ?? 15) * 1000 + CALL_MARGIN_MS;
      const answer = sip.invite(sipPort, {
        requestUri: call.service ?? "urn:service:sos",
        headers,
        contentType: carriage.contentType,
        body: carriage.body,
        timeoutMs,
      });
      const response = await Promise.race([answer, died("during a call")]).catch(withOutput);
      const contact = response.header("contact");
      const routed = contact === undefined ? null : parseNameAddr(contact);
      const result = response.header("x-lost-result");
      const held = response.header("x-held-result");
      return {
        status: response.status,
        lostResult: result === undefined || result === "" ? null : Number(result),
        uri: routed?.uri ?? null,
        displayName: routed?.displayName ?? null,
        lostError: response.header("x-lost-error") || null,
        ...(held === undefined ? {} : { heldResult: Number(held) }),
      };
    },
    async stop() {
      await (await client).close();
      if (!hasExited) {
        killGroup(child, "SIGTERM");
        const timer = new Promise<void>((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
        await Promise.race([exited, timer]);
      }
      killGroup(child, "SIGKILL"); // whatever is left of the group (quiet when nothing is)
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };

  const ready = (async () => {
    const sip = await client;
    const probe = sip.options(sipPort, {
      requestUri: `sip:probe@127.0.0.1:${sipPort}`,
      timeoutMs: READY_TIMEOUT_MS,
      t1Ms: 50,
      t2Ms: 500,
    });
    probe.catch(() => {}); // when Kamailio dies first, stop() ends the probe: that rejection is expected
    const answer = await Promise.race([probe, died("before answering SIP")]).catch(withOutput);
    if (answer.status !== 200) withOutput(new Error(`kamailio answered the probe ${answer.status}`));
  })();
  return { handle, ready };
}

/**
 * Places each call through a Kamailio of its own that asks `lost` (a LoST URL with a platform id and API
 * key) where emergency calls go, in order; resolves with what it routed each to. Kamailio is stopped in all
 * cases. Point `lost` at the stand-in or at `npm run dev` with LOST_ENABLED=true: the calls are the same.
 */
export async function routeEmergencyCalls(
  lost: LostConnection,
  calls: (EmergencyCall | ReferenceCall)[],
): Promise<RoutedCall[]> {
  const kamailio = await startKamailio(lost);
  try {
    const routed: RoutedCall[] = [];
    for (const call of calls) routed.push(await kamailio.call(call));
    return routed;
  } finally {
    await kamailio.stop();
  }
}
