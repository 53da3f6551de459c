// How often a worker writes a run's progress (each write is a Redis command and an event every
// follower reads): at most once per interval, the first one an interval after the watch began, the
// last reading written when its interval is up even if no event follows, nothing for a run that
// completes sooner. ProgressMeter on fake timers; the writes are what it hands to BullMQ.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WatchEvent } from '../../src/cloud/watch/events.js';
import { ProgressMeter } from '../../src/queue/progress.js';
import type { RunProgress } from '../../src/queue/types.js';

const executing = (node: string) => ({ type: 'executing', data: { node, prompt_id: 'p' } }) as unknown as WatchEvent;
const step = (value: number, max: number) => ({ type: 'progress', data: { value, max, node: '2', prompt_id: 'p' } }) as unknown as WatchEvent;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function meter(total = 3) {
  const writes: RunProgress[] = [];
  const m = new ProgressMeter(total, 250, async (progress) => void writes.push(progress));
  return { m, writes };
}

describe('ProgressMeter', () => {
  it('writes nothing for a run that completes within its first interval', async () => {
    const { m, writes } = meter();
    m.see(executing('1'));
    m.see(executing('2'));
    await vi.advanceTimersByTimeAsync(100);
    m.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(writes).toEqual([]);
  });

  it('writes the last reading when its interval is up, even if no event follows', async () => {
    const { m, writes } = meter();
    m.see(executing('1'));
    m.see(executing('2'));
    m.see(step(3, 10));
    await vi.advanceTimersByTimeAsync(249);
    expect(writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(writes).toEqual([{ fraction: 1 / 3, node: '2', value: 3, max: 10 }]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(writes).toHaveLength(1);
    m.stop();
  });

  it('writes at most once per interval while events keep coming, and flush() writes what is pending', async () => {
    const { m, writes } = meter(1);
    for (let i = 1; i <= 100; i += 1) {
      m.see(step(i, 100));
      await vi.advanceTimersByTimeAsync(10);
    }
    // 1,000 ms of events: a write at 250, 500, 750 and 1,000 ms at most.
    expect(writes.length).toBeGreaterThanOrEqual(3);
    expect(writes.length).toBeLessThanOrEqual(4);
    m.see(step(100, 100));
    await m.flush();
    expect(writes.at(-1)).toMatchObject({ value: 100, max: 100 });
    const count = writes.length;
    m.see(step(1, 100));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(writes).toHaveLength(count);
  });
});
