// Not committed: the SDK's per-message cost without the socket (router -> track -> watcher -> listener).
import { CloudClient } from '../src/cloud/index.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
const JOBS = 1000, PER = 200;
const http = createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"status":"executing"}'); });
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
const port = (http.address() as AddressInfo).port;
let handler: ((e: { data: unknown }) => void) | undefined;
class FakeSocket { readyState = 0; binaryType = ''; constructor() { setTimeout(() => { this.readyState = 1; this.l.open?.({}); }, 1); } l: Record<string, (e: any) => void> = {}; send() {} close() {} addEventListener(t: string, f: (e: any) => void) { this.l[t] = f; if (t === 'message') handler = f; } }
const cloud = new CloudClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'bench-key', WebSocket: FakeSocket as never, watcher: { poll: { silenceMs: 600_000 } } });
let events = 0;
const watchers = Array.from({ length: JOBS }, (_, j) => cloud.jobs.watch(`job-${j}`));
for (const w of watchers) w.on('progress', () => events++);
while (cloud.jobs.stats().connections === 0 || cloud.jobs.stats().polls < JOBS) await new Promise((r) => setTimeout(r, 5));
const frames: string[] = [];
for (let j = 0; j < JOBS; j++) frames.push(JSON.stringify({ type: 'execution_start', data: { prompt_id: 'job-' + j, timestamp: 1 } }));
for (let s = 0; s < PER - 3; s++) for (let j = 0; j < JOBS; j++) frames.push(JSON.stringify({ type: 'progress', data: { prompt_id: 'job-' + j, value: s + 1, max: PER - 3, node: '3' } }));
const t0 = process.threadCpuUsage();
for (const f of frames) handler!({ data: f });
const cpu = process.threadCpuUsage(t0);
// raw equivalent
const listeners = new Map<string, (d: unknown) => void>(); let rawEvents = 0;
for (let j = 0; j < JOBS; j++) listeners.set(`job-${j}`, () => rawEvents++);
const t1 = process.threadCpuUsage();
for (const f of frames) { const m = JSON.parse(f); if (m.type === 'progress') listeners.get(m.data.prompt_id)?.(m.data); }
const cpu2 = process.threadCpuUsage(t1);
const ns = (c: NodeJS.CpuUsage) => (((c.user + c.system) * 1000) / frames.length).toFixed(0);
console.log(`SDK ${ns(cpu)} ns/msg (events ${events}); raw parse+listener ${ns(cpu2)} ns/msg`);
process.exit(0);
