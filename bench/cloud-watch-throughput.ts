/**
 * Throughput of the shared socket: 1,000 watchers on one `CloudClient`, each with its own
 * `progress` listener, and 200,000 messages sent by a `ws` server on 127.0.0.1 (in a worker
 * thread, so its cost is not counted against the client). Each job gets ~200 messages (start,
 * progress, executed, success). The server queues every frame before the client reads one, so the
 * rate is the client's own: messages per second from the moment it may read to the last watcher
 * settled (a server framing messages on the same shared core as it goes set the pace of both
 * contenders alike and hid most of the SDK's cost). Also measured: the heap growth (the peak of `heapUsed`, sampled every 5 ms, over its value
 * after a forced gc just before the round), against a raw `WebSocket` that `JSON.parse`s every
 * frame and calls the job's own listener.
 *
 * On a shared machine one round is luck, so raw and SDK rounds alternate, raw first and last
 * (`BENCH_PAIRS=5` SDK rounds by default); each SDK round is compared with the mean of the raw
 * rounds either side of it, and the table reports every round, each ratio and the medians. Each
 * round runs in a fresh process: the young generation V8 grows during one round (up to 64 MB of
 * semi-space on Node 24) would otherwise count as the next round's heap growth.
 * The SDK is the one a package user runs: `src/cloud` compiled by esbuild as tsup compiles it
 * (es2023, no `keepNames`). Run through tsx, every named closure of the SDK would also get an
 * `Object.defineProperty(fn, 'name')` and a 256-byte property array each time it is created
 * (3.2 of the 16 MB 1,000 watchers held were those), which the package does not pay.
 * Also printed: the young generation V8 has at the start of each round. The SDK's setup reads
 * each job's status once (1,000 `fetch` calls): Node's fetch leaves objects that survive
 * scavenges (weakly held until a full gc), so V8 grows the young generation to 64 MB, against 8
 * for the raw round. The peak then counts up to ~30 MB of young garbage, and a nursery that large
 * also slows the socket itself: the raw round alone, run with `--min-semi-space-size=32`, drained
 * at 305,000 instead of 530,000 msg per CPU second (measured on the 2-core machine, Nov 2026).
 * `BENCH_GC=reduce` starts each round, for both contenders, with V8's memory-reducing gc
 * (`flavor: 'last-resort'`), which also shrinks the young generation: the round then measures
 * what watching costs, not what the setup's reads left V8 sized for. The default (`full`) is the
 * plain forced gc the figures in the README were measured with.
 * Targets (issue 21): the SDK at least 90% of the raw rate, heap growth at most 10 MB.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';

const JOBS = Number(process.env.BENCH_JOBS ?? 1_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200_000);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 5);
const TARGET_RATIO = 0.9;
const TARGET_HEAP_MB = 10;
const GC_MODE = process.env.BENCH_GC === 'reduce' ? 'reduce' : 'full';

interface Run {
  rate: number;
  /** Messages per second of CPU time of the client's own thread (the server is in another thread). */
  cpuRate: number;
  heapMb: number;
  /** The heap after the forced gc that starts the round: with the SDK, what its 1,000 watchers hold. */
  heldMb: number;
  /** The young generation (new space) V8 had sized when the round started. */
  youngMb: number;
  ok: boolean;
  events: number;
  count: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

