// The session's hibernatable sockets: tagged by role, with an identity attachment that survives eviction.
// Nothing here throws: a socket can vanish at any moment, and its close handler does the bookkeeping.
import type { Role, ServerMessage } from "../../sdk/src/protocol.ts";
import { CLOSE_SESSION_OVER } from "../../sdk/src/protocol.ts";
import type { SessionCaller } from "./caller.ts";

export interface SocketAttachment extends SessionCaller {
  /** Names the socket in the audit trail (socket_connected / socket_disconnected). */
  socket_id: string;
  connected_at: number;
}

export class SocketHub {
  readonly #ctx: DurableObjectState;

  constructor(ctx: DurableObjectState) {
    this.#ctx = ctx;
  }

  /** Accepts the server end of a new socket so that it survives hibernation. */
  accept(server: WebSocket, attachment: SocketAttachment): void {
    this.#ctx.acceptWebSocket(server, [attachment.role]);
    server.serializeAttachment(attachment);
  }

  /** Open sockets of a role (or all), leaving out those already closing. */
  open(role?: Role): WebSocket[] {
    const sockets = role ? this.#ctx.getWebSockets(role) : this.#ctx.getWebSockets();
    return sockets.filter((ws) => ws.readyState === WebSocket.OPEN);
  }

  isConnected(role: Role): boolean {
    return this.open(role).length > 0;
  }

  /** Ids of every socket the runtime still holds. */
  liveIds(): Set<string> {
    const ids = new Set<string>();
    for (const ws of this.#ctx.getWebSockets()) {
      const id = SocketHub.attachmentOf(ws)?.socket_id;
      if (id) ids.add(id);
    }
    return ids;
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

  static attachmentOf(ws: WebSocket): SocketAttachment | null {
    try {
      const value = ws.deserializeAttachment() as Partial<SocketAttachment> | null;
      if (!value || (value.role !== "patient" && value.role !== "counselor")) return null;
      return typeof value.socket_id === "string" ? (value as SocketAttachment) : null;
    } catch {
      return null;
    }
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
