// The session's hibernatable sockets: tagged by role, with an identity attachment that survives eviction.
import type { Role, ServerMessage } from "../../sdk/src/protocol.ts";
import { CLOSE_SESSION_OVER } from "../../sdk/src/protocol.ts";

export interface SocketAttachment {
  role: Role;
  /** The token's subject (patient_id or counselor_id) and id, for the audit trail. */
  sub: string;
  jti: string;
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

  /** Open sockets of a role, leaving out one that is closing now. */
  open(role?: Role, except?: WebSocket): WebSocket[] {
    const sockets = role ? this.#ctx.getWebSockets(role) : this.#ctx.getWebSockets();
    return sockets.filter((ws) => ws !== except && ws.readyState === WebSocket.OPEN);
  }

  isConnected(role: Role, except?: WebSocket): boolean {
    return this.open(role, except).length > 0;
  }

  send(ws: WebSocket, message: ServerMessage): void {
    try {
      ws.send(JSON.stringify(message));
    } catch {
      // The socket closed under us: its close handler does the bookkeeping.
    }
  }

  broadcast(role: Role, message: ServerMessage): number {
    const sockets = this.open(role);
    for (const ws of sockets) this.send(ws, message);
    return sockets.length;
  }

  /** Sends a last message to every socket and closes it with 4000, so no SDK reconnects. */
  closeAll(message: ServerMessage, reason: string): void {
    for (const ws of this.#ctx.getWebSockets()) {
      this.send(ws, message);
      try {
        ws.close(CLOSE_SESSION_OVER, reason);
      } catch {
        // Already closed.
      }
    }
  }

  static attachmentOf(ws: WebSocket): SocketAttachment | null {
    const value = ws.deserializeAttachment() as SocketAttachment | null;
    return value && (value.role === "patient" || value.role === "counselor") ? value : null;
  }
}
