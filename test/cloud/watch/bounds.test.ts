import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../../src/index.js';
import { RouterFeed } from '../../helpers/router-feed.js';
import type { WatcherStats } from '../../../src/cloud/watch/events.js';

// The router's costs against a hostile or merely busy server: linear, and bounded in bytes.
const stats = (): WatcherStats => ({ received: 0, ignored: 0, held: 0, dropped: 0, connections: 0, polls: 0, unattributedPrices: 0, heldBytes: 0 });
const gc = (globalThis as { gc?: () => void }).gc;

describe('the hold buffer of unclaimed prompt ids', () => {
  it('is bounded in bytes: 5,000 messages of 100 KB add at most its budget, oldest dropped first (0.1.0 held 500 MB)', () => {
    gc?.();
    const before = process.memoryUsage().heapUsed;
    const s = stats();
    const router = new RouterFeed({ hold: DEFAULTS.cloud.hold, stats: s });
    const blob = 'x'.repeat(100 * 1024);
    for (let i = 0; i < 5_000; i++) router.handleText(JSON.stringify({ type: 'executed', data: { prompt_id: `p${i % 50}`, node: '1', output: { text: [blob, i] } } }));
    gc?.();
    const grown = process.memoryUsage().heapUsed - before;
    expect(s.heldBytes).toBeLessThanOrEqual(DEFAULTS.cloud.hold.maxBytes);
    expect(s.dropped).toBeGreaterThan(4_000);
    expect(grown).toBeLessThan(64 * 1024 * 1024);
    // The newest prompts are the ones kept.
    let delivered = 0;
    router.follow('p49', { event: () => delivered++, end: () => undefined });
    router.drain('p49');
    expect(delivered).toBeGreaterThan(0);
    router.clear();
    expect(s.heldBytes).toBe(0);
  });
});

describe('merging executed outputs', () => {
  it('keeps every item of 20,000 executed messages on one node, in order, in linear time (0.1.0 took 107 s)', () => {
    const router = new RouterFeed({ hold: DEFAULTS.cloud.hold, stats: stats() });
    const seen = router.follow('p', { event: () => undefined, end: () => undefined });
    for (let i = 0; i < 20_000; i++) {
      router.handleText(JSON.stringify({ type: 'executed', data: { prompt_id: 'p', node: '9', output: { images: [{ filename: `f${i}.png`, subfolder: '', type: 'output' }] } } }));
    }
    // A repeated item (the same file reported twice) is kept once.
    router.handleText(JSON.stringify({ type: 'executed', data: { prompt_id: 'p', node: '9', output: { images: [{ filename: 'f7.png', subfolder: '', type: 'output' }] } } }));
    const images = seen.outputs?.['9']?.images as { filename: string }[];
    expect(images).toHaveLength(20_000);
    expect(images[0]?.filename).toBe('f0.png');
    expect(images[19_999]?.filename).toBe('f19999.png');
  });
});
