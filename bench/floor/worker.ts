// Bench-only worker entry (never deployed; src/ holds no bench code): the real worker unchanged, plus
// what the bench measures beside it on the same `wrangler dev`, under /__floor/:
// - the SOS loop's floor: a trivial Durable Object that answers 2 HTTP round trips and pushes 2
//   WebSocket messages (trigger -> a message to the patient socket; location -> a message to both);
//   with `?durable=1`, each request also makes one storage write right after its pushes, as the
//   session object does (its messages go first; the output gate holds the HTTP answer until the write
//   is confirmed, and the commit runs on the same thread as everything else);
// - a KV read timer: reads given PSAP_INDEX keys, so the bench can time real local KV reads.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../src/env.ts";
import worker from "../../src/index.ts";

// Every Durable Object class the real worker exports (wrangler refuses to start without each one the
// config binds): all of them, so an object added to the worker needs no change here.
export * from "../../src/index.ts";

type FloorEnv = Env & { FLOOR: DurableObjectNamespace<FloorObject> };

const LOCATION_REQUEST = JSON.stringify({ type: "location_request" });
const RESULTS = JSON.stringify({ type: "psap_results" });
const STATE_KEY = "state";

/** The trivial object: hibernatable sockets tagged by role, two methods that push one message each. */
export class FloorObject extends DurableObject<FloorEnv> {
  override async fetch(request: Request): Promise<Response> {
    const role = new URL(request.url).searchParams.get("role") === "counselor" ? "counselor" : "patient";
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1], [role]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  trigger(durable = false): { state: string } {
    for (const ws of this.ctx.getWebSockets("patient")) ws.send(LOCATION_REQUEST);
    if (durable) this.ctx.storage.kv.put(STATE_KEY, { state: "sos", at: Date.now() });
    return { state: "sos" };
  }

  location(body: unknown, durable = false): { received: boolean } {
    for (const ws of this.ctx.getWebSockets()) ws.send(RESULTS);
    // The write's size, not the fix: bench points are synthetic, but no coordinate is stored by habit.
    if (durable)
      this.ctx.storage.kv.put(STATE_KEY, {
        state: "located",
        at: Date.now(),
        bytes: JSON.stringify(body).length,
      });
    return { received: typeof body === "object" && body !== null };
  }

  /** What the durable variant has written (the harness's test reads it). */
  written(): unknown {
    return this.ctx.storage.kv.get(STATE_KEY) ?? null;
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    ws.close(code === 1005 || code === 1006 ? 1000 : code, "bye");
  }
}

const FLOOR_SESSION = /^\/__floor\/sessions\/([A-Za-z0-9-]{1,64})\/(trigger|location)$/;
const FLOOR_WRITTEN = /^\/__floor\/sessions\/([A-Za-z0-9-]{1,64})\/written$/;

async function floor(request: Request, url: URL, env: FloorEnv): Promise<Response> {
  if (url.pathname === "/__floor/ws") {
    const id = url.searchParams.get("id") ?? "";
    if (!/^[A-Za-z0-9-]{1,64}$/.test(id)) return new Response("bad id", { status: 400 });
    return env.FLOOR.get(env.FLOOR.idFromName(id)).fetch(request);
  }
  if (url.pathname === "/__floor/kv" && request.method === "POST") {
    // Reads each key in order, as a lookup does (pointer, then bucket); answers the in-worker times
    // too, though the clock here only has millisecond steps (the client times the call).
    const body = (await request.json()) as { reads?: { key: string; type: "text" | "arrayBuffer" }[] };
    const ms: number[] = [];
    let bytes = 0;
    for (const read of body.reads ?? []) {
      const t = Date.now();
      const value =
        read.type === "arrayBuffer"
          ? await env.PSAP_INDEX.get(read.key, "arrayBuffer")
          : await env.PSAP_INDEX.get(read.key, "text");
      ms.push(Date.now() - t);
      if (typeof value === "string") bytes += value.length;
      else if (value) bytes += value.byteLength;
    }
    return Response.json({ ms, bytes });
  }
  const m = FLOOR_SESSION.exec(url.pathname);
  if (m && request.method === "POST") {
    const stub = env.FLOOR.get(env.FLOOR.idFromName(m[1] ?? ""));
    const body: unknown = await request.json();
    const durable = url.searchParams.get("durable") === "1";
    if (m[2] === "trigger") return Response.json(await stub.trigger(durable), { status: 202 });
    return Response.json(await stub.location(body, durable));
  }
  const w = FLOOR_WRITTEN.exec(url.pathname);
  if (w && request.method === "GET") {
    return Response.json(await env.FLOOR.get(env.FLOOR.idFromName(w[1] ?? "")).written());
  }
  return new Response("not found", { status: 404 });
}

export default {
  fetch(request: Request, env: FloorEnv, ctx: ExecutionContext): Response | Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/__floor/")) return floor(request, url, env);
    return worker.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<FloorEnv>;
