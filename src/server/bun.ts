import type { Relay } from './relay.js';
import type { RelayPeer, RelaySocket } from './socket-session.js';

/** The data the Bun adapter keeps on each socket. */
interface SocketData {
  open: (peer: RelayPeer) => RelaySocket;
  session?: RelaySocket | undefined;
}

/** The part of Bun's `ServerWebSocket` the adapter uses. */
export interface BunSocket {
  data: SocketData;
  send(data: string | Uint8Array): unknown;
  close(code?: number, reason?: string): void;
  getBufferedAmount?(): number;
}

/** The part of Bun's `Server` the adapter uses. */
export interface BunServer {
  upgrade(request: Request, options: { data: SocketData }): boolean;
}

/**
 * The `fetch` and `websocket` handlers of `Bun.serve`: spread them into its options.
 *
 * @example
 * ```ts
 * const handler: BunRelayHandler = createBunHandler(relay);
 * Bun.serve({ port: 3000, ...handler });
 * ```
 */
export interface BunRelayHandler {
  fetch(request: Request, server: BunServer): Promise<Response | undefined>;
  websocket: {
    open(ws: BunSocket): void;
    message(ws: BunSocket, message: string | Uint8Array | ArrayBuffer): void;
    close(ws: BunSocket): void;
  };
}

/**
 * Adapts a relay to `Bun.serve`: requests go to the relay, and an upgrade on `<basePath>/ws` is
 * decided by the relay, then completed with the runtime's own `server.upgrade()`.
 *
 * @example
 * ```ts
 * import { createRelay, createBunHandler } from 'graphcloud/server';
 * Bun.serve({ port: 3000, ...createBunHandler(createRelay(options)) });
 * ```
 */
export function createBunHandler(relay: Relay): BunRelayHandler {
  return {
    async fetch(request, server) {
      if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') return relay(request);
      const decision = await relay.upgrade(request);
      if (decision.response) return decision.response;
      // Bun answers the upgrade itself once it succeeds.
      if (server.upgrade(request, { data: { open: decision.open } })) return undefined;
      return new Response('WebSocket upgrade failed', { status: 400 });
    },
    websocket: {
      open(ws) {
        ws.data.session = ws.data.open({ send: (data) => void ws.send(data), close: (code, reason) => ws.close(code, reason), bufferedAmount: () => ws.getBufferedAmount?.() ?? 0 });
      },
      message(ws, message) {
        ws.data.session?.receive(typeof message === 'string' ? message : new Uint8Array(message));
      },
      close(ws) {
        ws.data.session?.closed();
      },
    },
  };
}
