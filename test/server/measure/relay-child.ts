// The relay in a process of its own, so its memory can be read without the browsers' sockets.
// Started by measure-sockets.ts; answers { port } once listening, then { memory } on request.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHandler, createRelay } from '../../../src/server/index.js';

const [cloudUrl, apiKey, secret] = process.argv.slice(2) as [string, string, string];
const relay = createRelay({ cloudUrl, apiKey, secret, basePath: '/api/graphcloud', dangerouslyAllowAnyone: true });
const node = createNodeHandler(relay);
const server = createServer(node.listener);
server.on('upgrade', (req, socket, head) => node.upgrade(req, socket, head) || socket.destroy());
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));

process.on('message', (message: { type: string }) => {
  if (message.type === 'memory') {
    for (let i = 0; i < 4; i++) (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    process.send?.({ memory: { rss, heapUsed, external, arrayBuffers }, stats: relay.stats() });
  }
  if (message.type === 'exit') void relay.close().then(() => process.exit(0));
});
