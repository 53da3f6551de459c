/**
 * What `proxy.waitForTask()` costs: status requests and the delay between a task's completion and
 * its detection, for tasks that finish after 5 s, 60 s and 10 min, beside a fixed 5 s poller.
 *
 * Runs the real ProxyClient (HTTP core included) against a simulated server: a `fetch` that answers
 * from a simulated clock, injected through the client's `clock` option, so ten minutes take
 * milliseconds. Each scenario runs once at exactly its duration and then at 101 completion times
 * spread over ±10 % of it (so the poll phase is averaged out).
 *
 * Target: the 10-minute task in at most 40 requests with a mean detection delay of at most 10 s.
 *
 *   npx tsx bench/proxy-wait.ts
 */
import { ProxyClient, type Clock, type WaitOptions } from '../src/proxy/index.js';

const TARGET = { requests: 40, meanDelayMs: 10_000 };
const SCENARIOS = [
  { name: '5 s', ms: 5_000 },
  { name: '60 s', ms: 60_000 },
  { name: '10 min', ms: 600_000 },
];
const SPREAD = 101;
const STRATEGIES: { name: string; options: WaitOptions }[] = [
  { name: 'waitForTask (defaults)', options: {} },
  { name: 'fixed 5 s poller', options: { initialIntervalMs: 5_000, growFactor: 1, maxIntervalMs: 5_000 } },
];

/** Simulated time: `sleep` moves the clock instead of waiting. */
function simulatedClock(): Clock & { set(ms: number): void } {
  let now = 0;
  return {
    now: () => now,
    set: (ms) => {
      now = ms;
    },
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      now += Math.max(0, ms);
    },
  };
}

/** One wait for a task finishing at `completesAt` ms: status requests made and detection delay. */
async function measure(completesAt: number, options: WaitOptions): Promise<{ requests: number; delayMs: number }> {
  const clock = simulatedClock();
  let requests = 0;
  const fetch: typeof globalThis.fetch = async () => {
    requests += 1;
    const done = clock.now() >= completesAt;
    const data = { task_id: 't-1', status: done ? 'COMPLETED' : 'IN_PROGRESS', generated: done ? ['https://cdn.test/out.png'] : [] };
    return new Response(JSON.stringify({ data }), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const proxy = new ProxyClient({ baseUrl: 'http://127.0.0.1:9', token: 'bench', fetch, clock });
  await proxy.waitForTask({ kind: 'upscale', taskId: 't-1', status: 'IN_PROGRESS' }, options);
  return { requests, delayMs: clock.now() - completesAt };
}

const rows: string[] = [];
let met = true;
for (const scenario of SCENARIOS) {
  for (const strategy of STRATEGIES) {
    const exact = await measure(scenario.ms, strategy.options);
    const runs: { requests: number; delayMs: number }[] = [];
    for (let i = 0; i < SPREAD; i++) runs.push(await measure(Math.round(scenario.ms * (0.9 + (0.2 * i) / (SPREAD - 1))), strategy.options));
    const mean = (pick: (r: { requests: number; delayMs: number }) => number) => runs.reduce((sum, r) => sum + pick(r), 0) / runs.length;
    const meanRequests = mean((r) => r.requests);
    const meanDelay = mean((r) => r.delayMs);
    const maxDelay = Math.max(...runs.map((r) => r.delayMs));
    rows.push(`| ${scenario.name} | ${strategy.name} | ${exact.requests} | ${(exact.delayMs / 1000).toFixed(2)} s | ${meanRequests.toFixed(1)} | ${(meanDelay / 1000).toFixed(2)} s | ${(maxDelay / 1000).toFixed(2)} s |`);
    if (scenario.ms === 600_000 && strategy.options === STRATEGIES[0]?.options) {
      const ok = exact.requests <= TARGET.requests && meanRequests <= TARGET.requests && meanDelay <= TARGET.meanDelayMs;
      met &&= ok;
      rows.push(`|  | target: ≤ ${TARGET.requests} requests, mean delay ≤ ${TARGET.meanDelayMs / 1000} s | ${ok ? 'met' : 'NOT met'} |  |  |  |  |`);
    }
  }
}

console.log('| task length | strategy | requests (exact) | delay (exact) | mean requests (±10 %) | mean delay (±10 %) | max delay (±10 %) |');
console.log('|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
console.log(`\nTargets ${met ? 'met' : 'NOT met'} for the 10-minute task.`);
process.exitCode = met ? 0 : 1;
