/**
 * Overhead of the SDK over ky: N sequential `registry.nodes.get()` calls against a local
 * `node:http` server, beside the same call made with ky alone (`ky.get(url, { headers }).json()`,
 * ky's defaults: retries, a timeout) and with raw `fetch` + `JSON.parse`, interleaved in rounds in
 * one run. Prints the median ratios. Target (issue 21): the SDK at most 1.10x ky alone on
 * loopback; raw fetch shows the floor under both.
 *
 * A fourth contender is ky given the options the SDK gives it (docs/architecture.md): the
 * credential put on by a `beforeRequest`/`beforeRetry` hook, errors mapped in `beforeError`, a
 * `totalTimeout` beside the per-attempt `timeout`, the retry rule as `shouldRetry` and `delay`,
 * redirects left to the caller (`redirect: 'manual'`), the call's own
 * abort signal, and a `fetch` option, each doing nothing more than ky needs. It splits the
 * SDK's distance from ky alone into what configuring ky that way costs and what the SDK adds on
 * top (the zod check, the bounded read, redirects followed by hand, the per-call state).
 *
 * A fifth contender is ky alone again, a second instance made the same way: its ratio to the
 * first is the noise floor of the run. On a shared machine a single run's ratios move by 10 to
 * 15%; a difference smaller than the floor's distance from 1.00 is not a measured difference.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ky from 'ky';

// The SDK a package user runs: src/ compiled as tsup compiles it (es2023, no keepNames, the
// dependencies left as imports, so the SDK and "ky alone" share one ky). Run through tsx, each
// closure the SDK makes per call would also pay a name helper the package does not have.
const cache = path.join(fileURLToPath(new URL('../node_modules/.cache', import.meta.url)));
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(path.join(cache, 'graphcloud-bench-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const sdkModule = path.join(dir, 'index.mjs');
await build({ entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))], outfile: sdkModule, bundle: true, format: 'esm', platform: 'node', target: 'es2023', packages: 'external', logLevel: 'error' });
const { RegistryClient } = (await import(sdkModule)) as typeof import('../src/index.js');

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
const kyAgain = ky.create({});
const configured = async () => {
  const controller = new AbortController();
  const authorize = async ({ request }: { request: Request }) => void request.headers.set('authorization', 'Bearer bench-token');
  const response = await ky.get(url, {
    headers: { accept: 'application/json' },
    signal: controller.signal,
    redirect: 'manual',
    timeout: 60_000,
    totalTimeout: 180_000,
    fetch: async (request) => fetch(request as Request),
    retry: { limit: 2, methods: ['get'], shouldRetry: () => false, delay: () => 0 },
    hooks: { beforeRequest: [authorize], beforeRetry: [authorize], beforeError: [({ error }) => error] },
  });
  return JSON.parse(await response.text()) as unknown;
};

const contenders: Record<'sdk' | 'raw' | 'ky' | 'kyConfigured' | 'kyAgain', () => Promise<unknown>> = {
  sdk: () => registry.nodes.get('acme-upscale'),
  raw: async () => JSON.parse(await (await fetch(url, { headers })).text()),
  ky: async () => kyAlone.get(url, { headers }).json(),
  kyConfigured: configured,
  kyAgain: async () => kyAgain.get(url, { headers }).json(),
};

async function time(name: keyof typeof contenders, n: number): Promise<number> {
  const call = contenders[name];
  const start = performance.now();
  for (let i = 0; i < n; i++) await call();
  return (performance.now() - start) / n;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Rounds of all the contenders in a rotating order; per-call medians and per-round ratios. */
async function measure(calls: number, rounds: number) {
  const names = Object.keys(contenders) as (keyof typeof contenders)[];
  for (const name of names) await time(name, calls);
  const perCall = { sdk: [] as number[], raw: [] as number[], ky: [] as number[], kyConfigured: [] as number[], kyAgain: [] as number[] };
  const sdkOverRaw: number[] = [];
  const kyOverRaw: number[] = [];
  const sdkOverKy: number[] = [];
  const configuredOverKy: number[] = [];
  const sdkOverConfigured: number[] = [];
  const kyAgainOverKy: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    const t: Record<string, number> = {};
    for (const name of order) t[name] = await time(name, calls);
    for (const name of names) perCall[name].push(t[name]!);
    sdkOverRaw.push(t.sdk! / t.raw!);
    kyOverRaw.push(t.ky! / t.raw!);
    sdkOverKy.push(t.sdk! / t.ky!);
    configuredOverKy.push(t.kyConfigured! / t.ky!);
    sdkOverConfigured.push(t.sdk! / t.kyConfigured!);
    kyAgainOverKy.push(t.kyAgain! / t.ky!);
  }
  return { sdk: median(perCall.sdk), raw: median(perCall.raw), ky: median(perCall.ky), configured: median(perCall.kyConfigured), sdkOverRaw: median(sdkOverRaw), kyOverRaw: median(kyOverRaw), sdkOverKy: median(sdkOverKy), configuredOverKy: median(configuredOverKy), sdkOverConfigured: median(sdkOverConfigured), noise: median(kyAgainOverKy) };
}

console.log('| server | calls | SDK (ms/call) | ky alone (ms/call) | ky as the SDK configures it (ms/call) | raw fetch (ms/call) | SDK / raw (median) | ky alone / raw | ky configured / ky alone | SDK / ky configured | SDK / ky alone | noise floor (ky alone / itself) | target (SDK / ky alone) | met |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const latency of [0, 2]) {
  latencyMs = latency;
  const calls = latency === 0 ? N : Math.max(20, Math.round(N / 10));
  const rounds = latency === 0 ? ROUNDS : 6;
  const m = await measure(calls, rounds);
  const target = latency === 0 ? `<= ${TARGET}` : '(information)';
  const met = latency === 0 ? (m.sdkOverKy <= TARGET ? 'yes' : 'NO') : '';
  console.log(`| loopback${latency ? ` + ${latency} ms latency` : ''} | ${calls} x ${rounds} | ${m.sdk.toFixed(3)} | ${m.ky.toFixed(3)} | ${m.configured.toFixed(3)} | ${m.raw.toFixed(3)} | ${m.sdkOverRaw.toFixed(2)} | ${m.kyOverRaw.toFixed(2)} | ${m.configuredOverKy.toFixed(2)} | ${m.sdkOverConfigured.toFixed(2)} | ${m.sdkOverKy.toFixed(2)} | ${m.noise.toFixed(2)} | ${target} | ${met} |`);
}
server.close();
