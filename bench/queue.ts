/**
 * graphcloud/queue end to end: a real redis-server (append-only file on), the simulator (cloud,
 * instant nodes) in this process, and 4 RunWorker processes. Two phases:
 *
 * Redis runs as docs/queue.md advises: append-only file on, `appendfsync everysec`.
 *
 * 1. Added latency: one idle worker; 200 runs one at a time, each timed as `queue.add()` until
 *    `run.result()` resolves, interleaved with 200 direct `cloud.runWorkflow()` calls of the same
 *    workflow. Target: the median difference at most 5 ms.
 * 2. Throughput: 10,000 runs added at once through 4 worker processes (16 runs each at once, the
 *    simulator's account limit 64): runs per second from the first add to the last completion
 *    (target at least 200 on 2 cores), Redis commands per run (INFO commandstats, the whole
 *    phase: adds, workers, the status reads of this script), each worker's resident memory after
 *    the first 1,000 runs, half way and at the end (target: growth at most 10 MB), each read after
 *    a full collection in the worker (SIGUSR2): the heap it keeps, and its resident size.
 *
 * BENCH_RUNS and BENCH_LATENCY_RUNS shorten it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CloudClient, type Workflow } from '../src/index.js';
import { RunQueue } from '../src/queue/index.js';
import { encodePng, startSimulator } from '../src/testing/index.js';
import { startRedis } from '../test/queue/redis-server.js';
import { killWorkers, startWorker, type WorkerProcess } from '../test/queue/workers.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 10_000);
const LATENCY_RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 200);
const WORKERS = 4;
const WORKER_CONCURRENCY = 16;
const ADD_CONCURRENCY = 64;
const MEMORY_MARK = Math.min(1_000, Math.floor(RUNS / 10));
const TARGETS = { runsPerSecond: 200, addedLatencyMs: 5, memoryGrowthMb: 10 };

const redis = await startRedis({ appendfsync: 'everysec' });
const sim = await startSimulator({ stepDelayMs: 0, progressSteps: 1, accountConcurrency: WORKER_CONCURRENCY * WORKERS });
const cloudOptions = { baseUrl: sim.cloudUrl, apiKey: sim.apiKey };
const cloud = new CloudClient(cloudOptions);
const { name: image } = await cloud.files.upload(encodePng(8, 8, [10, 200, 90]), { filename: 'bench.png' });
/** Two instant nodes: the image uploaded once, saved under a prefix each run sets (no run is a cache hit). */
const workflow: Workflow = {
  '1': { class_type: 'LoadImage', inputs: { image } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'bench' } },
};
// BENCH_WORKER_NODE_OPTIONS: Node options for the worker processes (e.g. --max-semi-space-size=4, see docs/queue.md).
const workerEnv = (queue: string, concurrency: number) => ({ ...(process.env.BENCH_WORKER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS } : {}), GC_REDIS_URL: redis.url, GC_QUEUE: queue, GC_CLOUD_URL: sim.cloudUrl, GC_API_KEY: sim.apiKey, GC_CONCURRENCY: String(concurrency), GC_LOCK_MS: '30000', GC_STALLED_MS: '30000' });

