// Guarantee 4: cancel from anywhere.
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { QUEUE_DEFAULTS, RunFailedError, RunQueue } from '../../src/queue/index.js';
import { PHOTO, photoRun, reach, startWorld, until, type QueueWorld } from './setup.js';

let world: QueueWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('RunQueue.cancel()', { timeout: 60_000 }, () => {
  it('removes a queued run: it is never submitted, and reads as cancelled', async () => {
    world = await startWorld();
    const doomed = await world.queue.add(photoRun(16), { id: 'doomed' });
    expect(await world.queue.cancel('doomed')).toEqual({ runId: 'doomed', action: 'removed', state: 'queued' });
    await world.worker();
    await (await world.queue.add(photoRun(17), { id: 'kept' })).result();
    const error = await doomed.result().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(RunFailedError);
    expect(error).toMatchObject({ runId: 'doomed', state: 'cancelled' });
    expect(await world.queue.get('doomed')).toMatchObject({ state: 'cancelled', promptId: undefined });
    expect(world.submissions()).toBe(1);
  });

  it('cancels a running run from another process: its cloud job is cancelled once, by the worker that holds it', async () => {
    world = await startWorld({ stepDelayMs: 150 });
    await world.worker();
    const run = await world.queue.add(photoRun(), { id: 'running' });
    await reach(world.queue, run.id, 'running');
    await using elsewhere = new RunQueue({ connection: world.redis.url, name: world.name });
    expect(await elsewhere.cancel('running')).toMatchObject({ action: 'requested', state: 'running' });
    expect(await elsewhere.cancel('running')).toMatchObject({ action: 'requested' });
    const error = await run.result().then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: 'RunFailedError', state: 'cancelled' });
    const { promptId } = (await world.queue.get('running')) ?? {};
    // The simulator sends execution_interrupted before it writes the job's status: wait for it to settle.
    await until(() => world!.sim.state.jobs().every((job) => job.status !== 'in_progress'));
    expect(world.sim.state.jobs()).toEqual([expect.objectContaining({ id: promptId, status: 'cancelled' })]);
    const cancels = world.sim.state.requests.filter((r) => r.method === 'POST' && r.path === `/api/jobs/${promptId}/cancel`);
    expect(cancels).toHaveLength(1);
    expect(world.submissions()).toBe(1);
  });

  it('cancels a running run whose cancel message the worker missed (its connection dropped): it reads the request when it reconnects', async () => {
    world = await startWorld({ stepDelayMs: 400 });
    await world.worker();
    const run = await world.queue.add(photoRun(), { id: 'missed' });
    await reach(world.queue, run.id, 'running');
    // The request is stored, its message lost: the flag alone, then the workers' channel connections drop.
    const redis = new Redis(world.redis.url);
    await redis.set(`${QUEUE_DEFAULTS.prefix}:${world.name}:gc:cancel:missed`, String(Date.now()), 'EX', 60);
    expect(await redis.client('KILL', 'TYPE', 'pubsub')).toBeGreaterThan(0);
    redis.disconnect();
    const error = await run.result().then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: 'RunFailedError', state: 'cancelled' });
    const { promptId } = (await world.queue.get('missed')) ?? {};
    expect(world.sim.state.requests.filter((r) => r.method === 'POST' && r.path === `/api/jobs/${promptId}/cancel`)).toHaveLength(1);
    expect(world.submissions()).toBe(1);
  });

  it('cancels a run whose worker died: the worker that takes it over cancels its cloud job once', async () => {
    world = await startWorld({ stepDelayMs: 100 });
    // A long job of the account runs first: the run's job waits pending behind it (one at a time).
    await blocker(world);
    const first = await world.worker();
    const run = await world.queue.add(photoRun(), { id: 'orphan' });
    await reach(world.queue, run.id, 'running');
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await world.queue.cancel('orphan')).toMatchObject({ action: 'requested', state: 'running' });
    await world.worker();
    const error = await run.result().then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: 'RunFailedError', state: 'cancelled' });
    const { promptId } = (await world.queue.get('orphan')) ?? {};
    expect(world.sim.state.jobs().find((job) => job.id === promptId)?.status).toBe('cancelled');
    expect(world.sim.state.requests.filter((r) => r.method === 'POST' && r.path === `/api/jobs/${promptId}/cancel`)).toHaveLength(1);
    expect(world.submissions()).toBe(2);
  });
});

/** Submits, straight to the simulator, a job of 40 nodes that keeps the account busy for a while. */
async function blocker(w: QueueWorld): Promise<void> {
  const form = new FormData();
  form.set('image', new Blob([Uint8Array.from(PHOTO)], { type: 'image/png' }), 'blocker.png');
  await fetch(`${w.sim.cloudUrl}/api/upload/image`, { method: 'POST', headers: { 'X-API-Key': w.sim.apiKey }, body: form });
  const prompt: Record<string, unknown> = { '0': { class_type: 'LoadImage', inputs: { image: 'blocker.png' } } };
  for (let i = 1; i <= 40; i += 1) prompt[String(i)] = { class_type: 'ImageInvert', inputs: { image: [String(i - 1), 0] } };
  prompt['41'] = { class_type: 'SaveImage', inputs: { images: ['40', 0], filename_prefix: 'blocker' } };
  const answer = await fetch(`${w.sim.cloudUrl}/api/prompt`, { method: 'POST', headers: { 'X-API-Key': w.sim.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ prompt }) });
  expect(answer.status).toBe(200);
}
