// A minimal SIP user agent client on a loopback UDP socket (RFC 3261): OPTIONS and INVITE client
// transactions with their retransmissions, an ACK for a final non-2xx answer, and the final response parsed.
// Enough to place test calls through a SIP server; no dialogs, no media.
import { randomBytes } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";

/** RFC 3261's T1 and T2 (ms): the retransmission intervals of UDP transactions. */
const T1_MS = 500;
const T2_MS = 4000;

export interface SipResponse {
  status: number;
  reason: string;
  /** The first value of a header (case-insensitive name), or undefined. */
  header(name: string): string | undefined;
  raw: string;
}

export interface SipRequestOptions {
  requestUri: string;
  headers?: string[];
  contentType?: string;
  body?: string;
  /** Gives up (rejects) when no final response came within this time. */
  timeoutMs: number;
  /** Retransmission intervals: RFC 3261's T1 and T2 unless a caller polls faster (a readiness probe). */
  t1Ms?: number;
  t2Ms?: number;
}

interface Pending {
  onResponse(response: SipResponse): void;
  cancel(reason: Error): void;
}

export class SipUdpClient {
  private readonly pending = new Map<string, Pending>();

  private constructor(
    private readonly socket: Socket,
    readonly port: number,
  ) {
    socket.on("message", (message) => this.dispatch(message.toString("utf8")));
  }

  /** A client bound to a free loopback UDP port. */
  static open(): Promise<SipUdpClient> {
    return new Promise((resolve, reject) => {
      const socket = createSocket("udp4");
      socket.once("error", reject);
      socket.bind(0, "127.0.0.1", () => {
        socket.off("error", reject);
        resolve(new SipUdpClient(socket, socket.address().port));
      });
    });
  }

  /** An OPTIONS transaction to `port` on loopback: its final response. */
  options(port: number, options: SipRequestOptions): Promise<SipResponse> {
    return this.transaction(port, "OPTIONS", options);
  }

  /** An INVITE transaction: its final response (a non-2xx one acknowledged with an ACK, as RFC 3261 says). */
  invite(port: number, options: SipRequestOptions): Promise<SipResponse> {
    return this.transaction(port, "INVITE", options);
  }

  /** Ends every transaction still waiting (it rejects) and closes the socket. */
  close(): Promise<void> {
    for (const pending of [...this.pending.values()]) pending.cancel(new Error("the SIP client was closed"));
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private transaction(
    port: number,
    method: "OPTIONS" | "INVITE",
    options: SipRequestOptions,
  ): Promise<SipResponse> {
    const branch = `z9hG4bK${randomBytes(8).toString("hex")}`;
    const via = `Via: SIP/2.0/UDP 127.0.0.1:${this.port};branch=${branch};rport`;
    const from = `From: <sip:caller@127.0.0.1>;tag=${randomBytes(4).toString("hex")}`;
    const callId = `Call-ID: ${randomBytes(8).toString("hex")}@127.0.0.1`;
    const body = options.body ?? "";
    const request = [
      `${method} ${options.requestUri} SIP/2.0`,
      via,
      "Max-Forwards: 70",
      from,
      `To: <${options.requestUri}>`,
      callId,
      `CSeq: 1 ${method}`,
      `Contact: <sip:caller@127.0.0.1:${this.port}>`,
      ...(options.headers ?? []),
      ...(options.contentType ? [`Content-Type: ${options.contentType}`] : []),
      `Content-Length: ${Buffer.byteLength(body)}`,
      "",
      body,
    ].join("\r\n");
    const ack = (response: SipResponse) =>
      [
        `ACK ${options.requestUri} SIP/2.0`,
        via,
        "Max-Forwards: 70",
        from,
        `To: ${response.header("to") ?? `<${options.requestUri}>`}`,
        callId,
        "CSeq: 1 ACK",
        "Content-Length: 0",
        "",
        "",
      ].join("\r\n");

    return new Promise((resolve, reject) => {
      const t2 = options.t2Ms ?? T2_MS;
      let interval = options.t1Ms ?? T1_MS;
      let retransmit: NodeJS.Timeout | undefined;
      const send = (text: string) => this.socket.send(text, port, "127.0.0.1");
      const schedule = () => {
        retransmit = setTimeout(() => {
          send(request);
          // INVITE doubles without bound until a response; a non-INVITE request caps at T2.
          interval = method === "INVITE" ? interval * 2 : Math.min(interval * 2, t2);
          schedule();
        }, interval);
      };
      const done = () => {
        clearTimeout(retransmit);
        clearTimeout(giveUp);
        this.pending.delete(branch);
      };
      const giveUp = setTimeout(() => {
        done();
        reject(
          new Error(
            `no final answer to ${method} ${options.requestUri} on port ${port} in ${options.timeoutMs} ms`,
          ),
        );
      }, options.timeoutMs);
      this.pending.set(branch, {
        onResponse: (response) => {
          if (response.status < 200) {
            // A provisional answer: the server has the request; INVITE stops retransmitting, others slow down.
            clearTimeout(retransmit);
            if (method !== "INVITE") {
              interval = t2;
              schedule();
            }
            return;
          }
          done();
          if (method === "INVITE" && response.status >= 300) send(ack(response));
          resolve(response);
        },
        cancel: (reason) => {
          done();
          reject(reason);
        },
      });
      send(request);
      schedule();
    });
  }

  private dispatch(raw: string): void {
    const response = parseResponse(raw);
    if (response === null) return; // a request or garbage: this client only places calls
    const branch = /;\s*branch=([^;,\s]+)/i.exec(response.header("via") ?? "")?.[1];
    if (branch !== undefined) this.pending.get(branch)?.onResponse(response);
  }
}

/** Compact header forms (RFC 3261 section 7.3.3) a server may use. */
const COMPACT: Record<string, string> = { v: "via", f: "from", t: "to", i: "call-id", m: "contact" };

export function parseResponse(raw: string): SipResponse | null {
  const headEnd = raw.indexOf("\r\n\r\n");
  const lines = (headEnd === -1 ? raw : raw.slice(0, headEnd)).split("\r\n");
  const statusLine = /^SIP\/2\.0 (\d{3}) (.*)$/.exec(lines[0] ?? "");
  if (!statusLine) return null;
  const headers: [string, string][] = [];
  for (const line of lines.slice(1)) {
    const last = headers.at(-1);
    if (/^[ \t]/.test(line) && last) {
      last[1] += ` ${line.trim()}`; // a folded header line
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.push([COMPACT[name] ?? name, line.slice(colon + 1).trim()]);
  }
  return {
    status: Number(statusLine[1]),
    reason: statusLine[2] ?? "",
    header: (name) => headers.find(([key]) => key === name.toLowerCase())?.[1],
    raw,
  };
}

/** A name-addr (`"Display" <uri>` or `<uri>`): its URI and its display name, unquoted. */
export function parseNameAddr(value: string): { uri: string; displayName: string | null } | null {
  const match = /^\s*(?:"((?:[^"\\]|\\.)*)"\s*)?<([^>]*)>/.exec(value);
  if (!match?.[2]) return null;
  const quoted = match[1];
  return { uri: match[2], displayName: quoted === undefined ? null : quoted.replace(/\\(.)/g, "$1") };
}
