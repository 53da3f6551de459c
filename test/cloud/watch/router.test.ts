import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WatchEvent } from '../../../src/index.js';
import type { WatcherStats } from '../../../src/cloud/watch/events.js';
import type { RouterOptions, TerminalEnd } from '../../../src/cloud/watch/router.js';
import { RouterFeed } from '../../helpers/router-feed.js';
import { encodePreview, encodePreviewWithMetadata, encodeText } from '../../../src/testing/cloud/frames.js';

const stats = (): WatcherStats => ({ received: 0, ignored: 0, held: 0, dropped: 0, heldBytes: 0, connections: 0, polls: 0, unattributedPrices: 0 });
const msg = (type: string, data: Record<string, unknown>) => JSON.stringify({ type, data });

// Bounds in bytes, sized from the frames the tests send (about 60 bytes each).
const FRAME = msg('execution_start', { prompt_id: 'new' }).length;
function setup(bounds: Partial<RouterOptions['hold']> = {}) {
  const hold = { maxBytes: 100 * FRAME, maxPreviewBytes: 1_000, maxAgeMs: 1_000, ...bounds };
  const ends: [string, TerminalEnd][] = [];
  const counters = stats();
  const router = new RouterFeed({ hold, stats: counters });
  const watch = (id: string) => {
    const events: WatchEvent[] = [];
    const seen = router.follow(id, { event: (e) => events.push(e), end: (end) => ends.push([id, end]) });
    router.drain(id);
    return { seen, events };
  };
  return { router, ends, counters, watch };
}

beforeEach(() => vi.useFakeTimers({ toFake: ['Date'] }));
afterEach(() => vi.useRealTimers());

describe('JobRouter: the hold buffer', () => {
  it('delivers held messages once the prompt is watched and reports a whole run', () => {
    const { router, ends, watch } = setup();
    router.handleText(msg('execution_start', { prompt_id: 'p' }));
    router.handleText(msg('execution_success', { prompt_id: 'p' }));
    const { events } = watch('p');
    expect(events.map((e) => e.type)).toEqual(['execution_start', 'execution_success']);
    expect(ends).toEqual([['p', { status: 'completed', wholeRun: true, verify: false }]]);
  });

  it('is bounded in bytes: the oldest prompts go first', () => {
    const { router, counters, watch } = setup({ maxBytes: 3 * FRAME + 45, maxAgeMs: 60_000 });
    router.handleText(msg('execution_start', { prompt_id: 'old' }));
    router.handleText(msg('execution_start', { prompt_id: 'mid' }));
    router.handleText(msg('execution_start', { prompt_id: 'new' }));
    router.handleText(msg('progress', { prompt_id: 'new', value: 1, max: 2 }));
    expect(counters.dropped).toBe(1);
    expect(router.heldBytes).toBeLessThanOrEqual(3 * FRAME + 45);
    expect(watch('old').events).toEqual([]);
    expect(watch('new').events.map((e) => e.type)).toEqual(['execution_start', 'progress']);
  });

  it('keeps the latest messages of one prompt that alone exceeds the bound, and marks the gap', () => {
    const { router, ends, watch } = setup({ maxBytes: msg('executed', { prompt_id: 'p', node: '1', output: { a: [1] } }).length + msg('execution_success', { prompt_id: 'p' }).length, maxAgeMs: 60_000 });
    router.handleText(msg('execution_start', { prompt_id: 'p' }));
    router.handleText(msg('executed', { prompt_id: 'p', node: '1', output: { a: [1] } }));
    router.handleText(msg('execution_success', { prompt_id: 'p' }));
    const { events, seen } = watch('p');
    expect(events.map((e) => e.type)).toEqual(['executed', 'execution_success']);
    expect(seen.gap).toBe(true);
    expect(ends[0]?.[1]).toMatchObject({ status: 'completed', wholeRun: false });
  });

  it('is bounded in time: messages older than maxAgeMs are dropped', () => {
    const { router, counters, watch } = setup({ maxBytes: 100 * FRAME, maxAgeMs: 1_000 });
    router.handleText(msg('execution_start', { prompt_id: 'stale' }));
    vi.advanceTimersByTime(1_001);
    router.handleText(msg('execution_start', { prompt_id: 'fresh' }));
    expect(counters.dropped).toBe(1);
    expect(watch('stale').events).toEqual([]);
    expect(watch('fresh').events).toHaveLength(1);
  });

  it('marks a run seen across a disconnect as not whole', () => {
    const { router, ends, watch } = setup();
    watch('p');
    router.handleText(msg('execution_start', { prompt_id: 'p' }));
    router.disconnected();
    router.handleText(msg('execution_success', { prompt_id: 'p' }));
    expect(ends[0]?.[1]).toMatchObject({ wholeRun: false });
  });

  it('does not hold messages of a prompt whose watcher is gone', () => {
    const { router, counters, watch } = setup();
    watch('p');
    router.unfollow('p');
    router.handleText(msg('executing', { prompt_id: 'p', node: null }));
    expect(counters.held).toBe(0);
  });
});

