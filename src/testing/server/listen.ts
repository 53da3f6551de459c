import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts listening on 127.0.0.1 and resolves the base URL (no trailing slash).
 *
 * @example
 * const base = await listen(server, 0); // "http://127.0.0.1:54321"
 */
export function listen(server: Server, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // A queue of 4,096 pending connections, not Node's 511: a test that starts 1,000 runs at once
    // opens about 1,000 connections in a burst (docs/simulator.md).
    server.listen(port, '127.0.0.1', 4096, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${address.port}`);
    });
  });
}

/**
 * Closes a server and every connection it still holds.
 *
 * @example
 * await closeServer(server);
 */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
