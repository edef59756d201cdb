// The session's hibernatable sockets: tagged by role, with an identity attachment that survives
// eviction; their limits (per-role cap, upgrade rate), their handshake, their life (heartbeats, close,
// error) and their bookkeeping in the audit trail. Nothing here throws: a socket can vanish at any
// moment, and every handler the runtime calls has its own try/catch (partyserver's rule).

import { SOCKET_LIMITS } from "../../lib/config.ts";
import {
  type AuditData,
  CLOSE_SESSION_OVER,
  HEARTBEAT_PING,
  HEARTBEAT_PONG,
  type Role,
  type ServerMessage,
} from "../../sdk/src/protocol.ts";
import { errorSummary } from "../error-name.ts";
import { type Problem, problem } from "../problem.ts";
import type { AuditLog } from "./audit-log.ts";
import type { SessionCaller } from "./caller.ts";
import { retryAfterSeconds } from "./rate-window.ts";

export interface SocketAttachment extends SessionCaller {
  /** Names the socket in the audit trail (socket_connected / socket_disconnected). */
  socket_id: string;
  connected_at: number;
}

export class SocketHub {
  readonly #ctx: DurableObjectState;
  readonly #audit: AuditLog;

  constructor(ctx: DurableObjectState, audit: AuditLog) {
    this.#ctx = ctx;
    this.#audit = audit;
    // Answered by the runtime without waking the object: heartbeats cost nothing while hibernated.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(HEARTBEAT_PING, HEARTBEAT_PONG));
  }

