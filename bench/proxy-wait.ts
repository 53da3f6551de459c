/**
 * What `proxy.waitForTask()` costs: status requests and the delay between a task's completion and
 * its detection, for tasks that finish after 5 s, 60 s and 10 min, beside a fixed 5 s poller.
 *
 * Runs the real ProxyClient (HTTP core and wait engine included) against a simulated server: a
 * `fetch` that answers from a simulated clock, injected through the client's `clock` option, so
 * ten minutes take milliseconds. The engine draws every delay between half and all of its backoff
 * step, so each figure is a distribution: "exact" runs the task at exactly its length RUNS times,
 * "±10 %" runs it at RUNS completion times spread over ±10 % of its length (which also averages
 * out where completion falls between two polls). Math.random is replaced by a seeded generator,
 * so the table is the same on every run.
 *
 * Target: the 10-minute task in at most 40 requests (mean, exact and ±10 %) with a mean detection
 * delay of at most 10 s.
 *
 *   npx tsx bench/proxy-wait.ts
 */
import type { Clock } from '../src/core/index.js';
import { ProxyClient } from '../src/proxy/client.js';
import { PROXY_DEFAULTS } from '../src/proxy/defaults.js';
import type { WaitForTaskOptions } from '../src/proxy/options.js';
import { seededRandom as seeded } from '../src/testing/server/random.js';

const TARGET = { requests: 40, meanDelayMs: 10_000 };
const SCENARIOS = [
  { name: '5 s', ms: 5_000 },
  { name: '60 s', ms: 60_000 },
  { name: '10 min', ms: 600_000 },
];
const RUNS = 201;
const STRATEGIES: { name: string; options: WaitForTaskOptions; jitter: boolean }[] = [
  { name: 'waitForTask (defaults)', options: {}, jitter: true },
  { name: 'fixed 5 s poller (no jitter)', options: { poll: { minDelayMs: 5_000, maxDelayMs: 5_000, growFactor: 1 } }, jitter: false },
];

/** Simulated time: `sleep` moves the clock instead of waiting. */
function simulatedClock(): Clock {
  let now = 0;
  return {
    now: () => now,
    async sleep(ms: number, signal?: AbortSignal) {
      if (signal?.aborted) throw signal.reason;
      now += Math.max(0, ms);
    },
  };
}

interface Run {
  requests: number;
  delayMs: number;
}

/** One wait for a task finishing at `completesAt` ms: status requests made and detection delay. */
async function measure(completesAt: number, options: WaitForTaskOptions): Promise<Run> {
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
  await proxy.close();
  return { requests, delayMs: clock.now() - completesAt };
}

const mean = (runs: Run[], pick: (r: Run) => number) => runs.reduce((sum, r) => sum + pick(r), 0) / runs.length;
const max = (runs: Run[], pick: (r: Run) => number) => Math.max(...runs.map(pick));
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const random = Math.random;
const rows: string[] = [];
let met = true;
for (const scenario of SCENARIOS) {
  for (const strategy of STRATEGIES) {
    const draw = seeded(scenario.ms);
    Math.random = strategy.jitter ? draw : () => 1;
    const exact: Run[] = [];
    const spread: Run[] = [];
    for (let i = 0; i < RUNS; i++) exact.push(await measure(scenario.ms, strategy.options));
    for (let i = 0; i < RUNS; i++) spread.push(await measure(Math.round(scenario.ms * (0.9 + (0.2 * i) / (RUNS - 1))), strategy.options));
    rows.push(
      `| ${scenario.name} | ${strategy.name} | ${mean(exact, (r) => r.requests).toFixed(1)} (max ${max(exact, (r) => r.requests)}) | ${seconds(mean(exact, (r) => r.delayMs))} | ` +
        `${mean(spread, (r) => r.requests).toFixed(1)} (max ${max(spread, (r) => r.requests)}) | ${seconds(mean(spread, (r) => r.delayMs))} | ${seconds(max(spread, (r) => r.delayMs))} |`,
    );
    if (scenario.ms === 600_000 && strategy === STRATEGIES[0]) {
      const ok = mean(exact, (r) => r.requests) <= TARGET.requests && mean(spread, (r) => r.requests) <= TARGET.requests && mean(spread, (r) => r.delayMs) <= TARGET.meanDelayMs;
      met &&= ok;
      rows.push(`|  | target: ≤ ${TARGET.requests} requests, mean delay ≤ ${TARGET.meanDelayMs / 1000} s | ${ok ? 'met' : 'NOT met'} |  |  |  |  |`);
    }
  }
}
Math.random = random;

const { poll } = PROXY_DEFAULTS.wait;
console.log(`poll defaults: minDelayMs ${poll.minDelayMs}, maxDelayMs ${poll.maxDelayMs}, growFactor ${poll.growFactor}; ${RUNS} runs per cell\n`);
console.log('| task length | strategy | requests (exact) | mean delay (exact) | requests (±10 %) | mean delay (±10 %) | max delay (±10 %) |');
console.log('|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
console.log(`\nTargets ${met ? 'met' : 'NOT met'} for the 10-minute task.`);
process.exitCode = met ? 0 : 1;
