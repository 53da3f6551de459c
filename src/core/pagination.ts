/** One page of a paginated list. */
export interface PageInfo {
  page: number;
  totalPages: number;
}

/**
 * Iterates every item of every page, fetching pages lazily (the next page is requested only when
 * the loop reaches it). Stops at `totalPages`, or at an empty page, whichever comes first.
 */
export async function* paginate<P extends PageInfo, T>(fetchPage: (page: number) => Promise<P>, items: (page: P) => readonly T[], firstPage = 1): AsyncGenerator<T, void, undefined> {
  for (let page = firstPage; ; page++) {
    const result = await fetchPage(page);
    const list = items(result);
    yield* list;
    // The loop's own page number counts too: a server that echoes a wrong `page` cannot make it run on.
    if (list.length === 0 || Math.max(page, result.page) >= result.totalPages) return;
  }
}
