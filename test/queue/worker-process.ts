// One RunWorker in its own process, for the queue's tests: configured by its environment only,
// it prints JSON lines (`ready`, `log`, `closed`, `memory` on SIGUSR2) and closes on SIGTERM (handing its runs back, or
// finishing them with GC_FINISH=1). The tests SIGKILL it to play a crash.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { RunWorker } from '../../src/queue/index.js';

const env = process.env;
const say = (value: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(value)}\n`);
const number = (name: string) => (env[name] === undefined ? undefined : Number(env[name]));

const worker = new RunWorker({
  connection: env.GC_REDIS_URL as string,
  name: env.GC_QUEUE as string,
  cloud: env.GC_CLOUD_URL ? { baseUrl: env.GC_CLOUD_URL, apiKey: env.GC_API_KEY, runtime: 'cloud', watcher: { poll: { silenceMs: 500 } } } : env.GC_RUNTIME_URL ? { baseUrl: env.GC_RUNTIME_URL, watcher: { poll: { silenceMs: 500 } } } : undefined,
  runtime: env.GC_RUNTIME_URL,
  proxy: env.GC_PROXY_URL ? { baseUrl: env.GC_PROXY_URL, apiKey: env.GC_API_KEY } : undefined,
  concurrency: number('GC_CONCURRENCY'),
  lockDurationMs: number('GC_LOCK_MS'),
  stalledIntervalMs: number('GC_STALLED_MS'),
  probeIntervalMs: number('GC_PROBE_MS'),
  recoverWindowMs: number('GC_RECOVER_MS'),
  progressIntervalMs: 50,
  onLog: (line) => say({ log: line }),
});
let closing = false;
process.on('SIGTERM', () => {
  if (closing) return;
  closing = true;
  void worker.close({ finish: env.GC_FINISH === '1' }).then(() => {
    say({ closed: true });
    process.exit(0);
  });
});
// The benchmark asks for this worker's memory (SIGUSR2): the heap kept after a full collection (what
// the worker retains) and the resident size (which also holds garbage not yet collected).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
process.on('SIGUSR2', () => {
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  say({ memory: { heapMb: heapUsed / 2 ** 20, rssMb: rss / 2 ** 20 } });
});
await worker.ready();
say({ ready: true, pid: process.pid });