  /**
   * Why `request` cannot open a socket of `role` (the probe without `Upgrade` answers the same), or null,
   * in this order: the limits (429), no upgrade (426), a handshake the runtime would refuse after we
   * answer (400: refused first, and nothing recorded).
   */
  refusal(role: Role, request: Request, now: number): Problem | null {
    const limited = this.#overLimit(role, now);
    if (limited) return limited;
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return problem("upgrade_required", "Open this URL as a WebSocket.");
    }
    if (!isWebSocketHandshake(request)) {
      return problem("invalid_request", "A WebSocket handshake needs a Sec-WebSocket-Key.");
    }
    return null;
  }

  /** At most 10 open, 30 opened a minute. */
  #overLimit(role: Role, now: number): Problem | null {
    if (this.open(role).length >= SOCKET_LIMITS.maxPerRole) {
      return problem(
        "rate_limited",
        `At most ${SOCKET_LIMITS.maxPerRole} ${role} sockets may be open at once.`,
        {
          retryAfter: SOCKET_LIMITS.fullRetryAfterSeconds,
        },
      );
    }
    const window = SOCKET_LIMITS.upgradeWindowMs;
    const oldest = this.#audit.nthLatestConnect(role, SOCKET_LIMITS.upgradesPerWindow);
    if (oldest !== null && oldest > now - window) {
      return problem("rate_limited", "Too many sockets opened for this session; retry later.", {
        retryAfter: retryAfterSeconds(oldest + window - now),
      });
    }
    return null;
  }

  /** Accepts a new socket so that it survives hibernation, and records it; returns the client's end. */
  connect(caller: SessionCaller, now: number): { client: WebSocket; server: WebSocket } {
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    const attachment: SocketAttachment = { ...caller, socket_id: crypto.randomUUID(), connected_at: now };
    this.#ctx.acceptWebSocket(server, [caller.role]);
    server.serializeAttachment(attachment);
    this.#audit.socketConnected(attachment.socket_id, caller.role, now);
    return { client, server };
  }

  /** A frame from a client: the socket carries heartbeats only (exact `ping` frames never wake the object). */
  received(ws: WebSocket, message: string | ArrayBuffer): void {
    try {
      // Exact `ping` frames are answered by the auto-response; this catches padded ones.
      if (typeof message === "string" && message.trim() === HEARTBEAT_PING) {
        this.send(ws, HEARTBEAT_PONG);
        return;
      }
      this.send(ws, {
        type: "error",
        code: "unsupported_message",
        message:
          "This socket only carries heartbeats (send the text frame ping); use the HTTP API for actions.",
      });
    } catch (error) {
      logFailure("webSocketMessage", error);
    }
  }

  /** The client closed: recorded (while the session is stored), and its close frame answered. */
  closed(ws: WebSocket, code: number, reason: string, sessionStored: boolean): void {
    try {
      if (sessionStored) this.#disconnected(ws, Date.now(), { code });
    } catch (error) {
      logFailure("webSocketClose", error);
    } finally {
      // Answer the client's close frame so it sees a clean close, not 1006 (never a reserved code).
      closeQuietly(ws, code, reason);
    }
  }

  /** The socket failed: recorded as gone (while the session is stored). */
  failed(ws: WebSocket, sessionStored: boolean): void {
    try {
      if (sessionStored) this.#disconnected(ws, Date.now(), { error: true });
    } catch (error) {
      logFailure("webSocketError", error);
    }
  }

  /** Records a socket as gone (once, however many close and error events it brings). */
  #disconnected(ws: WebSocket, now: number, data: AuditData): void {
    const attachment = attachmentOf(ws);
    if (attachment) this.#audit.socketDisconnected(attachment.socket_id, now, data);
  }

  /** A socket the trail shows as connected that the runtime no longer holds (a crash) is recorded as gone. */
  reconcile(now: number): void {
    const live = new Set(this.#ctx.getWebSockets().map((ws) => attachmentOf(ws)?.socket_id));
    for (const socketId of this.#audit.openSocketIds()) {
      if (!live.has(socketId)) this.#audit.socketDisconnected(socketId, now);
    }
  }

  /** Open sockets of a role (or all), leaving out those already closing. */
  open(role?: Role): WebSocket[] {
    const sockets = role ? this.#ctx.getWebSockets(role) : this.#ctx.getWebSockets();
    return sockets.filter((ws) => ws.readyState === WebSocket.OPEN);
  }

  isConnected(role: Role): boolean {
    return this.open(role).length > 0;
  }

  connected(): Record<Role, boolean> {
    return { patient: this.isConnected("patient"), counselor: this.isConnected("counselor") };
  }

  send(ws: WebSocket, message: ServerMessage | string): void {
    try {
      ws.send(typeof message === "string" ? message : JSON.stringify(message));
    } catch {
      // The socket closed under us.
    }
  }

  broadcast(role: Role, message: ServerMessage): number {
    const sockets = this.open(role);
    const text = JSON.stringify(message);
    for (const ws of sockets) this.send(ws, text);
    return sockets.length;
  }

  /** Each role, in this order, its own copy of a message (none where `messageFor` has none for it). */
  broadcastEach(roles: readonly Role[], messageFor: (role: Role) => ServerMessage | null): void {
    for (const role of roles) {
      const message = messageFor(role);
      if (message) this.broadcast(role, message);
    }
  }

  /** Sends a last message to every socket and closes it with 4000, so no SDK reconnects. */
  closeAll(message: ServerMessage, reason: string): void {
    const text = JSON.stringify(message);
    for (const ws of this.#ctx.getWebSockets()) {
      this.send(ws, text);
      closeQuietly(ws, CLOSE_SESSION_OVER, reason);
    }
  }
}

/** A real WebSocket handshake: without a valid key the runtime would refuse it after we accept it. */
function isWebSocketHandshake(request: Request): boolean {
  return (
    request.headers.get("Upgrade")?.toLowerCase() === "websocket" &&
    /^[A-Za-z0-9+/]{22}==$/.test(request.headers.get("Sec-WebSocket-Key")?.trim() ?? "")
  );
}

function attachmentOf(ws: WebSocket): SocketAttachment | null {
  try {
    const value = ws.deserializeAttachment() as Partial<SocketAttachment> | null;
    return typeof value?.socket_id === "string" ? (value as SocketAttachment) : null;
  } catch {
    return null;
  }
}

/**
 * Closes `ws` without ever throwing. A reserved code (1005, 1006, 1015) means no close frame came from
 * the peer: there is nobody to answer, and writing to the dead transport would fail later, uncaught
 * (partyserver's `closeQuietly`).
 */
export function closeQuietly(ws: WebSocket, code: number, reason: string): void {
  if (code === 1005 || code === 1006 || code === 1015) return;
  try {
    ws.close(code, reason);
  } catch {
    // Already closed, or a reason over 123 bytes: nothing more to do.
  }
}

/** The kind of failure only: a message here never holds a coordinate or the address. */
function logFailure(where: string, error: unknown): void {
  console.error(`session object ${where} failed: ${errorSummary(error)}`);
}
