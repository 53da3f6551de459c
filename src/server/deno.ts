import type { Relay } from './relay.js';
import type { RelaySocket } from './socket-relay.js';

/** The part of `Deno.upgradeWebSocket` the adapter uses. */
interface DenoUpgrade {
  upgradeWebSocket(request: Request): { socket: WebSocket; response: Response };
}

/**
 * Adapts a relay to `Deno.serve`: requests go to the relay, and an upgrade on `<basePath>/ws` is
 * decided by the relay, then completed with the runtime's own `Deno.upgradeWebSocket`.
 *
 * @example
 * ```ts
 * import { createRelay, createDenoHandler } from 'npm:graphcloud/server';
 * Deno.serve(createDenoHandler(createRelay(options)));
 * ```
 */
export function createDenoHandler(relay: Relay): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') return relay(request);
    const deno = (globalThis as { Deno?: DenoUpgrade }).Deno;
    if (!deno) throw new TypeError('createDenoHandler() runs on Deno only: use createNodeHandler() or createBunHandler() elsewhere');
    const decision = await relay.upgrade(request);
    if (decision.response) return decision.response;
    const { socket, response } = deno.upgradeWebSocket(request);
    socket.binaryType = 'arraybuffer';
    let session: RelaySocket | undefined;
    socket.onopen = () => {
      // Frames come from the upstream socket's ArrayBuffers, never a SharedArrayBuffer.
      session = decision.open({ send: (data) => socket.send(data as string | Uint8Array<ArrayBuffer>), close: (code, reason) => socket.close(code, reason), bufferedAmount: () => socket.bufferedAmount });
    };
    socket.onmessage = (event: MessageEvent) => session?.receive(typeof event.data === 'string' ? event.data : new Uint8Array(event.data as ArrayBuffer));
    socket.onclose = () => session?.closed();
    socket.onerror = () => undefined;
    return response;
  };
}
