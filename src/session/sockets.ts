// The session's hibernatable sockets: tagged by role, with an identity attachment that survives
// eviction; their limits (per-role cap, upgrade rate) and their bookkeeping in the audit trail.
// Nothing here throws: a socket can vanish at any moment.
import type { AuditData, Role, ServerMessage } from "../../sdk/src/protocol.ts";
import { CLOSE_SESSION_OVER } from "../../sdk/src/protocol.ts";
import { SOCKET_LIMITS } from "../config.ts";
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
  }

  /** Why a new socket of `role` is refused (the probe answers the same), or null: at most 10 open, 30 a minute. */
  refusal(role: Role, now: number): Problem | null {
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

  /** Records a socket as gone (once, however many close and error events it brings). */
  disconnected(ws: WebSocket, now: number, data: AuditData): void {
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
export function isWebSocketHandshake(request: Request): boolean {
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
