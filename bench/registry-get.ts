/**
 * Overhead of the SDK over raw fetch: N sequential `registry.nodes.get()` calls against a local
 * `node:http` server, beside N raw `fetch` + `JSON.parse` calls, interleaved in rounds in one run.
 * Prints the median ratio. Target: at most 1.15.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RegistryClient } from '../src/index.js';

const N = Number(process.env.BENCH_N ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const TARGET = 1.15;

const body = JSON.stringify({
  id: 'acme-upscale',
  name: 'Acme Upscale',
  rating: 4.5,
  downloads: 1200,
  tags: ['image', 'upscale'],
  publisher: { id: 'acme', name: 'Acme', members: [{ id: 'm1', role: 'owner', user: { id: 'u1' } }] },
  latest_version: { id: '00000000-0000-4000-8000-000000000001', version: '1.0.3', createdAt: '2026-01-02T03:04:05Z', deprecated: false },
  description: 'x'.repeat(400),
});
let latencyMs = 0;
const server = createServer((_req, res) => {
  if (latencyMs > 0) {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }, latencyMs);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const registry = new RegistryClient({ baseUrl, token: 'bench-token' });

async function timeSdk(n: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await registry.nodes.get('acme-upscale');
  return performance.now() - start;
}
async function timeRaw(n: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const response = await fetch(`${baseUrl}/nodes/acme-upscale`, { headers: { authorization: 'Bearer bench-token', accept: 'application/json' } });
    JSON.parse(await response.text());
  }
  return performance.now() - start;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Interleaves SDK and raw rounds (alternating which goes first) and returns per-call medians and the median ratio. */
async function measure(calls: number, rounds: number) {
  await timeSdk(calls);
  await timeRaw(calls);
  const sdk: number[] = [];
  const raw: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const first = round % 2 === 0 ? await timeSdk(calls) : await timeRaw(calls);
    const second = round % 2 === 0 ? await timeRaw(calls) : await timeSdk(calls);
    const [a, b] = round % 2 === 0 ? [first, second] : [second, first];
    sdk.push(a / calls);
    raw.push(b / calls);
    ratios.push(a / b);
  }
  return { sdk: median(sdk), raw: median(raw), ratio: median(ratios) };
}

console.log('| server | calls | SDK (ms/call) | raw fetch (ms/call) | SDK overhead (µs/call) | median ratio | target | met |');
console.log('|---|---|---|---|---|---|---|---|');
for (const latency of [0, 2]) {
  latencyMs = latency;
  const calls = latency === 0 ? N : Math.max(20, Math.round(N / 10));
  const m = await measure(calls, latency === 0 ? ROUNDS : 5);
  const target = latency === 0 ? `<= ${TARGET}` : '(information)';
  const met = latency === 0 ? (m.ratio <= TARGET ? 'yes' : 'NO') : '';
  console.log(`| loopback${latency ? ` + ${latency} ms latency` : ''} | ${calls} x ${latency === 0 ? ROUNDS : 5} | ${m.sdk.toFixed(3)} | ${m.raw.toFixed(3)} | ${((m.sdk - m.raw) * 1000).toFixed(0)} | ${m.ratio.toFixed(3)} | ${target} | ${met} |`);
}
server.close();
