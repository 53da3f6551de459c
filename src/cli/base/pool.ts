/**
 * Runs `work` over `items` in their order, at most `limit` at once. No item starts once `stop()`
 * answers true or one `work` has thrown; the first error is thrown once the items already started
 * have ended. Answers how many items were started (the rest never were).
 *
 * @throws the first error a `work` threw.
 * @example
 * ```ts
 * const started = await eachAtMost(sets, 4, (set) => runOne(set), () => stopping);
 * for (const set of sets.slice(started)) notStarted(set);
 * ```
 */
export async function eachAtMost<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>, stop: () => boolean = () => false): Promise<number> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (next < items.length && !failure && !stop()) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.error;
  return next;
}
