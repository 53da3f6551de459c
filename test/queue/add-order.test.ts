// RunQueue.add() called for many runs at once: stored (so started) in the order it was called,
// each distinct file uploaded once. Real redis-server, the simulator on 127.0.0.1.
import { afterEach, describe, expect, it } from 'vitest';
import { encodePng } from '../../src/testing/index.js';
import { photoRun, startWorld, type QueueWorld } from './setup.js';

let world: QueueWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const uploads = (w: QueueWorld): number => w.sim.state.requests.filter((r) => r.method === 'POST' && r.path === '/api/upload/image' && !r.internal).length;

describe('RunQueue.add() of many runs at once', { timeout: 60_000 }, () => {
  it('stores them in the order add() was called, even when the first one\'s upload is the slowest', async () => {
    world = await startWorld();
    // The first upload is held 400 ms: its run is prepared last.
    world.sim.faults.failRequests({ path: '/api/upload/image', delayMs: 400, times: 1 });
    const ids = Array.from({ length: 12 }, (_, i) => `order-${i + 1}`);
    await Promise.all(ids.map((id, i) => world!.queue.add({ ...photoRun(16 + i), uploads: { '1.image': encodePng(4 + i, 4, [i, 0, 0]) } }, { id })));
    const { runs } = await world.queue.list({ state: 'queued' });
    expect(runs.map((run) => run.id)).toEqual(ids);
  });

  it('uploads a file that every run names once', async () => {
    world = await startWorld();
    const before = uploads(world);
    await Promise.all(Array.from({ length: 20 }, (_, i) => world!.queue.add(photoRun(16 + i), { id: `same-${i}` })));
    expect(uploads(world) - before).toBe(1);
    expect((await world.queue.list({ state: 'queued' })).runs).toHaveLength(20);
  });
});