function commandCalls(): number {
  const text = execFileSync('redis-cli', ['-p', String(redis.port), 'INFO', 'commandstats'], { encoding: 'utf8' });
  return [...text.matchAll(/calls=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
}

/** CPU seconds of a process so far (user + system), from /proc (clock ticks of 1/100 s). */
function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds Redis has used (INFO cpu). */
function redisCpuSeconds(): number {
  const text = execFileSync('redis-cli', ['-p', String(redis.port), 'INFO', 'cpu'], { encoding: 'utf8' });
  return Number(/used_cpu_user:([\d.]+)/.exec(text)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(text)?.[1]);
}

/** A worker's heap after a full collection and its resident size, in MB (it answers SIGUSR2). */
async function memoryOf(worker: WorkerProcess): Promise<{ heapMb: number; rssMb: number }> {
  const from = worker.lines.length;
  worker.child.kill('SIGUSR2');
  const line = await worker.waitFor((l) => l.memory !== undefined && worker.lines.indexOf(l) >= from);
  return line.memory as { heapMb: number; rssMb: number };
}
const memories = (workers: WorkerProcess[]) => Promise.all(workers.map(memoryOf));

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const quantile = (values: number[], q: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? Number.NaN;

try {
  // Phase 1: the latency the queue adds to one run.
  const latencyQueue = new RunQueue({ connection: redis.url, name: 'bench-latency', cloud: cloudOptions });
  await startWorker(workerEnv('bench-latency', 1));
  const direct: number[] = [];
  const queued: number[] = [];
  for (let i = 0; i < LATENCY_RUNS + 10; i++) {
    const inputs = { '2.filename_prefix': `lat${i}` };
    let t0 = performance.now();
    await cloud.runWorkflow(workflow, { inputs, validate: false });
    const d = performance.now() - t0;
    t0 = performance.now();
    await (await latencyQueue.add({ workflow, inputs: { '2.filename_prefix': `latq${i}` } })).result();
    const q = performance.now() - t0;
    // The first ten warm both paths up (connections, the socket, JIT).
    if (i >= 10) {
      direct.push(d);
      queued.push(q);
    }
  }
  await latencyQueue.close();
  await killWorkers();

  // Phase 2: throughput, Redis commands, memory.
  const queue = new RunQueue({ connection: redis.url, name: 'bench-throughput', cloud: cloudOptions });
  const workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(workerEnv('bench-throughput', WORKER_CONCURRENCY))));
  const memoryAtStart = await memories(workers);
  const callsBefore = commandCalls();
  const cpuBefore = { workers: workers.map((w) => cpuSeconds(w.child.pid)), redis: redisCpuSeconds(), self: process.cpuUsage() };
  const started = performance.now();
  let next = 0;
  const adding = Promise.all(
    Array.from({ length: ADD_CONCURRENCY }, async () => {
      while (next < RUNS) {
        const i = next++;
        await queue.add({ workflow, inputs: { '2.filename_prefix': `t${i}` } });
      }
    }),
  );
  let memoryAtMark: { heapMb: number; rssMb: number }[] | undefined;
  let memoryAtHalf: { heapMb: number; rssMb: number }[] | undefined;
  let completed = 0;
  let failed = 0;
  while (completed + failed < RUNS) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    ({ completed, failed } = (await queue.status()).counts);
    if (!memoryAtMark && completed >= MEMORY_MARK) memoryAtMark = await memories(workers);
    if (!memoryAtHalf && completed >= RUNS / 2) memoryAtHalf = await memories(workers);
  }
  await adding;
  const seconds = (performance.now() - started) / 1000;
  const commands = commandCalls() - callsBefore;
  const selfCpu = process.cpuUsage(cpuBefore.self);
  const cpu = {
    workers: workers.reduce((sum, w, i) => sum + cpuSeconds(w.child.pid) - cpuBefore.workers[i]!, 0),
    redis: redisCpuSeconds() - cpuBefore.redis,
    // The simulator and the producer (adds, status reads) share this process.
    self: (selfCpu.user + selfCpu.system) / 1e6,
  };
  const cpuMsPerRun = ((cpu.workers + cpu.redis + cpu.self) * 1000) / RUNS;
  const cores = (await import('node:os')).cpus().length;
  const memoryAtEnd = await memories(workers);
  await queue.close();

  const added = median(queued) - median(direct);
  const rate = RUNS / seconds;
  const mark = memoryAtMark ?? memoryAtStart;
  const heapGrowth = memoryAtEnd.map((m, i) => m.heapMb - mark[i]!.heapMb);
  const rssGrowth = memoryAtEnd.map((m, i) => m.rssMb - mark[i]!.rssMb);
  const half = memoryAtHalf ?? mark;
  const lateHeap = Math.max(...memoryAtEnd.map((m, i) => m.heapMb - half[i]!.heapMb));
  const lateRss = Math.max(...memoryAtEnd.map((m, i) => m.rssMb - half[i]!.rssMb));
  const yes = (ok: boolean): string => (ok ? 'yes' : 'no');
  console.log('| metric | value | target | met |');
  console.log('|---|---|---|---|');
  console.log(`| direct \`runWorkflow\`, median (p90) | ${median(direct).toFixed(1)} ms (${quantile(direct, 0.9).toFixed(1)}) | | |`);
  console.log(`| through the queue (add → result), median (p90) | ${median(queued).toFixed(1)} ms (${quantile(queued, 0.9).toFixed(1)}) | | |`);
  console.log(`| added latency per run, median, ${LATENCY_RUNS} runs | ${added.toFixed(1)} ms | ≤ ${TARGETS.addedLatencyMs} ms | ${yes(added <= TARGETS.addedLatencyMs)} |`);
  console.log(`| runs end to end, ${WORKERS} workers × ${WORKER_CONCURRENCY} | ${RUNS} in ${seconds.toFixed(1)} s (${failed} failed) | | |`);
  console.log(`| runs per second | ${rate.toFixed(0)} | ≥ ${TARGETS.runsPerSecond} | ${yes(rate >= TARGETS.runsPerSecond)} |`);
  console.log(`| Redis commands per run (all clients) | ${(commands / RUNS).toFixed(1)} | | |`);
  console.log(`| CPU per run: workers / Redis / simulator and producer | ${((cpu.workers * 1000) / RUNS).toFixed(2)} / ${((cpu.redis * 1000) / RUNS).toFixed(2)} / ${((cpu.self * 1000) / RUNS).toFixed(2)} ms | | |`);
  console.log(`| runs per second the CPU allows on ${cores} idle cores (${cores} × 1000 ms ÷ ${cpuMsPerRun.toFixed(2)} ms per run) | ${((cores * 1000) / cpuMsPerRun).toFixed(0)} | ≥ ${TARGETS.runsPerSecond} | ${yes((cores * 1000) / cpuMsPerRun >= TARGETS.runsPerSecond)} |`);
  const trio = (pick: (m: { heapMb: number; rssMb: number }) => number) => workers.map((_, i) => `${pick(memoryAtStart[i]!).toFixed(0)}/${memoryAtMark ? pick(memoryAtMark[i]!).toFixed(0) : '?'}/${pick(memoryAtEnd[i]!).toFixed(0)}`).join(', ');
  console.log(`| worker heap after a full GC at start / after ${MEMORY_MARK} runs / at the end | ${trio((m) => m.heapMb)} MB | | |`);
  console.log(`| worker RSS at start / after ${MEMORY_MARK} runs / at the end | ${trio((m) => m.rssMb)} MB | | |`);
  console.log(`| worst worker growth after ${MEMORY_MARK} runs: heap after GC (what it keeps) | ${Math.max(...heapGrowth).toFixed(1)} MB | ≤ ${TARGETS.memoryGrowthMb} MB | ${yes(Math.max(...heapGrowth) <= TARGETS.memoryGrowthMb)} |`);
  console.log(`| worst worker growth after ${MEMORY_MARK} runs: RSS | ${Math.max(...rssGrowth).toFixed(1)} MB | ≤ ${TARGETS.memoryGrowthMb} MB | ${yes(Math.max(...rssGrowth) <= TARGETS.memoryGrowthMb)} |`);
  console.log(`| worst worker growth over the second half (run ${RUNS / 2} to ${RUNS}): heap after GC / RSS | ${lateHeap.toFixed(1)} / ${lateRss.toFixed(1)} MB | ≤ ${TARGETS.memoryGrowthMb} MB | ${yes(lateHeap <= TARGETS.memoryGrowthMb && lateRss <= TARGETS.memoryGrowthMb)} |`);
  console.log(`| machine | ${cores} cores, load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)} at the end (other processes share it) | | |`);
} finally {
  await killWorkers();
  await cloud.close();
  await sim.close();
  await redis.stop();
}
