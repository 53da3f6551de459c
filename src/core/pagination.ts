import { GraphcloudError } from './errors.js';

/** What a page says about the paging; every field may be missing (the published schemas mark them optional). */
export interface PageInfo {
  page?: number | null | undefined;
  totalPages?: number | null | undefined;
}

/** A bound no real listing reaches: a server that never says "last page" cannot make a loop run forever. */
const MAX_PAGES = 10_000;

/**
 * Iterates every item of every page, fetching pages lazily (the next page is requested only when
 * the loop reaches it). Stops at an empty page, at `totalPages` when the server says it, or at a
 * page shorter than `pageSize` when it does not.
 *
 * @example
 * ```ts
 * for await (const v of paginate((page) => list({ page, pageSize: 50 }), (p) => p.versions, 1, 50)) console.log(v);
 * ```
 */
export async function* paginate<P extends PageInfo, T>(fetchPage: (page: number) => Promise<P>, items: (page: P) => readonly T[], firstPage = 1, pageSize?: number): AsyncGenerator<T, void, undefined> {
  for (let page = firstPage; ; page++) {
    if (page - firstPage >= MAX_PAGES) throw new GraphcloudError(`Stopped listing after ${MAX_PAGES} pages: the server never signalled the last page`);
    const result = await fetchPage(page);
    const list = items(result);
    yield* list;
    if (list.length === 0) return;
    const total = typeof result.totalPages === 'number' ? result.totalPages : undefined;
    // The loop's own page number counts too: a server that echoes a wrong `page` cannot make it run on.
    if (total !== undefined && Math.max(page, result.page ?? page) >= total) return;
    if (total === undefined && pageSize !== undefined && list.length < pageSize) return;
  }
}

/** What an offset-paged answer says about the paging; every field may be missing. */
export interface OffsetPage<T> {
  items: readonly T[];
  /** The server says more items follow (`has_more`). */
  hasMore?: boolean | undefined;
  /** The number of items across every page, when the server says it. */
  total?: number | undefined;
}

/**
 * Iterates every item of an offset-paged listing, fetching pages lazily (the next page is
 * requested only when the loop reaches it). Stops at an empty page, when the server says no more
 * follow (`hasMore: false`, or `total` reached), or, when it says neither, at a page shorter than
 * `limit`.
 *
 * @example
 * ```ts
 * for await (const job of paginateOffsets((offset) => listPage({ offset, limit: 100 }), 0, 100)) console.log(job.id);
 * ```
 */
export async function* paginateOffsets<T>(fetchPage: (offset: number) => Promise<OffsetPage<T>>, firstOffset: number, limit: number): AsyncGenerator<T, void, undefined> {
  let offset = firstOffset;
  for (let pages = 0; ; pages++) {
    if (pages >= MAX_PAGES) throw new GraphcloudError(`Stopped listing after ${MAX_PAGES} pages: the server never signalled the last page`);
    const page = await fetchPage(offset);
    yield* page.items;
    if (page.items.length === 0) return;
    offset += page.items.length;
    if (page.hasMore === false || (page.total !== undefined && offset >= page.total)) return;
    if (page.hasMore === undefined && page.total === undefined && page.items.length < limit) return;
  }
}
