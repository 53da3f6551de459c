/**
 * Calls a user callback (a hook, a listener, `onProgress`, `onSubmitted`...) so that nothing it
 * does can break the SDK's own work: what it throws, and what an async one rejects with, is
 * caught and dropped. A paid job must not be lost because a logger failed.
 *
 * @example
 * ```ts
 * callSafely(options.onUpdate, status);
 * ```
 */
export function callSafely<A extends unknown[]>(callback: ((...args: A) => unknown) | undefined, ...args: A): void {
  if (typeof callback !== 'function') return;
  try {
    const result = callback(...args);
    // An async callback's rejection would otherwise be unhandled (which ends a Node process).
    if (typeof (result as PromiseLike<unknown> | null)?.then === 'function') (result as PromiseLike<unknown>).then(undefined, () => undefined);
  } catch {
    // Callbacks observe: the work goes on.
  }
}
