// A run whose worker is gone, as any process reads it: `queue.get()` says so (`workerLost`, with the
// most time before another worker takes it over) as soon as Redis dropped the dead worker's
// connections, and `queue.status()` counts the workers connected. Real redis-server, real worker
// processes (SIGKILL plays the crash), the simulator.
import { afterEach, describe, expect, it } from 'vitest';
import { QUEUE_DEFAULTS } from '../../src/queue/index.js';
import { photoRun, reach, startWorld, until, type QueueWorld } from './setup.js';

let world: QueueWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('a worker lost while it holds a run', { timeout: 60_000 }, () => {
  it('queue.status() counts the workers connected; queue.get() tells a run whose worker died, until another takes it over', async () => {
    world = await startWorld({ stepDelayMs: 400 });
    expect((await world.queue.status()).workers).toBe(0);
    // Its lock lasts 6 s: the run is certainly not taken over while the test reads it.
    const first = await world.worker({ GC_LOCK_MS: '6000', GC_STALLED_MS: '500' });
    expect((await world.queue.status()).workers).toBe(1);
    const run = await world.queue.add(photoRun(), { id: 'held' });
    await reach(world.queue, run.id, 'running');
    expect((await world.queue.get(run.id))?.workerLost).toBeUndefined();
    first.child.kill('SIGKILL');
    await first.exited;
    let lost: { takeoverWithinMs: number } | undefined;
    await until(async () => (lost = (await world!.queue.get(run.id))?.workerLost) !== undefined);
    expect(lost!.takeoverWithinMs).toBeGreaterThan(QUEUE_DEFAULTS.stalledIntervalMs);
    expect(lost!.takeoverWithinMs).toBeLessThanOrEqual(6_000 + QUEUE_DEFAULTS.stalledIntervalMs);
    expect((await world.queue.status()).workers).toBe(0);
    // Taken over once its lock lapsed: no longer lost, and it completes.
    await world.worker();
    expect(((await run.result()) as { status: string }).status).toBe('completed');
    expect((await world.queue.get(run.id))?.workerLost).toBeUndefined();
  });
});
