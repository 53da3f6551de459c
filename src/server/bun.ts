import type { Relay } from './relay.js';
import type { RelayPeer, RelaySocket } from './socket-relay.js';

/**
 * The data the Bun adapter keeps on each socket (`ws.data`): set by the adapter on upgrade, never
 * by the application.
 *
 * @example
 * ```ts
 * const session = (ws as BunSocket).data.session; // undefined until the socket opened
 * ```
 */
export interface BunSocketData {
  /** The relay's `open` of the accepted upgrade, called when Bun opens the socket. */
  open: (peer: RelayPeer) => RelaySocket;
  /** The relay's side of the socket, once it opened. */
  session?: RelaySocket | undefined;
}

/**
 * The part of Bun's `ServerWebSocket` the adapter uses.
 *
 * @example
 * ```ts
 * const socket: BunSocket = ws; // in Bun.serve's websocket handlers
 * ```
 */
export interface BunSocket {
  /** The adapter's data, set on upgrade. */
  data: BunSocketData;
  /** Sends a message to the browser. */
  send(data: string | Uint8Array): unknown;
  /** Closes the socket. */
  close(code?: number, reason?: string): void;
  /** Bytes queued and not yet sent, when Bun tells. */
  getBufferedAmount?(): number;
}

/**
 * The part of Bun's `Server` the adapter uses.
 *
 * @example
 * ```ts
 * const server: BunServer = Bun.serve({ port: 3000, ...createBunHandler(relay) });
 * ```
 */
export interface BunServer {
  /** Completes a WebSocket upgrade; false when the request cannot be upgraded. */
  upgrade(
    request: Request,
    options: {
      /** The data kept on the socket. */
      data: BunSocketData;
    },
  ): boolean;
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
  /** Answers a request through the relay, or completes a socket upgrade the relay accepted (then `undefined`). */
  fetch(request: Request, server: BunServer): Promise<Response | undefined>;
  /** Bun's socket handlers, wired to the relay. */
  websocket: {
    /** A browser socket opened: the relay starts its session. */
    open(ws: BunSocket): void;
    /** A browser sent a message: handed to its session. */
    message(ws: BunSocket, message: string | Uint8Array | ArrayBuffer): void;
    /** A browser socket closed: its session ends. */
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
