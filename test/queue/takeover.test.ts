// A run whose worker lost its hold (its BullMQ lock lapsed in a Redis outage or a stall) while
// another took it over: the first sends nothing once its hold is gone, and the one that took over
// a run marked "submitting" waits out the recovery window instead of ending it `unknown` while the
// first may still be sending. processRun() on real BullMQ jobs, real Redis, the simulator.
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { CloudClient, type JobResult } from '../../src/index.js';
import type { SimulatorOptions } from '../../src/testing/index.js';
import { QUEUE_DEFAULTS } from '../../src/queue/index.js';
import { processRun, RUN_TAG, type ProcessDeps, type RunControl } from '../../src/queue/process-run.js';
import { RunStore } from '../../src/queue/store.js';
import { photoRun, reach, startWorld, type QueueWorld } from './setup.js';

let world: QueueWorld | undefined;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await world?.close();
  world = undefined;
});

/** A BullMQ worker that takes jobs by hand (no processor), and what processRun() needs. */
async function setUp(recoverWindowMs: number, options: SimulatorOptions = {}) {
  world = await startWorld({ stepDelayMs: 5, ...options });
  const { redis: server, sim, name } = world;
  const prefix = QUEUE_DEFAULTS.prefix;
  const redis = new Redis(server.url, { maxRetriesPerRequest: null });
  const cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, runtime: 'cloud', watcher: { poll: { silenceMs: 500 } } });
  const taker = new Worker(name, null, { connection: { url: server.url, maxRetriesPerRequest: null }, prefix });
  closers.push(() => cloud.close(), async () => redis.disconnect(), () => taker.close());
  const logs: string[] = [];
  const deps: ProcessDeps = {
    cloud,
    proxy: undefined,
    runtime: cloud.baseUrl,
    local: false,
    store: new RunStore(redis, prefix, name, 60),
    publish: async () => undefined,
    pauseQueue: async () => undefined,
    runtimeDown: () => undefined,
    progressIntervalMs: 50,
    recoverScanLimit: 500,
    submitTimeoutMs: 10_000,
    recoverWindowMs,
    log: (line) => logs.push(line),
  };
  const control = (): RunControl => ({ signal: new AbortController().signal, cancel: () => undefined });
  const lockKey = (id: string) => `${prefix}:${name}:${id}:lock`;
  return { redis, cloud, taker, deps, control, lockKey, logs };
}

describe('RunWorker: a hold lost to another worker', { timeout: 60_000 }, () => {
  it('a worker whose lock lapsed before it sent marks nothing and sends nothing', async () => {
    const { redis, taker, deps, control, lockKey } = await setUp(60_000);
    await world!.queue.add(photoRun(), { id: 'lapsed' });
    const job = (await taker.getNextJob('first-token')) as Job;
    expect(job.id).toBe('lapsed');
    // Its lock lapsed (a Redis outage) and another worker holds the run now.
    await redis.set(lockKey('lapsed'), 'second-token', 'PX', 30_000);
    const error = await processRun(deps, job, 'first-token', control()).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: 'LostHoldError' });
    expect(world!.submissions()).toBe(0);
    // The run is as it was: the worker holding it now sends it, once.
    expect(await world!.queue.get('lapsed')).toMatchObject({ state: 'queued' });
  });

  it('a run marked submitting moments ago and not found yet is put back, delayed, then found and watched: one submission', async () => {
    const { redis, cloud, taker, deps, control, lockKey } = await setUp(60_000);
    const run = photoRun();
    await world!.queue.add(run, { id: 'in-flight' });
    const first = (await taker.getNextJob('first-token')) as Job;
    // The first worker marked it and is sending; its lock lapsed and the second takes it over.
    const marked = { ...first.data, stage: { state: 'submitting', since: Date.now(), runtime: cloud.baseUrl, local: false } };
    await first.updateData(marked);
    await redis.set(lockKey('in-flight'), 'second-token', 'PX', 30_000);
    const taken = first;
    const error = await processRun(deps, taken, 'second-token', control()).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: 'DelayedError' });
    expect(await taken.getState()).toBe('delayed');
    expect(await world!.queue.get('in-flight')).not.toMatchObject({ state: 'unknown' });
    // The first worker's request lands now: the job exists, tagged with the run.
    const { promptId } = await cloud.jobs.submit((marked.work as { workflow: never }).workflow, { extraData: { [RUN_TAG]: 'in-flight' } });
    await taken.promote();
    const third = (await taker.getNextJob('third-token')) as Job;
    expect(third.id).toBe('in-flight');
    const result = (await processRun(deps, third, 'third-token', control())) as JobResult;
    expect(result).toMatchObject({ status: 'completed', promptId });
    expect(world!.submissions()).toBe(1);
  });

  it('after the recovery window, a run still not found ends unknown and is never sent', async () => {
    const { redis, cloud, taker, deps, control, lockKey } = await setUp(1);
    await world!.queue.add(photoRun(), { id: 'never-sent' });
    const first = (await taker.getNextJob('first-token')) as Job;
    await first.updateData({ ...first.data, stage: { state: 'submitting', since: Date.now() - 10, runtime: cloud.baseUrl, local: false } });
    await redis.set(lockKey('never-sent'), 'second-token', 'PX', 30_000);
    const error = await processRun(deps, first, 'second-token', control()).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: 'UnrecoverableError' });
    expect(await world!.queue.get('never-sent')).toMatchObject({ error: { name: 'RunUnknownError' } });
    expect(world!.submissions()).toBe(0);
  });
});

