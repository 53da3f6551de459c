/**
 * Overhead of the SDK over ky: N sequential `registry.nodes.get()` calls against a local
 * `node:http` server, beside the same call made with ky alone (`ky.get(url, { headers }).json()`,
 * ky's defaults: retries, a timeout) and with raw `fetch` + `JSON.parse`, interleaved in rounds in
 * one run. Prints the median ratios. Target (issue 21): the SDK at most 1.10x ky alone on
 * loopback; raw fetch shows the floor under both.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import ky from 'ky';
import { RegistryClient } from '../src/index.js';

const N = Number(process.env.BENCH_N ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const TARGET = 1.1;

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
const answer = (res: import('node:http').ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};
const server = createServer((_req, res) => (latencyMs > 0 ? setTimeout(() => answer(res), latencyMs) : answer(res)));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const url = `${baseUrl}/nodes/acme-upscale`;
const headers = { authorization: 'Bearer bench-token', accept: 'application/json' };
const registry = new RegistryClient({ baseUrl, token: 'bench-token' });
const kyAlone = ky.create({});

const contenders: Record<'sdk' | 'raw' | 'ky', () => Promise<unknown>> = {
  sdk: () => registry.nodes.get('acme-upscale'),
  raw: async () => JSON.parse(await (await fetch(url, { headers })).text()),
  ky: async () => kyAlone.get(url, { headers }).json(),
};

async function time(name: keyof typeof contenders, n: number): Promise<number> {
  const call = contenders[name];
  const start = performance.now();
  for (let i = 0; i < n; i++) await call();
  return (performance.now() - start) / n;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Rounds of all three contenders in a rotating order; per-call medians and per-round ratios. */
async function measure(calls: number, rounds: number) {
  const names = Object.keys(contenders) as (keyof typeof contenders)[];
  for (const name of names) await time(name, calls);
  const perCall = { sdk: [] as number[], raw: [] as number[], ky: [] as number[] };
  const sdkOverRaw: number[] = [];
  const kyOverRaw: number[] = [];
  const sdkOverKy: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = [...names.slice(round % 3), ...names.slice(0, round % 3)];
    const t: Record<string, number> = {};
    for (const name of order) t[name] = await time(name, calls);
    for (const name of names) perCall[name].push(t[name]!);
    sdkOverRaw.push(t.sdk! / t.raw!);
    kyOverRaw.push(t.ky! / t.raw!);
    sdkOverKy.push(t.sdk! / t.ky!);
  }
  return { sdk: median(perCall.sdk), raw: median(perCall.raw), ky: median(perCall.ky), sdkOverRaw: median(sdkOverRaw), kyOverRaw: median(kyOverRaw), sdkOverKy: median(sdkOverKy) };
}

console.log('| server | calls | SDK (ms/call) | ky alone (ms/call) | raw fetch (ms/call) | SDK / raw (median) | ky alone / raw | SDK / ky alone | target (SDK / ky alone) | met |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const latency of [0, 2]) {
  latencyMs = latency;
  const calls = latency === 0 ? N : Math.max(20, Math.round(N / 10));
  const rounds = latency === 0 ? ROUNDS : 6;
  const m = await measure(calls, rounds);
  const target = latency === 0 ? `<= ${TARGET}` : '(information)';
  const met = latency === 0 ? (m.sdkOverKy <= TARGET ? 'yes' : 'NO') : '';
  console.log(`| loopback${latency ? ` + ${latency} ms latency` : ''} | ${calls} x ${rounds} | ${m.sdk.toFixed(3)} | ${m.ky.toFixed(3)} | ${m.raw.toFixed(3)} | ${m.sdkOverRaw.toFixed(2)} | ${m.kyOverRaw.toFixed(2)} | ${m.sdkOverKy.toFixed(2)} | ${target} | ${met} |`);
}
server.close();
