import { describe, expect, it } from 'vitest';
import { paginateOffsets, type OffsetPage } from '../../src/core/index.js';

const pages = (items: number[], limit: number, say: 'hasMore' | 'total' | 'nothing') => {
  const asked: number[] = [];
  const fetchPage = async (offset: number): Promise<OffsetPage<number>> => {
    asked.push(offset);
    const slice = items.slice(offset, offset + limit);
    if (say === 'hasMore') return { items: slice, hasMore: offset + slice.length < items.length };
    if (say === 'total') return { items: slice, total: items.length };
    return { items: slice };
  };
  return { asked, fetchPage };
};

describe('paginateOffsets()', () => {
  it.each(['hasMore', 'total', 'nothing'] as const)('lists every item and stops when the server says so (%s)', async (say) => {
    const { asked, fetchPage } = pages([1, 2, 3, 4, 5], 2, say);
    const seen: number[] = [];
    for await (const item of paginateOffsets(fetchPage, 0, 2)) seen.push(item);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(asked).toEqual([0, 2, 4]);
  });

  it('fetches the next page only when the loop reaches it', async () => {
    const { asked, fetchPage } = pages([1, 2, 3, 4, 5], 2, 'hasMore');
    for await (const item of paginateOffsets(fetchPage, 0, 2)) if (item === 2) break;
    expect(asked).toEqual([0]);
  });

  it('stops at an empty page even when the server claims more', async () => {
    let calls = 0;
    const seen: number[] = [];
    for await (const item of paginateOffsets(async () => (calls++ === 0 ? { items: [1], hasMore: true } : { items: [], hasMore: true }), 0, 1)) seen.push(item);
    expect([seen, calls]).toEqual([[1], 2]);
  });
});
