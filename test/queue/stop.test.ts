// Guarantee 6: graceful stop. worker.close() (SIGTERM here) stops taking runs and hands the runs
// in flight back with their stored ids, or finishes them with { finish: true }.
import { afterEach, describe, expect, it } from 'vitest';
import type { JobResult } from '../../src/index.js';
import { photoRun, reach, startWorld, type QueueWorld } from './setup.js';

let world: QueueWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('RunWorker.close()', { timeout: 60_000 }, () => {
  it('hands a run in flight back with its prompt id: the next worker watches it, never submits it again', async () => {
    world = await startWorld({ stepDelayMs: 120 });
    const first = await world.worker();
    const run = await world.queue.add(photoRun(), { id: 'handed-back' });
    await reach(world.queue, run.id, 'running');
    const { promptId } = (await world.queue.get(run.id)) ?? {};
    expect(await first.stop()).toBe(0);
    expect(first.lines).toContainEqual({ log: `[worker ${world.name}] run handed-back: handed back (close) with ${promptId}` });
    // Back in line with its prompt id (its job runs on, or has ended, on the cloud).
    expect(await world.queue.get(run.id)).toMatchObject({ state: 'running', promptId });
    await world.worker();
    const result = (await run.result()) as JobResult;
    expect(result).toMatchObject({ status: 'completed', promptId });
    expect(await world.queue.get(run.id)).toMatchObject({ state: 'completed', takeovers: 1 });
    expect(world.submissions()).toBe(1);
  });

  it('with finish: true, waits for the runs in flight to end before closing', async () => {
    world = await startWorld({ stepDelayMs: 60 });
    const worker = await world.worker({ GC_FINISH: '1' });
    const run = await world.queue.add(photoRun(), { id: 'finished' });
    await reach(world.queue, run.id, 'running');
    expect(await worker.stop()).toBe(0);
    expect(await world.queue.get(run.id)).toMatchObject({ state: 'completed', takeovers: 0 });
    expect(world.submissions()).toBe(1);
  });
});
