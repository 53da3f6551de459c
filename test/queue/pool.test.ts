// Guarantee 5: a pool of local runtimes, one worker per runtime URL. A runtime that stops
// answering pauses its worker, which probes it and resumes; the runs it had not submitted go to
// the others; a run lost with its local runtime is submitted again elsewhere (free there).
import { afterEach, describe, expect, it } from 'vitest';
import type { JobResult } from '../../src/index.js';
import { RunQueue } from '../../src/queue/index.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { startRedis, type TestRedis } from './redis-server.js';
import { PHOTO, reach } from './setup.js';
import { killWorkers, startWorker } from './workers.js';

let redis: TestRedis | undefined;
let queue: RunQueue | undefined;
const sims: Simulator[] = [];
afterEach(async () => {
  await killWorkers();
  await queue?.close();
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
  await redis?.stop();
  queue = redis = undefined;
});

/** A local runtime with the photo the workflow loads (a pool's runtimes share their inputs). */
async function runtime(port = 0): Promise<Simulator> {
  const sim = await startSimulator({ runtime: 'local', stepDelayMs: 40, port });
  sims.push(sim);
  const form = new FormData();
  form.set('image', new Blob([Uint8Array.from(PHOTO)], { type: 'image/png' }), 'photo.png');
  await fetch(`${sim.cloudUrl}/api/upload/image`, { method: 'POST', body: form });
  return sim;
}

const workflow = (width: number) => ({
  '1': { class_type: 'LoadImage', inputs: { image: 'photo.png' } },
  '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width, height: 0, crop: 'disabled' } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: `pool${width}` } },
});

const prompts = (sim: Simulator) => sim.state.requests.filter((r) => r.method === 'POST' && r.path === '/api/prompt').length;

describe('RunWorker pool of local runtimes', { timeout: 60_000 }, () => {
  it('a runtime that stops answering pauses its worker; its runs go to the other runtime; it resumes when the runtime is back', async () => {
    redis = await startRedis();
    const [a, b] = [await runtime(), await runtime()];
    const name = 'pool';
    queue = new RunQueue({ connection: redis.url, name });
    const env = { GC_REDIS_URL: redis.url, GC_QUEUE: name, GC_PROBE_MS: '150', GC_CONCURRENCY: '1' };
    const workerA = await startWorker({ ...env, GC_RUNTIME_URL: a.cloudUrl });
    const port = Number(new URL(a.cloudUrl).port);
    await a.close();
    const first = await queue.add({ workflow: workflow(16) });
    await workerA.waitFor((line) => String(line.log).includes('does not answer: paused, probing'));
    await startWorker({ ...env, GC_RUNTIME_URL: b.cloudUrl });
    const rest = await Promise.all([17, 18, 19].map((width) => queue!.add({ workflow: workflow(width) })));
    const results = (await Promise.all([first, ...rest].map((run) => run.result()))) as JobResult[];
    expect(results.map((result) => result.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(b.state.jobs().map((job) => job.id).sort()).toEqual(results.map((result) => result.promptId).sort());
    expect(prompts(a)).toBe(0);
    await runtime(port);
    await workerA.waitFor((line) => String(line.log).includes('answers again: resumed'));
  });

  it('a run lost with its local runtime mid-run is submitted again on another runtime', async () => {
    redis = await startRedis();
    const [a, b] = [await runtime(), await runtime()];
    const name = 'pool-lost';
    queue = new RunQueue({ connection: redis.url, name });
    const env = { GC_REDIS_URL: redis.url, GC_QUEUE: name, GC_PROBE_MS: '150', GC_CONCURRENCY: '1' };
    const workerA = await startWorker({ ...env, GC_RUNTIME_URL: a.cloudUrl });
    const run = await queue.add({ workflow: workflow(20) }, { id: 'lost-with-runtime' });
    await reach(queue, run.id, 'running');
    const lost = (await queue.get(run.id))?.promptId;
    await a.close();
    await workerA.waitFor((line) => String(line.log).includes(`run ${run.id}: handed back (runtime-down)`));
    await startWorker({ ...env, GC_RUNTIME_URL: b.cloudUrl });
    const result = (await run.result()) as JobResult;
    expect(result.status).toBe('completed');
    expect(result.promptId).not.toBe(lost);
    expect(b.state.jobs().map((job) => job.id)).toEqual([result.promptId]);
    expect(await queue.get(run.id)).toMatchObject({ state: 'completed', runtime: b.cloudUrl });
  });
});
