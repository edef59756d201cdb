// A Node process that used the counselor SDK exits at once after `session_ended` and disconnect(), even
// when the server keeps the TCP connection open after its close frame (as `wrangler dev`'s workerd does
// for 10 s). The SDK is the minified module as shipped; the server is a bare HTTP upgrade written here,
// so the test controls exactly what the wire does.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleOptions } from "../../scripts/build-sdk.ts";
import { CLOSE_SESSION_OVER } from "../../sdk/src/protocol.ts";

const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** How long the server keeps a connection after its close frame: far beyond the 1 s the test allows. */
const SERVER_HOLDS_MS = 30_000;
const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
/** A token the SDK can read (it never verifies: the service does). */
const TOKEN = `${b64url({ alg: "none" })}.${b64url({ sid: "s-1", pid: "plt_1", aud: "counselor" })}.x`;

let dir: string;
let server: Server;
let base: string;
const held: Socket[] = [];

/** One unmasked server frame (opcode 0x1 text, 0x8 close), payloads under 126 bytes. */
function frame(opcode: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x80 | opcode, payload.length]), payload]);
}

function closeFrame(code: number, reason: string): Buffer {
  const body = Buffer.alloc(2 + Buffer.byteLength(reason));
  body.writeUInt16BE(code, 0);
  body.write(reason, 2);
  return frame(0x8, body);
}

/** The upgrade: accepted, then the session ends as the service ends it, and the TCP connection is kept. */
function upgrade(req: IncomingMessage, socket: Socket): void {
  const key = req.headers["sec-websocket-key"] ?? "";
  const accept = createHash("sha1").update(`${key}${WS_GUID}`).digest("base64");
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  held.push(socket);
  socket.on("error", () => {});
  socket.write(frame(0x1, Buffer.from(JSON.stringify({ type: "session_state", state: "active" }))));
  socket.write(
    frame(0x1, Buffer.from(JSON.stringify({ type: "session_ended", session_id: "s-1", reason: "ended" }))),
  );
  socket.write(closeFrame(CLOSE_SESSION_OVER, "session ended"));
  // Then nothing: the client's close frame is read and ignored, and the connection stays open.
  setTimeout(() => socket.destroy(), SERVER_HOLDS_MS).unref();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sdk-node-exit-"));
  const out = await build({ ...bundleOptions("counselor"), write: false });
  writeFileSync(join(dir, "counselor.js"), out.outputFiles[0]?.text ?? "");
  writeFileSync(
    join(dir, "child.mjs"),
    [
      `import { CounselorSDK } from ${JSON.stringify(pathToFileURL(join(dir, "counselor.js")).href)};`,
      "const api = process.argv[2];",
      'const server = new CounselorSDK({ apiBaseUrl: api, platformId: "plt_1", secretKey: "sk_live_x" });',
      'const s = await server.startSession({ meetingId: "m", counselorId: "c", patientId: "p" });',
      "const counselor = new CounselorSDK({",
      "  sessionToken: s.counselor_token,",
      "  apiBaseUrl: api,",
      '  onSessionState: (state) => { if (state === "ended") { counselor.disconnect(); console.log("disconnected"); } },',
      "});",
      "await counselor.connect();",
      'console.log("connected");',
    ].join("\n"),
  );
  server = createServer((req, res) => {
    // startSession: the answer the service gives, with the token above.
    req.resume();
    req.on("end", () => {
      res.writeHead(201, { "Content-Type": "application/json" });
      res.end(
        JSON.stringify({ session_id: "s-1", state: "active", counselor_token: TOKEN, patient_token: TOKEN }),
      );
    });
  });
  server.keepAliveTimeout = SERVER_HOLDS_MS;
  server.on("upgrade", upgrade);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of held) socket.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the child; resolves with the ms from its "disconnected" line to its exit, and its output. */
function runChild(): Promise<{ afterDisconnect: number; output: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [join(dir, "child.mjs"), base], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let disconnectedAt = 0;
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (!disconnectedAt && output.includes("disconnected")) disconnectedAt = performance.now();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("error", reject);
    child.on("exit", (code) =>
      resolve({ afterDisconnect: disconnectedAt ? performance.now() - disconnectedAt : -1, output, code }),
    );
  });
}

describe("the counselor SDK in Node", () => {
  it("lets the process exit within 1 s of disconnect() after session_ended, while the server keeps the TCP connection", async () => {
    const { afterDisconnect, output, code } = await runChild();
    expect(output).toContain("connected");
    expect(output).toContain("disconnected");
    expect(code, output).toBe(0);
    expect(afterDisconnect).toBeGreaterThanOrEqual(0);
    expect(afterDisconnect, output).toBeLessThan(1000);
  }, 60_000);
});
