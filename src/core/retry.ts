import { ApiError } from './api-errors.js';
import { ConnectionError, TimeoutError } from './errors.js';
import type { Backoff } from './options.js';

/**
 * The one backoff formula of the SDK (retries, reconnects, status polls): step `n` (from 1) waits
 * a random delay between half and all of `min(maxDelayMs, minDelayMs * growFactor^(n-1))`.
 *
 * @example
 * ```ts
 * backoffDelay(3, { minDelayMs: 500, maxDelayMs: 8_000, growFactor: 2 }); // 1_000 to 2_000
 * ```
 */
export function backoffDelay(step: number, backoff: Backoff, random: () => number = Math.random): number {
  const full = Math.min(backoff.maxDelayMs, backoff.minDelayMs * backoff.growFactor ** Math.max(0, step - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}

/**
 * Parses `Retry-After` (seconds or an HTTP date) into milliseconds; `undefined` when absent or unreadable.
 *
 * @example
 * ```ts
 * parseRetryAfter('7'); // 7000
 * ```
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Statuses worth another try of an idempotent request or a status read: 408, 429 and 5xx. A
 * client whose 429 means something else (the cloud: subscription inactive) passes its own rule.
 *
 * @example
 * ```ts
 * isTransientStatus(503); // true
 * ```
 */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The one "is this failure worth another try" rule: a broken connection, a per-attempt timeout,
 * or an `ApiError` whose status the client's rule calls transient. Used by the core's retries and
 * by every wait.
 *
 * @example
 * ```ts
 * isTransientError(new ConnectionError('GET', url)); // true
 * ```
 */
export function isTransientError(error: unknown, isTransient: (status: number) => boolean = isTransientStatus): boolean {
  // A port fetch refuses stays refused: no other attempt can reach it.
  if (error instanceof ConnectionError) return error.code !== 'ERR_BLOCKED_PORT';
  if (error instanceof TimeoutError) return true;
  return error instanceof ApiError && isTransient(error.status);
}