if (process.argv[2] !== '--round') {
  // The parent: alternates the rounds, each in a fresh process, and prints the tables.
  const self = fileURLToPath(import.meta.url);
  const dir = mkdtempSync(path.join(tmpdir(), 'graphcloud-bench-'));
  const sdkModule = path.join(dir, 'cloud.mjs');
  // As tsup compiles the package (tsup.config.ts), bundled here so the file runs from a temporary folder.
  await build({ entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))], outfile: sdkModule, bundle: true, format: 'esm', platform: 'node', target: 'es2023', logLevel: 'error' });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const runRound = (kind: 'raw' | 'sdk'): Run => {
    const env = { ...process.env, BENCH_SDK_MODULE: sdkModule };
    const child = spawnSync(process.execPath, [...process.execArgv, self, '--round', kind], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.status !== 0) throw new Error(`the ${kind} round exited with ${child.status}`);
    return JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as Run;
  };
  const raws: Run[] = [runRound('raw')];
  const sdks: Run[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    sdks.push(runRound('sdk'));
    raws.push(runRound('raw'));
  }
  const ratios = sdks.map((run, i) => run.rate / (((raws[i] as Run).rate + (raws[i + 1] as Run).rate) / 2));
  const cpuRatios = sdks.map((run, i) => run.cpuRate / (((raws[i] as Run).cpuRate + (raws[i + 1] as Run).cpuRate) / 2));
  const ratio = median(ratios);
  const cpuRatio = median(cpuRatios);
  const rawHeap = median(raws.map((r) => r.heapMb));
  const sdkHeap = median(sdks.map((r) => r.heapMb));
  const held = median(sdks.map((r) => r.heldMb)) - median(raws.map((r) => r.heldMb));
  const ok = [...raws, ...sdks].every((r) => r.ok);
  const fmt = (n: number) => Math.round(n).toLocaleString('en');
  const mb = (n: number) => `${n.toFixed(1)} MB`;
  const pct = (n: number) => `${(n * 100).toFixed(0)}%`;
  const range = (values: number[]) => `${pct(Math.min(...values))} to ${pct(Math.max(...values))}`;
  console.log('| round | contender | throughput | per CPU second of the client thread | heap growth (peak) | young generation at the start | progress events delivered | every job resolved with its own outputs | SDK / mean of the raw rounds either side (throughput; per CPU second) |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const rows = raws.flatMap((r, i) => (i < sdks.length ? [r, sdks[i] as Run] : [r]));
  rows.forEach((run, i) => {
    const isSdk = i % 2 === 1;
    const name = isSdk ? `CloudClient, ${fmt(JOBS)} watchers, ${fmt(run.count)} messages` : 'raw WebSocket + JSON.parse';
    const pair = isSdk ? `${pct(ratios[(i - 1) / 2] as number)}; ${pct(cpuRatios[(i - 1) / 2] as number)}` : '';
    console.log(`| ${i + 1} | ${name} | ${fmt(run.rate)} msg/s | ${fmt(run.cpuRate)} msg/s | ${mb(run.heapMb)} | ${mb(run.youngMb)} | ${fmt(run.events)} | ${run.ok ? 'yes' : 'no'} | ${pair} |`);
  });
  console.log('');
  console.log(`Medians: raw ${fmt(median(raws.map((r) => r.rate)))} msg/s (${fmt(median(raws.map((r) => r.cpuRate)))} per CPU second) and ${mb(rawHeap)}; SDK ${fmt(median(sdks.map((r) => r.rate)))} msg/s (${fmt(median(sdks.map((r) => r.cpuRate)))} per CPU second) and ${mb(sdkHeap)}: the SDK adds ${mb(sdkHeap - rawHeap)} to what the frames cost. Before its round, after a forced gc, the SDK's heap holds ${mb(held)} more than the raw one's (its code and ${fmt(JOBS)} watched jobs). When the rounds started, V8's young generation was ${mb(median(sdks.map((r) => r.youngMb)))} for the SDK (sized by its setup's status reads unless BENCH_GC=reduce) and ${mb(median(raws.map((r) => r.youngMb)))} for raw; the peak counts the young generation's garbage.`);
  console.log('');
  console.log(`Each round started with a ${GC_MODE === 'reduce' ? "memory-reducing gc (BENCH_GC=reduce: V8's last-resort gc, the young generation shrunk)" : 'forced full gc (BENCH_GC=full)'}.`);
  console.log('');
  console.log('| metric | value | target | met |');
  console.log('|---|---|---|---|');
  console.log(`| SDK / raw rate (median of ${sdks.length} pairs; range ${range(ratios)}) | ${pct(ratio)} | ≥ ${TARGET_RATIO * 100}% | ${ratio >= TARGET_RATIO ? 'yes' : 'no'} |`);
  console.log(`| SDK / raw, per CPU second of the client thread (median; range ${range(cpuRatios)}) | ${pct(cpuRatio)} | ≥ ${TARGET_RATIO * 100}% | ${cpuRatio >= TARGET_RATIO ? 'yes' : 'no'} |`);
  console.log(`| SDK heap growth (peak, median; raw ${mb(rawHeap)}) | ${mb(sdkHeap)} | ≤ ${TARGET_HEAP_MB} MB | ${sdkHeap <= TARGET_HEAP_MB ? 'yes' : 'no'} |`);
  process.exit(ok && ratio >= TARGET_RATIO && sdkHeap <= TARGET_HEAP_MB ? 0 : 1);
}

