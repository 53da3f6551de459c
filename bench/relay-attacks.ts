/**
 * What attacks cost the relay (`graphcloud/server`): sockets held and memory, read in the relay's
 * own process (bench/_relay-attack-child.ts, with a hostile upstream) after a forced GC.
 *
 * - slow bodies: 300 connections each sending a submission body at one byte per 100 ms, read
 *   while they drip and once `bodyTimeoutMs` (2 s here; 30 s by default) has passed;
 * - 400 browser sockets, each following one job;
 * - a browser socket that never reads while the upstream sends 64 MiB of `status` messages (which
 *   every browser gets): the relay must close it past `socket.maxBufferedBytes` (16 MiB);
 * - a flood of 20,000 previews (16 KiB each, 320 MiB) for jobs nobody follows: held within
 *   `socket.hold.maxPreviewBytes` (2 MiB).
 *
 *   npx tsx bench/relay-attacks.ts
 */
import { fork, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';
import { TokenSigner } from '../src/server/tokens.js';
import type { RelaySocketStats } from '../src/server/index.js';

const SECRET = 'a-bench-secret-of-at-least-32-characters!';
const BODY_TIMEOUT_MS = 2_000;
type Reading = { memory: Record<'rss' | 'heapUsed' | 'external' | 'arrayBuffers', number>; stats: RelaySocketStats; connections: number };

async function child(): Promise<{ port: number; read: () => Promise<Reading>; flood: (kind: 'status' | 'preview', count: number, bytes: number) => Promise<void>; exit: () => Promise<void> }> {
  const process_: ChildProcess = fork(new URL('./_relay-attack-child.ts', import.meta.url).pathname, [SECRET, String(BODY_TIMEOUT_MS)], { execArgv: ['--import', 'tsx', '--expose-gc'] });
  const ask = <T>(message: object | undefined, key: string): Promise<T> =>
    new Promise((resolve) => {
      const on = (reply: Record<string, unknown>) => {
        if (!(key in reply)) return;
        process_.off('message', on);
        resolve(reply as T);
      };
      process_.on('message', on);
      if (message) process_.send(message);
    });
  const { port } = await ask<{ port: number }>(undefined, 'port');
  return {
    port,
    read: () => ask<Reading>({ type: 'memory' }, 'memory'),
    flood: async (kind, count, bytes) => void (await ask({ type: 'flood', kind, count, bytes }, 'flooded')),
    exit: async () => {
      process_.send({ type: 'exit' });
      await new Promise((resolve) => process_.once('exit', resolve));
    },
  };
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const rows: string[][] = [];
const row = (attack: string, moment: string, before: Reading, after: Reading, note: string) =>
  rows.push([attack, moment, String(after.connections), String(after.stats.browsers), mib(after.memory.rss - before.memory.rss), mib(after.memory.heapUsed + after.memory.arrayBuffers - before.memory.heapUsed - before.memory.arrayBuffers), note]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function openBrowser(port: number, token?: string): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/graphcloud/ws`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  if (token) {
    ws.send(JSON.stringify({ type: 'graphcloud_subscribe', data: { token } }));
    await new Promise((resolve) => ws.once('message', resolve));
  }
  return ws;
}

// 1. Slow bodies.
{
  const relay = await child();
  const before = await relay.read();
  const sockets: Socket[] = [];
  let answered = 0;
  for (let i = 0; i < 300; i++) {
    const socket = connect(relay.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => (answered += String(chunk).startsWith('HTTP/1.1 408') ? 1 : 0));
    socket.write('POST /api/graphcloud/api/prompt HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n');
    sockets.push(socket);
  }
  const drip = setInterval(() => sockets.forEach((socket) => socket.writable && socket.write('{')), 100);
  await sleep(BODY_TIMEOUT_MS / 2);
  const dripping = await relay.read();
  row('300 slow bodies', 'while dripping', before, dripping, '');
  // Each body's clock starts when the relay begins to read it; the last ones were accepted late.
  let ended = dripping;
  for (let i = 0; i < 100 && ended.connections > 0; i++) ended = await sleep(100).then(() => relay.read());
  await sleep(300);
  row('300 slow bodies', `after bodyTimeoutMs (${BODY_TIMEOUT_MS} ms)`, before, ended, `${answered} answered 408; all ${ended.connections === 0 ? 'closed' : 'not closed'} by the relay`);
  clearInterval(drip);
  sockets.forEach((socket) => socket.destroy());
  await relay.exit();
}

// 2. 400 browser sockets.
{
  const relay = await child();
  const signer = new TokenSigner([SECRET], 3_600_000);
  await openBrowser(relay.port).then((ws) => ws.terminate());
  await sleep(100);
  const before = await relay.read();
  const browsers: WebSocket[] = [];
  for (let i = 0; i < 400; i++) browsers.push(await openBrowser(relay.port, await signer.sign('job', crypto.randomUUID())));
  const after = await relay.read();
  row('400 browser sockets', 'all open, 1 job each', before, after, `${((after.memory.heapUsed - before.memory.heapUsed) / 400 / 1024).toFixed(1)} KiB heap per browser; ${after.stats.subscriptions} subscriptions; 1 upstream socket`);
  browsers.forEach((ws) => ws.terminate());
  await relay.exit();
}

// 3. A browser that never reads.
{
  const relay = await child();
  const reader = await openBrowser(relay.port);
  const stuck = await openBrowser(relay.port);
  (stuck as unknown as { _socket: Socket })._socket.pause();
  reader.on('message', () => undefined);
  const before = await relay.read();
  await relay.flood('status', 1_024, 64 * 1024);
  const after = await relay.read();
  row('1 socket that never reads', '64 MiB of status sent', before, after, `browsers open ${after.stats.browsers} of 2; the stuck one ${after.stats.browsers === 1 ? 'closed (1013)' : 'still open'}`);
  (stuck as unknown as { _socket: Socket })._socket.resume();
  reader.terminate();
  stuck.terminate();
  await relay.exit();
}

// 4. Previews for jobs nobody follows.
{
  const relay = await child();
  const browser = await openBrowser(relay.port);
  const before = await relay.read();
  await relay.flood('preview', 20_000, 16 * 1024);
  const after = await relay.read();
  row('20,000 previews, no follower', '320 MiB sent upstream', before, after, `held ${mib(after.stats.held.bytes)} for ${after.stats.held.prompts} jobs, ${after.stats.held.dropped} dropped by the bound`);
  browser.terminate();
  await relay.exit();
}

console.log('| attack | when | relay connections | browser sockets | RSS delta | heap + buffers delta | notes |');
console.log('|---|---|---|---|---|---|---|');
for (const cells of rows) console.log(`| ${cells.join(' | ')} |`);
