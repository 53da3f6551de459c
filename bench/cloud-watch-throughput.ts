/**
 * Throughput of the shared socket: 1,000 watchers on one `CloudClient`, and 200,000 messages
 * sent by a `ws` server on 127.0.0.1 (in a worker thread, so its cost is not counted against the
 * client). Each job gets ~200 messages (start, progress, executed, success). Measures messages per
 * second from the first frame sent to the last watcher settled, and the client's heap.
 * Targets: at least 100,000 msg/s, at most 64 MB of heap.
 */
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { CloudClient } from '../src/cloud/index.js';

const JOBS = Number(process.env.BENCH_JOBS ?? 1_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200_000);
const TARGET_RATE = 100_000;
const TARGET_HEAP_MB = 64;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// Status route for the one poll each watcher makes when the socket opens (jobs watched by id).
const http = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(req.url?.includes('/status') ? '{"status":"executing"}' : '{}');
});
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const httpPort = (http.address() as AddressInfo).port;

const serverCode = `
const { parentPort, workerData } = require('node:worker_threads');
const { WebSocketServer } = require(workerData.ws);
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
wss.on('listening', () => parentPort.postMessage({ port: wss.address().port }));
wss.on('connection', (socket) => {
  parentPort.on('message', async (m) => {
    if (m !== 'go') return;
    const { jobs, messages } = workerData;
    const perJob = Math.floor(messages / jobs);
    const frames = [];
    for (let j = 0; j < jobs; j++) frames.push(JSON.stringify({ type: 'execution_start', data: { prompt_id: 'job-' + j, timestamp: 1 } }));
    for (let step = 0; step < perJob - 3; step++) {
      for (let j = 0; j < jobs; j++) frames.push(JSON.stringify({ type: 'progress', data: { prompt_id: 'job-' + j, value: step + 1, max: perJob - 3, node: '3' } }));
    }
    for (let j = 0; j < jobs; j++) {
      frames.push(JSON.stringify({ type: 'executed', data: { prompt_id: 'job-' + j, node: '9', display_node: '9', output: { images: [{ filename: 'job-' + j + '.png', subfolder: '', type: 'output' }] } } }));
      frames.push(JSON.stringify({ type: 'execution_success', data: { prompt_id: 'job-' + j, timestamp: 2 } }));
    }
    parentPort.postMessage({ start: performance.timeOrigin + performance.now(), count: frames.length });
    for (let i = 0; i < frames.length; i++) {
      socket.send(frames[i]);
      if (socket.bufferedAmount > 8 * 1024 * 1024) await new Promise((r) => setImmediate(r));
    }
  });
});
`;
const worker = new Worker(serverCode, { eval: true, workerData: { ws: createRequire(import.meta.url).resolve('ws'), jobs: JOBS, messages: MESSAGES } });
const wsPort = await new Promise<number>((resolve) => worker.once('message', (m: { port: number }) => resolve(m.port)));

// The socket goes to the worker's port; HTTP to the status server (a proxy would normally join them).
class Redirected extends WebSocket {
  constructor(url: string) {
    super(url.replace(`:${httpPort}/`, `:${wsPort}/`));
  }
}
const cloud = new CloudClient({ baseUrl: `http://127.0.0.1:${httpPort}`, apiKey: 'bench-key', WebSocket: Redirected, watcher: { poll: { silenceMs: 600_000 } } });

gc();
const heapBefore = process.memoryUsage().heapUsed;
const watchers = Array.from({ length: JOBS }, (_, j) => cloud.jobs.watch(`job-${j}`));
let progressEvents = 0;
for (const watcher of watchers) watcher.on('progress', () => progressEvents++);
// Wait for the socket to open and the initial polls to answer.
while (cloud.jobs.stats().connections === 0 || cloud.jobs.stats().polls < JOBS) await new Promise((r) => setTimeout(r, 5));
let heapPeak = 0;
const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 5);
const started = new Promise<{ start: number; count: number }>((resolve) => worker.once('message', resolve));
worker.postMessage('go');
const { start, count } = await started;
const results = await Promise.all(watchers.map((w) => w.result()));
const elapsedMs = performance.timeOrigin + performance.now() - start;
clearInterval(sampler);
heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);

const ok = results.every((r, j) => r.status === 'completed' && JSON.stringify(r.outputs['9']).includes(`job-${j}.png`));
const rate = count / (elapsedMs / 1000);
const heapMb = (heapPeak - heapBefore) / 1024 / 1024;
await cloud.close();
await worker.terminate();
http.close();

console.log('| metric | value | target | met |');
console.log('|---|---|---|---|');
console.log(`| messages | ${count.toLocaleString('en')} to ${JOBS.toLocaleString('en')} watchers | | |`);
console.log(`| throughput | ${Math.round(rate).toLocaleString('en')} msg/s | ≥ ${TARGET_RATE.toLocaleString('en')} msg/s | ${rate >= TARGET_RATE ? 'yes' : 'no'} |`);
console.log(`| heap growth (peak) | ${heapMb.toFixed(1)} MB | ≤ ${TARGET_HEAP_MB} MB | ${heapMb <= TARGET_HEAP_MB ? 'yes' : 'no'} |`);
console.log(`| every job resolved with its own outputs | ${ok ? 'yes' : 'no'} | yes | ${ok ? 'yes' : 'no'} |`);
console.log(`| progress events delivered | ${progressEvents.toLocaleString('en')} | | |`);
process.exit(ok && rate >= TARGET_RATE && heapMb <= TARGET_HEAP_MB ? 0 : 1);
