// The relay and a hostile upstream in a process of their own (started by relay-attacks.ts), so
// the relay's memory is read apart from the attackers'. Answers { port } once listening, then:
// { type: 'memory' } -> { memory, stats, connections } after a forced GC;
// { type: 'flood', kind: 'status' | 'preview', count, bytes } -> { flooded } once sent upstream;
// { type: 'exit' }.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { createNodeHandler, createRelay } from '../src/server/index.js';

const [secret, bodyTimeoutMs] = process.argv.slice(2) as [string, string];
const listen = (server: ReturnType<typeof createServer>) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

// The hostile upstream: answers every HTTP request with {}, and floods its sockets on request.
const upstream = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
const upstreamSockets = new WebSocketServer({ server: upstream, path: '/ws' });
const relaySockets = new Set<WebSocket>();
upstreamSockets.on('connection', (ws) => {
  relaySockets.add(ws);
  ws.on('close', () => relaySockets.delete(ws));
});
const upstreamPort = await listen(upstream);

const relay = createRelay({ cloudUrl: `http://127.0.0.1:${upstreamPort}`, apiKey: 'sk-bench-key-0123456789', secret, basePath: '/api/graphcloud', dangerouslyAllowAnyone: true, bodyTimeoutMs: Number(bodyTimeoutMs) });
const node = createNodeHandler(relay);
const server = createServer(node.listener);
server.on('upgrade', (req, socket, head) => node.upgrade(req, socket, head) || socket.destroy());
process.send?.({ port: await listen(server) });

function preview(promptId: string, bytes: number): Uint8Array {
  const meta = new TextEncoder().encode(JSON.stringify({ prompt_id: promptId, node_id: '3', image_type: 'image/png' }));
  const frame = new Uint8Array(8 + meta.length + bytes);
  new DataView(frame.buffer).setUint32(0, 4);
  new DataView(frame.buffer).setUint32(4, meta.length);
  frame.set(meta, 8);
  return frame;
}

async function flood(kind: 'status' | 'preview', count: number, bytes: number): Promise<void> {
  const padding = 'x'.repeat(bytes);
  for (let i = 0; i < count; i++) {
    for (const ws of relaySockets) {
      ws.send(kind === 'status' ? JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: i } }, padding } }) : preview(`nobody-${i}`, bytes));
      // Let the relay read: the flood is bounded by what it takes in, not by this process's memory.
      if (ws.bufferedAmount > 4 * 1024 * 1024) await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
  // Wait until the relay has read everything sent.
  while ([...relaySockets].some((ws) => ws.bufferedAmount > 0)) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
}

process.on('message', (message: { type: string; kind?: 'status' | 'preview'; count?: number; bytes?: number }) => {
  if (message.type === 'memory') {
    for (let i = 0; i < 4; i++) (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    server.getConnections((_error, connections) => process.send?.({ memory: { rss, heapUsed, external, arrayBuffers }, stats: relay.stats(), connections }));
  }
  if (message.type === 'flood') void flood(message.kind ?? 'status', message.count ?? 0, message.bytes ?? 0).then(() => process.send?.({ flooded: true }));
  if (message.type === 'exit') {
    void relay.close().then(() => {
      server.closeAllConnections();
      process.exit(0);
    });
  }
});
