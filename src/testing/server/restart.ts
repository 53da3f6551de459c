import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { sleep } from './sleep.js';

interface Connections {
  /** Open connections, by the restart generation they were accepted in. */
  open: Map<Socket, number>;
  generation: number;
  /** Restarts under way (a restart may begin while another is down). */
  down: number;
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
  const connections: Connections = { open: new Map(), generation: 0, down: 0 };
  tracked.set(server, connections);
  server.on('connection', (socket: Socket) => {
    connections.open.set(socket, connections.generation);
    socket.once('close', () => connections.open.delete(socket));
  });
}

/**
 * True when a request must be refused unprocessed because of a restart: the server is down, or
 * the request came on a connection opened before the last restart (its process is gone).
 *
 * @example
 * if (refusedByRestart(server, req)) sendRefusal(res, { status: 503, retryAfter: 1, body }, { connection: 'close' });
 */
export function refusedByRestart(server: Server, req: IncomingMessage): boolean {
  const connections = tracked.get(server);
  if (!connections) return false;
  if (connections.down > 0) return true;
  const generation = connections.open.get(req.socket);
  return generation !== undefined && generation < connections.generation;
}

/**
 * True while a restart keeps the server down (WebSocket upgrades are refused then).
 *
 * @example
 * if (isDown(server)) refuseUpgrade(socket, { status: 503, retryAfter: 1, body });
 */
export function isDown(server: Server): boolean {
  return (tracked.get(server)?.down ?? 0) > 0;
}

/**
 * Restarts a server as its clients see it through the load balancer in front of a deployment:
 * for `downMs` every request is answered `503` unprocessed and every upgrade refused; afterwards
 * the connections opened before the restart still get `503` (their process is gone), each with
 * `Connection: close`, and new ones are served. Requests in flight when it begins are answered.
 * The server keeps listening: closing a listening socket resets the connections waiting in its
 * backlog, whose requests may already be written, and a client could not tell whether such a
 * request was processed. Resolves once the server is up again (or when `signal` aborts).
 *
 * @example
 * await restartServer(server, 200, signal);
 */
export async function restartServer(server: Server, downMs: number, signal: AbortSignal): Promise<void> {
  const connections = tracked.get(server);
  if (!connections || signal.aborted) return;
  connections.generation += 1;
  connections.down += 1;
  try {
    await sleep(downMs, signal);
  } catch {
    // The simulator closed.
  } finally {
    connections.down -= 1;
  }
}
