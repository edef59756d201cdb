// An HTTP proxy on 127.0.0.1 that passes each request to one target unchanged and keeps every answer, so a
// test sees exactly what a client (Kamailio) was told. Closed by the caller.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { freePort } from "./processes.ts";

export interface RecordedAnswer {
  path: string;
  status: number;
  contentType: string | null;
  body: string;
}

export interface RecordingProxy {
  url: string;
  answers: RecordedAnswer[];
  close(): Promise<void>;
}

/** Headers that belong to one connection (RFC 9110 section 7.6.1), never passed on. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
]);

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const answers: RecordedAnswer[] = [];
  const server: Server = createServer(async (req, res) => {
    try {
      const headers = Object.entries(req.headers).flatMap(([name, value]) =>
        HOP_BY_HOP.has(name) || value === undefined ? [] : [[name, String(value)] as [string, string]],
      );
      const body = await bodyOf(req);
      const answer = await fetch(`${target}${req.url ?? "/"}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" || !body ? undefined : new Uint8Array(body),
      });
      const text = await answer.text();
      answers.push({
        path: req.url ?? "/",
        status: answer.status,
        contentType: answer.headers.get("content-type"),
        body: text,
      });
      const passed: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name) && name !== "content-encoding") passed[name] = value;
      });
      res.writeHead(answer.status, passed).end(text);
    } catch (error) {
      res.writeHead(502, { "content-type": "text/plain" }).end(`proxy: ${String(error)}`);
    }
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
