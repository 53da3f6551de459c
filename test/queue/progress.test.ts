// How a worker reports a run's progress. Its numbers are the watcher's (`watcher.progress`: the
// running node's steps count), so a run reads the same in `batch` and `batch --redis`: a real
// worker process on the simulator. How often it writes them (each write is a Redis command and an
// event every follower reads): at most once per interval, the first one an interval after the watch
// began, the last reading written when its interval is up even if no event follows, nothing for a
// run that completes sooner: ProgressWrites on fake timers; the writes are what it hands to BullMQ.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressWrites } from '../../src/queue/progress.js';
import type { RunProgress } from '../../src/queue/types.js';
import { photoRun, startWorld, type QueueWorld } from './setup.js';

describe('RunWorker: the progress of a run', { timeout: 60_000 }, () => {
  let world: QueueWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("is the watcher's: the running node's steps count in the fraction", async () => {
    world = await startWorld({ stepDelayMs: 30, progressSteps: 4 });
    const run = await world.queue.add(photoRun(), { id: 'progress' });
    const seen: RunProgress[] = [];
    const following = (async () => {
      for await (const event of run.events()) if (event.type === 'progress') seen.push(event.progress);
    })();
    await world.worker();
    await following;
    // Nodes 1, 2 and 3 run in that order: while node k runs, k - 1 are done.
    const stepped = seen.filter((p) => p.node !== undefined && p.value !== undefined && p.max !== undefined);
    expect(stepped.length).toBeGreaterThan(0);
    for (const p of stepped) expect(p.fraction).toBeCloseTo((Number(p.node) - 1 + p.value! / p.max!) / 3, 9);
  });
});

describe('ProgressWrites', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function meter() {
    const writes: RunProgress[] = [];
    const state = { current: { fraction: 0 } as RunProgress };
    const m = new ProgressWrites(250, () => state.current, async (progress) => void writes.push(progress));
    return { m, writes, state };
  }

  it('writes nothing for a run that completes within its first interval', async () => {
    const { m, writes } = meter();
    m.see();
    m.see();
    await vi.advanceTimersByTimeAsync(100);
    m.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(writes).toEqual([]);
  });

  it('writes the last reading when its interval is up, even if no event follows', async () => {
    const { m, writes, state } = meter();
    m.see();
    state.current = { fraction: 0.3, node: '2', value: 1, max: 10 };
    m.see();
    state.current = { fraction: 0.4, node: '2', value: 3, max: 10 };
    m.see();
    await vi.advanceTimersByTimeAsync(249);
    expect(writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(writes).toEqual([{ fraction: 0.4, node: '2', value: 3, max: 10 }]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(writes).toHaveLength(1);
    m.stop();
  });

  it('writes at most once per interval while events keep coming, and flush() writes what is pending', async () => {
    const { m, writes, state } = meter();
    for (let i = 1; i <= 100; i += 1) {
      state.current = { fraction: i / 100, value: i, max: 100 };
      m.see();
      await vi.advanceTimersByTimeAsync(10);
    }
    // 1,000 ms of events: a write at 250, 500, 750 and 1,000 ms at most.
    expect(writes.length).toBeGreaterThanOrEqual(3);
    expect(writes.length).toBeLessThanOrEqual(4);
    m.see();
    await m.flush();
    expect(writes.at(-1)).toMatchObject({ value: 100, max: 100 });
    const count = writes.length;
    state.current = { fraction: 0.01, value: 1, max: 100 };
    m.see();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(writes).toHaveLength(count);
  });
});
