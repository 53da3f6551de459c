// Guarantee 3: one account, one limit; an account-level refusal pauses the queue.
import { afterEach, describe, expect, it } from 'vitest';
import { photoRun, startWorld, until, type QueueWorld } from './setup.js';

let world: QueueWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('RunQueue.setConcurrency(): one limit across every worker', { timeout: 60_000 }, () => {
  it('the cloud never sees more than n jobs of the queue at once, across two worker processes', async () => {
    // The simulated account runs 8 at once: the queue's limit is the only one.
    world = await startWorld({ stepDelayMs: 15, accountConcurrency: 8 });
    await world.queue.setConcurrency(2);
    await Promise.all([world.worker({ GC_CONCURRENCY: '4' }), world.worker({ GC_CONCURRENCY: '4' })]);
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => world!.queue.add(photoRun(16 + i))));
    await Promise.all(runs.map((run) => run.result()));
    expect(world.submissions()).toBe(8);
    expect(world.sim.state.peaks().unfinished).toBeLessThanOrEqual(2);
    expect((await world.queue.status()).concurrency).toBe(2);
  });
});

describe('RunWorker: an account-level refusal pauses the queue', { timeout: 60_000 }, () => {
  it('a 402 pauses the queue and says why, from any process; no waiting run fails; resume() runs them', async () => {
    world = await startWorld({ stepDelayMs: 5 });
    world.sim.faults.failRequests({ path: '/api/prompt', method: 'POST', status: 402, times: 1 });
    await world.queue.setConcurrency(1);
    const runs = [];
    for (let i = 0; i < 3; i += 1) runs.push(await world.queue.add(photoRun(16 + i), { id: `credits-${i}` }));
    await world.worker();
    await until(async () => (await world!.queue.getPauseReason()) !== undefined);
    const status = await world.queue.status();
    expect(status.paused).toBe(true);
    expect(status.pauseReason).toMatchObject({ kind: 'account', runId: 'credits-0', error: { name: 'InsufficientCreditsError', status: 402 } });
    await until(async () => (await world!.queue.get('credits-0'))?.state === 'queued');
    for (const run of runs) expect((await run.get())?.state).toBe('queued');
    expect(world.submissions()).toBe(1);
    await world.queue.resume();
    await Promise.all(runs.map((run) => run.result()));
    expect(await world.queue.getPauseReason()).toBeUndefined();
    expect(world.submissions()).toBe(4);
  });
});
