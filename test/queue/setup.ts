// What every queue test starts: a real redis-server, the simulator on 127.0.0.1, a queue of a
// fresh name, and a workflow that needs one upload (so every run proves uploads happen at add time).
import { encodePng, startSimulator, type Simulator, type SimulatorOptions } from '../../src/testing/index.js';
import { RunQueue } from '../../src/queue/index.js';
import { startRedis, type TestRedis } from './redis-server.js';
import { killWorkers, startWorker, type WorkerProcess } from './workers.js';

export interface QueueWorld {
  redis: TestRedis;
  sim: Simulator;
  queue: RunQueue;
  name: string;
  /** Starts a worker process on this world's queue and simulator (cloud), with more environment. */
  worker(env?: Record<string, string>): Promise<WorkerProcess>;
  /** Submissions the simulator received (`POST /api/prompt`). */
  submissions(): number;
  close(): Promise<void>;
}

export async function startWorld(options: SimulatorOptions = {}): Promise<QueueWorld> {
  const redis = await startRedis();
  const sim = await startSimulator({ stepDelayMs: 5, ...options });
  const name = `q-${globalThis.crypto.randomUUID().slice(0, 8)}`;
  const queue = new RunQueue({ connection: redis.url, name, cloud: { baseUrl: sim.cloudUrl, apiKey: sim.apiKey, runtime: options.runtime ?? 'cloud' } });
  const base = { GC_REDIS_URL: redis.url, GC_QUEUE: name, ...(options.runtime === 'local' ? { GC_RUNTIME_URL: sim.cloudUrl } : { GC_CLOUD_URL: sim.cloudUrl, GC_API_KEY: sim.apiKey }) };
  return {
    redis,
    sim,
    queue,
    name,
    worker: (env = {}) => startWorker({ ...base, ...env }),
    submissions: () => sim.state.requests.filter((r) => r.method === 'POST' && r.path === '/api/prompt' && !r.internal).length,
    close: async () => {
      await killWorkers();
      await queue.close();
      await sim.close();
      await redis.stop();
    },
  };
}

/** An image to upload. */
export const PHOTO = encodePng(8, 8, [200, 40, 40]);

/** A three-node workflow whose input image is uploaded when the run is added; `width` makes runs distinct. */
export function photoRun(width = 16): { workflow: Record<string, { class_type: string; inputs: Record<string, unknown> }>; uploads: Record<string, Uint8Array> } {
  return {
    workflow: {
      '1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
      '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width, height: 0, crop: 'disabled' } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: `run${width}` } },
    },
    uploads: { '1.image': PHOTO },
  };
}

/** Resolves once the run reaches `state` (read from its events, in this process). */
export async function reach(queue: RunQueue, id: string, state: string): Promise<void> {
  for await (const event of queue.run(id).events()) if (event.type === 'state' && event.state === state) return;
  throw new Error(`run ${id} ended before reaching ${state}: ${JSON.stringify(await queue.get(id))}`);
}

/** Waits until `check` holds, reading again every 50 ms (a wait, never an assertion on time). */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50));
}