describe('JobRouter: previews of a prompt nobody follows yet', () => {
  const image = new Uint8Array(400).fill(7);
  const preview = (promptId: string) => new Uint8Array(encodePreviewWithMetadata(image, { node_id: '2', prompt_id: promptId, display_node_id: '2', image_type: 'image/png' }));
  const PREVIEW = preview('p').byteLength;

  it('are held and delivered in arrival order among the other messages', () => {
    const { router, counters, watch } = setup();
    router.handleText(msg('execution_start', { prompt_id: 'p' }));
    router.handleText(msg('progress', { prompt_id: 'p', node: '2', value: 1, max: 2 }));
    router.handleBinary(preview('p'));
    router.handleBinary(new Uint8Array(encodeText('2', 'a caption'))); // type 3: the prompt that last reported activity
    router.handleText(msg('progress', { prompt_id: 'p', node: '2', value: 2, max: 2 }));
    router.handleBinary(new Uint8Array(encodePreview(image, 'png'))); // type 1: no metadata
    router.handleText(msg('execution_success', { prompt_id: 'p' }));
    expect(router.heldBytes).toBeGreaterThan(2 * image.byteLength);
    const { events } = watch('p');
    expect(events.map((e) => e.type)).toEqual(['execution_start', 'progress', 'preview', 'text', 'progress', 'preview', 'execution_success']);
    expect(events.filter((e) => e.type === 'preview').map((e) => e.data)).toEqual([
      { promptId: 'p', nodeId: '2', displayNodeId: '2', mimeType: 'image/png', data: image },
      { promptId: 'p', mimeType: 'image/png', data: image },
    ]);
    expect(router.heldBytes).toBe(0);
    expect(counters.heldBytes).toBe(0);
  });

  it('are bounded apart: a flood of previews drops the oldest previews, never the end of a run, and leaves no gap', () => {
    const { router, ends, counters, watch } = setup({ maxPreviewBytes: 2 * PREVIEW });
    router.handleText(msg('execution_start', { prompt_id: 'p' }));
    for (let i = 0; i < 10; i += 1) router.handleBinary(preview('p'));
    router.handleText(msg('execution_success', { prompt_id: 'p' }));
    expect(router.heldBytes).toBeLessThanOrEqual(100 * FRAME + 2 * PREVIEW);
    expect(counters.dropped).toBe(8);
    const { events, seen } = watch('p');
    expect(events.map((e) => e.type)).toEqual(['execution_start', 'preview', 'preview', 'execution_success']);
    expect(seen.gap).toBe(false);
    expect(ends[0]?.[1]).toMatchObject({ status: 'completed', wholeRun: true });
  });

  it('are not held for a prompt whose watcher is gone, and are freed by clear()', () => {
    const { router, counters, watch } = setup();
    watch('gone');
    router.unfollow('gone');
    router.handleBinary(preview('gone'));
    expect(counters.held).toBe(0);
    router.handleBinary(preview('later'));
    expect(router.heldBytes).toBe(preview('later').byteLength);
    router.clear();
    expect(router.heldBytes).toBe(0);
    expect(counters.heldBytes).toBe(0);
  });
});

describe('JobRouter: messages', () => {
  it('asks for verification when executing null ends a run it did not see start', () => {
    const { router, ends, watch } = setup();
    watch('p');
    router.handleText(msg('executing', { prompt_id: 'p', node: null }));
    expect(ends[0]?.[1]).toEqual({ status: 'completed', wholeRun: false, verify: true });
  });

  it('asks for verification when executing null ends a run seen whole without its end message: it closes failed runs too', () => {
    const { router, ends, watch } = setup();
    watch('p');
    router.handleText(msg('execution_start', { prompt_id: 'p' }));
    router.handleText(msg('executing', { prompt_id: 'p', node: null }));
    expect(ends[0]?.[1]).toEqual({ status: 'completed', wholeRun: true, verify: true });
  });

  it('routes an interruption as cancelled', () => {
    const { router, ends, watch } = setup();
    watch('p');
    router.handleText(msg('execution_interrupted', { prompt_id: 'p', node_id: '4', node_type: 'KSampler' }));
    expect(ends[0]?.[1]).toMatchObject({ status: 'cancelled', error: { nodeId: '4', nodeType: 'KSampler' } });
  });

  it('ignores and counts messages whose read fields have the wrong type', () => {
    const { router, counters, watch } = setup();
    const { events } = watch('p');
    router.handleText(msg('executed', { prompt_id: 'p', node: '1', output: 'not an object' }));
    router.handleText(msg('executing', { prompt_id: 'p', node: { id: 1 } }));
    router.handleText(msg('progress', { prompt_id: 42 }));
    router.handleText(msg('feature_flags', { supports_preview_metadata: true }));
    expect(events).toEqual([]);
    expect(counters.ignored).toBe(4);
  });

  it('keeps an output of a node named __proto__ as data, never as a prototype', () => {
    const { router, watch } = setup();
    const { seen } = watch('p');
    router.handleText('{"type":"executed","data":{"prompt_id":"p","node":"__proto__","output":{"polluted":[1]}}}');
    router.handleText('{"type":"executed","data":{"prompt_id":"p","node":"__proto__","output":{"__proto__":[2]}}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(seen.outputs ?? {})).toEqual(['__proto__']);
    expect(Object.hasOwn(seen.outputs?.['__proto__'] ?? {}, 'polluted')).toBe(true);
  });
});