// A round's own process (`--round raw|sdk`): the two servers, the client under test, one round.
const { CloudClient } = (await import(process.env.BENCH_SDK_MODULE ?? '../src/index.js')) as typeof import('../src/index.js');
setFlagsFromString('--expose-gc');
const gcOnce = runInNewContext('gc') as (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
const gc = () => (GC_MODE === 'reduce' ? gcOnce({ type: 'major', execution: 'sync', flavor: 'last-resort' }) : gcOnce());

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
let current;
wss.on('connection', (socket) => (current = socket));
parentPort.on('message', async (m) => {
  if (m !== 'go') return;
  const socket = current;
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
  // Every frame is queued before the client reads one (it waits on the flag): what is measured is
  // how fast the client drains them, not how fast this thread frames them on a shared core.
  for (let i = 0; i < frames.length; i++) socket.send(frames[i]);
  Atomics.store(workerData.flag, 1, frames.length);
  Atomics.store(workerData.flag, 0, 1);
  Atomics.notify(workerData.flag, 0);
});
`;
const flag = new Int32Array(new SharedArrayBuffer(8));
const worker = new Worker(serverCode, { eval: true, workerData: { ws: createRequire(import.meta.url).resolve('ws'), jobs: JOBS, messages: MESSAGES, flag } });
const wsPort = await new Promise<number>((resolve) => worker.once('message', (m: { port: number }) => resolve(m.port)));

// The socket goes to the worker's port; HTTP to the status server (a proxy would normally join them).
class Redirected extends WebSocket {
  constructor(url: string) {
    super(url.replace(`:${httpPort}/`, `:${wsPort}/`));
  }
}

/** Samples the heap every 5 ms while `work` runs; the growth of its peak over the start, in MB. */
async function measure(work: () => Promise<{ ok: boolean; events: number }>): Promise<Run> {
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const youngMb = (getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0) / 1024 / 1024;
  let heapPeak = 0;
  const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 5);
  const running = work();
  Atomics.store(flag, 0, 0);
  worker.postMessage('go');
  // This thread reads nothing until the server has queued every frame (the kernel and the
  // server's socket buffer them); the clock starts when the client may read.
  Atomics.wait(flag, 0, 0);
  const count = Atomics.load(flag, 1);
  const start = performance.now();
  const cpuBefore = process.threadCpuUsage();
  const { ok, events } = await running;
  const cpu = process.threadCpuUsage(cpuBefore);
  const elapsedMs = performance.now() - start;
  clearInterval(sampler);
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  return { rate: count / (elapsedMs / 1000), cpuRate: count / ((cpu.user + cpu.system) / 1e6), heapMb: (heapPeak - heapBefore) / 1024 / 1024, heldMb: heapBefore / 1024 / 1024, youngMb, ok, events, count };
}

/** The floor: a raw WebSocket, JSON.parse per frame, and one listener per job looked up by prompt_id. */
async function raw(): Promise<Run> {
  const socket = new WebSocket(`ws://127.0.0.1:${wsPort}/ws`);
  await new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }));
  let events = 0;
  const done = new Map<string, () => void>();
  const listeners = new Map<string, (data: unknown) => void>();
  const settled = Array.from({ length: JOBS }, (_, j) => new Promise<void>((resolve) => done.set(`job-${j}`, resolve)));
  for (let j = 0; j < JOBS; j++) listeners.set(`job-${j}`, () => events++);
  const outputs = new Map<string, unknown>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data as string) as { type: string; data: { prompt_id: string; output?: unknown } };
    const id = message.data.prompt_id;
    if (message.type === 'progress') listeners.get(id)?.(message.data);
    else if (message.type === 'executed') outputs.set(id, message.data.output);
    else if (message.type === 'execution_success') done.get(id)?.();
  });
  const run = await measure(async () => {
    await Promise.all(settled);
    return { ok: outputs.size === JOBS, events };
  });
  socket.close();
  return run;
}

async function sdk(): Promise<Run> {
  const cloud = new CloudClient({ baseUrl: `http://127.0.0.1:${httpPort}`, apiKey: 'bench-key', WebSocket: Redirected, watcher: { poll: { silenceMs: 600_000 } } });
  let events = 0;
  const watchers = Array.from({ length: JOBS }, (_, j) => cloud.jobs.watch(`job-${j}`));
  for (const watcher of watchers) watcher.on('progress', () => events++);
  // Wait for the socket to open and the initial polls to answer.
  while (cloud.jobs.stats().connections === 0 || cloud.jobs.stats().polls < JOBS) await new Promise((r) => setTimeout(r, 5));
  const run = await measure(async () => {
    const results = await Promise.all(watchers.map((w) => w.result()));
    return { ok: results.every((r, j) => r.status === 'completed' && JSON.stringify(r.outputs['9']).includes(`job-${j}.png`)), events };
  });
  await cloud.close();
  return run;
}

// Its figures go to the parent as one JSON line.
const run = process.argv[3] === 'sdk' ? await sdk() : await raw();
await worker.terminate();
http.close();
process.stdout.write(`${JSON.stringify(run)}\n`);
process.exit(0);

