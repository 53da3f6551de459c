/**
 * The HTTP policies every client shares. Frozen; the README's options table refers to it.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from 'graphcloud';
 * console.log(DEFAULTS.http.retry.limit); // 2
 * ```
 */
export const HTTP_DEFAULTS = Object.freeze({
  /** Per-attempt timeout in ms (connect, headers and body). */
  timeout: 60_000,
  /** Deadline of one call in ms, across attempts and backoff sleeps. */
  totalTimeout: 180_000,
  /** Retries of idempotent requests after a transient failure (a broken connection, a timeout, 408, 429, 5xx). */
  retry: Object.freeze({
    /** Retries after the first attempt (idempotent requests only; POST never). */
    limit: 2,
    /** Clock budget in ms for all retries of one call: no retry ends past it. */
    budgetMs: 30_000,
    /** First backoff delay in ms; grows by `growFactor` per retry, with jitter. */
    minDelayMs: 500,
    /** Cap of one backoff delay in ms. */
    maxDelayMs: 8_000,
    /** Growth of the backoff delay per retry. */
    growFactor: 2,
  }),
});
