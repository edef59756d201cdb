// A stand-in for `POST /lost` (docs/contract.md, section 9) on a free loopback port, until the route itself exists:
// the same HTTP contract around the LoST document (Basic auth with a 401 challenge, the media type, the
// size bound, problem+json for those refusals), one fixed LoST answer the test chooses, and a record of
// every request it got, refused or not.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

const MAX_BODY_BYTES = 16 * 1024;

export interface RecordedLostRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  /** The Basic credentials sent, decoded; null when there were none (or another scheme). */
  basic: { user: string; password: string } | null;
  body: string;
  /** The HTTP status the stand-in answered with. */
  status: number;
}

export interface LostStandIn {
  /** The LoST URL to configure a client with (`http://127.0.0.1:<port>/lost`). */
  url: string;
  requests: RecordedLostRequest[];
  /** The LoST document every accepted request gets from now on. */
  answerWith(xml: string): void;
  close(): Promise<void>;
}

/** Starts the stand-in: it accepts exactly `user`/`password` and answers `answer` to them. */
export function startLostStandIn(options: {
  user: string;
  password: string;
  answer: string;
}): Promise<LostStandIn> {
  let answer = options.answer;
  const requests: RecordedLostRequest[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const record: RecordedLostRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      contentType: req.headers["content-type"],
      basic: basicCredentials(req.headers.authorization),
      body: body ?? "",
      status: 0,
    };
    requests.push(record);
    const refuse = (status: number, code: string, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { "content-type": "application/problem+json", ...headers });
      res.end(JSON.stringify({ type: `https://sos.example.org/errors/${code}`, title: code, status, code }));
    };
    if (record.path !== "/lost") return refuse(404, "not_found");
    if (record.method !== "POST") return refuse(405, "method_not_allowed", { allow: "POST" });
    if (record.basic?.user !== options.user || record.basic.password !== options.password) {
      return refuse(401, "missing_credentials", { "www-authenticate": 'Basic realm="lost"' });
    }
    if (body === null) return refuse(413, "payload_too_large");
    if (!isLostXml(record.contentType)) return refuse(415, "unsupported_media_type");
    record.status = 200;
    res.writeHead(200, { "content-type": "application/lost+xml; charset=utf-8" });
    res.end(answer);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/lost`,
        requests,
        answerWith: (xml) => {
          answer = xml;
        },
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The body as text, or null past the size bound (read to the end either way, so the answer is seen). */
async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  return size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString("utf8");
}

function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon === -1 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** `application/lost+xml`, with `charset=utf-8` as its only allowed parameter (docs/contract.md, section 9). */
export function isLostXml(contentType: string | undefined): boolean {
  const [type, ...parameters] = (contentType ?? "").split(";").map((part) => part.trim().toLowerCase());
  return (
    type === "application/lost+xml" &&
    parameters.every((parameter) => parameter.replace(/\s*=\s*/, "=").replace(/"/g, "") === "charset=utf-8")
  );
}

/** The fields of the stand-in's findServiceResponse (docs/contract.md, section 9's mapping). */
export interface MappingAnswer {
  displayName: string;
  /** In the order they appear; RFC 5222 allows several. */
  uris: string[];
  service?: string;
  serviceNumber?: string;
  source?: string;
  sourceId?: string;
}

/** A findServiceResponse of one mapping (docs/contract.md, section 9's shape); test data, escaped all the same. */
export function findServiceResponse(mapping: MappingAnswer): string {
  const source = escapeXml(mapping.source ?? "lost-standin.example.org");
  return `<?xml version="1.0" encoding="UTF-8"?>
<findServiceResponse xmlns="urn:ietf:params:xml:ns:lost1">
  <mapping expires="2030-01-01T00:00:00Z" lastUpdated="2026-11-01T00:00:00Z"
      source="${source}" sourceId="${escapeXml(mapping.sourceId ?? "standin-psap-1")}">
    <displayName xml:lang="en">${escapeXml(mapping.displayName)}</displayName>
    <service>${escapeXml(mapping.service ?? "urn:service:sos")}</service>
${mapping.uris.map((uri) => `    <uri>${escapeXml(uri)}</uri>\n`).join("")}    <serviceNumber>${escapeXml(mapping.serviceNumber ?? "911")}</serviceNumber>
  </mapping>
  <path>
    <via source="${source}"/>
  </path>
</findServiceResponse>
`;
}

/** An errors response holding one LoST error with its message. */
export function errorsResponse(error: string, message: string, source = "lost-standin.example.org"): string {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(error)) throw new Error(`not a LoST error name: ${error}`);
  return `<?xml version="1.0" encoding="UTF-8"?>
<errors xmlns="urn:ietf:params:xml:ns:lost1" source="${escapeXml(source)}">
  <${error} message="${escapeXml(message)}" xml:lang="en"/>
</errors>
`;
}

function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}
