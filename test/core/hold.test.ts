import { afterEach, describe, expect, it, vi } from 'vitest';
import { HoldBuffer } from '../../src/core/index.js';

type Frame = string | Uint8Array;

/** A buffer of socket frames, each counting its length, with take() giving the frames (none: []). */
function buffer(bounds: { maxBytes: number; maxAgeMs: number }) {
  const hold = new HoldBuffer<Frame>({ ...bounds, maxPreviewBytes: bounds.maxBytes });
  return {
    add: (promptId: string, frame: Frame) => hold.add(promptId, frame, typeof frame === 'string' ? frame.length : frame.byteLength),
    take: (promptId: string) => hold.take(promptId)?.items ?? [],
    get bytes() {
      return hold.bytes;
    },
    get prompts() {
      return hold.prompts;
    },
    get dropped() {
      return hold.dropped;
    },
  };
}

describe('HoldBuffer (the relay\'s socket and the watcher hold with it)', () => {
  afterEach(() => vi.useRealTimers());

  it('hands held messages out once, oldest first', () => {
    const hold = buffer({ maxBytes: 1_000, maxAgeMs: 1_000 });
    hold.add('p', 'a');
    hold.add('q', 'x');
    hold.add('p', 'b');
    expect(hold.take('p')).toEqual(['a', 'b']);
    expect(hold.take('p')).toEqual([]);
    expect(hold.bytes).toBe(1);
  });

  it('is bounded in bytes: the oldest job goes first, a lone job keeps its latest messages', () => {
    const hold = buffer({ maxBytes: 10, maxAgeMs: 60_000 });
    hold.add('old', '12345');
    hold.add('new', '123456');
    expect(hold.take('old')).toEqual([]);
    for (const frame of ['aaaa', 'bbbb', 'cccc']) hold.add('new', frame);
    expect(hold.bytes).toBeLessThanOrEqual(10);
    expect(hold.take('new')).toEqual(['bbbb', 'cccc']);
    expect(hold.dropped).toBe(3);
  });

  it('counts the bytes of binary frames', () => {
    const hold = buffer({ maxBytes: 10, maxAgeMs: 1_000 });
    hold.add('p', new Uint8Array(6));
    hold.add('p', new Uint8Array(6));
    expect(hold.bytes).toBe(6);
    expect(hold.take('p')).toEqual([new Uint8Array(6)]);
  });

  it('is bounded in age', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const hold = buffer({ maxBytes: 1_000, maxAgeMs: 1_000 });
    hold.add('p', 'a');
    vi.setSystemTime(Date.now() + 2_000);
    hold.add('q', 'b');
    expect(hold.prompts).toBe(1);
    expect(hold.take('p')).toEqual([]);
    vi.setSystemTime(Date.now() + 2_000);
    expect(hold.take('q')).toEqual([]);
  });
});
