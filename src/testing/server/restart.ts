import type { IncomingMessage, Server } from 'node:http';
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import { sleep } from './sleep.js';

interface Connections {
  /** Open connections, by the restart generation they were accepted in. */
  open: Map<Socket, number>;
  generation: number;
}

const tracked = new WeakMap<Server, Connections>();

/**
 * Records the connections of a server, so that a restart can tell the ones opened before it.
 *
 * @example
 * const server = createServer(handler);
 * trackConnections(server);
 */
export function trackConnections(server: Server): void {
  const connections: Connections = { open: new Map(), generation: 0 };
  tracked.set(server, connections);
  server.on('connection', (socket: Socket) => {
    connections.open.set(socket, connections.generation);
    socket.once('close', () => connections.open.delete(socket));
  });
}

/**
 * True when the request came on a connection opened before the server's last restart: the
 * process that accepted it is gone, so the request must not be processed.
 *
 * @example
 * if (isStale(server, req)) sendRefusal(res, { status: 503, retryAfter: 1, body }, { connection: 'close' });
 */
export function isStale(server: Server, req: IncomingMessage): boolean {
  const connections = tracked.get(server);
  const generation = connections?.open.get(req.socket);
  return connections !== undefined && generation !== undefined && generation < connections.generation;
}

/**
 * Restarts a listening server in place: it stops listening (new connections are refused), waits
 * `downMs`, then listens again on the same port. Connections already open are not cut: a request
 * in flight is answered, and later requests on them are refused by the caller (`isStale`), each
 * with `Connection: close`. An idle connection is never closed under a client that may be sending
 * on it, so no request is lost half-way. Resolves once listening again (or at once when `signal`
 * has aborted, the simulator closing).
 *
 * @example
 * await restartServer(server, 200, signal);
 */
export async function restartServer(server: Server, downMs: number, signal: AbortSignal): Promise<void> {
  const address = server.address() as AddressInfo | null;
  if (!address || signal.aborted) return;
  const connections = tracked.get(server);
  if (connections) connections.generation += 1;
  // http.Server#close() also closes idle keep-alive connections, and a client may be writing a
  // request on one at that very moment: that request would be lost half-sent, which no real
  // graceful restart does. Stop listening only.
  NetServer.prototype.close.call(server);
  try {
    await sleep(downMs, signal);
  } catch {
    return;
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.address, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
