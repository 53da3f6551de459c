// Guarantee 4: cancel from anywhere.
import { afterEach, describe, expect, it } from 'vitest';
import { RunFailedError, RunQueue } from '../../src/queue/index.js';
import { photoRun, reach, startWorld, type QueueWorld } from './setup.js';

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
    expect(world.sim.state.jobs()).toEqual([expect.objectContaining({ id: promptId, status: 'cancelled' })]);
    const cancels = world.sim.state.requests.filter((r) => r.method === 'POST' && r.path === `/api/jobs/${promptId}/cancel`);
    expect(cancels).toHaveLength(1);
    expect(world.submissions()).toBe(1);
  });
});