describe('RunWorker: the check before sending', { timeout: 60_000 }, () => {
  it('a catalog read that times out puts the run back in line, unmarked and never sent (it used to fail the run)', async () => {
    const { taker, deps, control } = await setUp(60_000);
    world!.sim.faults.failRequests({ path: /object_info/, method: 'GET', delayMs: 30_000, times: 1 });
    await world!.queue.add(photoRun(), { id: 'slow-catalog' });
    const job = (await taker.getNextJob('first-token')) as Job;
    const error = await processRun({ ...deps, submitTimeoutMs: 300 }, job, 'first-token', control()).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: 'WaitingError' });
    expect(await world!.queue.get('slow-catalog')).toMatchObject({ state: 'queued' });
    expect(world!.submissions()).toBe(0);
  });
});

describe('RunWorker: a Redis outage while a run is being sent', { timeout: 60_000 }, () => {
  it('the lock lapses while the request is in flight: the worker that takes the run over waits, then watches the job the first created; one submission', async () => {
    world = await startWorld({ stepDelayMs: 20 });
    // The request is held 4 s before the simulator reads it; Redis is down 2.5 s meanwhile (the lock lasts 1.5 s).
    world.sim.faults.failRequests({ path: '/api/prompt', method: 'POST', delayMs: 4_000, times: 1 });
    const env = { GC_RECOVER_MS: '8000' };
    const first = await world.worker(env);
    const second = await world.worker(env);
    const run = await world.queue.add(photoRun(), { id: 'sent-through-outage' });
    await reach(world.queue, run.id, 'submitting');
    await world.redis.restart(2_500);
    const result = (await run.result()) as JobResult;
    expect(result.status).toBe('completed');
    expect(world.submissions()).toBe(1);
    expect(world.sim.state.jobs().map((job) => job.id)).toEqual([result.promptId]);
    const logs = [...first.lines, ...second.lines].map((line) => String(line.log));
    expect(logs.some((line) => line.includes('looking again at the end of the recovery window'))).toBe(true);
  });
});

describe('RunWorker: the search for a submission whose answer was lost', { timeout: 60_000 }, () => {
  it('reads the jobs nearest the mark first: jobs created after it, beyond the read bound, do not hide the tagged one', async () => {
    const { redis, cloud, taker, deps, control, lockKey } = await setUp(60_000);
    await world!.queue.add(photoRun(), { id: 'busy-account' });
    const first = (await taker.getNextJob('first-token')) as Job;
    const since = Date.now();
    await first.updateData({ ...first.data, stage: { state: 'submitting', since, runtime: cloud.baseUrl, local: false } });
    const workflow = (first.data as { work: { workflow: never } }).work.workflow;
    const { promptId } = await cloud.jobs.submit(workflow, { extraData: { [RUN_TAG]: 'busy-account' } });
    // The account goes on: more jobs than the taking-over worker reads, all after the tagged one.
    for (let i = 0; i < 8; i += 1) await cloud.jobs.submit(workflow, { extraData: { [RUN_TAG]: `other-${i}` } });
    await redis.set(lockKey('busy-account'), 'second-token', 'PX', 30_000);
    const result = (await processRun({ ...deps, recoverScanLimit: 4 }, first, 'second-token', control())) as JobResult;
    expect(result).toMatchObject({ status: 'completed', promptId });
    expect(world!.submissions()).toBe(9);
  });

  it('finds a job created before the mark by the worker\'s clock (ahead of the server\'s), still pending behind the account\'s limit', async () => {
    const { redis, cloud, taker, deps, control, lockKey } = await setUp(60_000, { accountConcurrency: 1, stepDelayMs: 40 });
    await world!.queue.add(photoRun(), { id: 'pending' });
    const first = (await taker.getNextJob('first-token')) as Job;
    const workflow = (first.data as { work: { workflow: never } }).work.workflow;
    // A job of the account holds its one place; the run's job waits, pending, behind it.
    await cloud.jobs.submit(workflow);
    const { promptId } = await cloud.jobs.submit(workflow, { extraData: { [RUN_TAG]: 'pending' } });
    expect((await cloud.jobs.get(promptId))?.status).toBe('pending');
    // The worker that marked it has a clock 60 s ahead: the job reads as created a minute before the mark.
    await first.updateData({ ...first.data, stage: { state: 'submitting', since: Date.now() + 60_000, runtime: cloud.baseUrl, local: false } });
    await redis.set(lockKey('pending'), 'second-token', 'PX', 30_000);
    const result = (await processRun(deps, first, 'second-token', control())) as JobResult;
    expect(result).toMatchObject({ status: 'completed', promptId });
    expect(world!.submissions()).toBe(2);
  });
});
