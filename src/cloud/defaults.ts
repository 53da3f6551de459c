/**
 * Policies of the cloud client and its job watcher, frozen. Every option that overrides one of
 * them refers to it in its `@default` tag; pass `watcher: { ... }` to `new CloudClient()` to
 * change them per client.
 *
 * @example
 * ```ts
 * import { CLOUD_DEFAULTS } from 'graphcloud';
 * console.log(CLOUD_DEFAULTS.socket.maxDelayMs); // 15000
 * ```
 */
export const CLOUD_DEFAULTS = Object.freeze({
  socket: Object.freeze({
    /**
     * First reconnect delay in ms; grows by `growFactor` per failed attempt, with jitter.
     * @default 250
     */
    minDelayMs: 250,
    /**
     * Cap of one reconnect delay in ms.
     * @default 15_000
     */
    maxDelayMs: 15_000,
    /**
     * Growth of the reconnect delay per consecutive failure.
     * @default 2
     */
    growFactor: 2,
    /**
     * A connection that stayed open this long resets the backoff to `minDelayMs`.
     * @default 5_000
     */
    minUptimeMs: 5_000,
    /**
     * Time allowed for one connection attempt to open, in ms.
     * @default 10_000
     */
    connectionTimeoutMs: 10_000,
    /**
     * Delay before the shared socket closes once no job is watched, in ms.
     * @default 1_000
     */
    idleCloseMs: 1_000,
    /**
     * Close codes that mean the server refused the credential: the watcher stops reconnecting and
     * its jobs reject with an `AuthenticationError`.
     * @default [1008, 4001, 4003, 4401, 4403]
     */
    authCloseCodes: Object.freeze([1008, 4001, 4003, 4401, 4403]) as readonly number[],
  }),
  hold: Object.freeze({
    /**
     * Messages kept for prompt ids no watcher has claimed yet (a run can finish before the submit
     * response names its id). Oldest are dropped first.
     * @default 10_000
     */
    maxMessages: 10_000,
    /**
     * Age in ms after which held messages of an unclaimed prompt id are dropped.
     * @default 120_000
     */
    maxAgeMs: 120_000,
  }),
  poll: Object.freeze({
    /**
     * A watched job with no message for this long, in ms, is checked with `getJobStatus()`
     * (catches a completion lost on a half-open connection).
     * @default 20_000
     */
    silenceMs: 20_000,
    /**
     * First poll interval in ms while the socket cannot be opened; grows to `maxIntervalMs`.
     * @default 1_000
     */
    minIntervalMs: 1_000,
    /**
     * Cap of the poll interval in ms while the socket cannot be opened.
     * @default 10_000
     */
    maxIntervalMs: 10_000,
    /**
     * Status requests in flight at once when many jobs are checked together (after a reconnect).
     * @default 8
     */
    concurrency: 8,
    /**
     * Consecutive `404` answers for one job before its watcher fails (the status store can lag
     * a submission by a moment).
     * @default 5
     */
    notFoundLimit: 5,
  }),
  watch: Object.freeze({
    /**
     * Deadline of one watcher in ms; it then rejects with a `TimeoutError`. `0` disables it.
     * @default 3_600_000
     */
    timeoutMs: 3_600_000,
  }),
  /**
   * Routes asked, in order, for a job's outputs when its completion was learned by polling
   * (`{id}` is replaced). The first that answers with outputs wins; `404` moves on.
   * @default ['/api/jobs/{id}', '/api/history_v2/{id}', '/history/{id}']
   */
  outputRoutes: Object.freeze(['/api/jobs/{id}', '/api/history_v2/{id}', '/history/{id}'] as const),
});

/**
 * The watcher policies, as `CloudClientOptions.watcher` accepts them (every field optional).
 *
 * @example
 * ```ts
 * const policy: WatcherPolicy = resolvePolicy({ poll: { silenceMs: 10_000 } });
 * ```
 */
export interface WatcherPolicy {
  socket: { minDelayMs: number; maxDelayMs: number; growFactor: number; minUptimeMs: number; connectionTimeoutMs: number; idleCloseMs: number; authCloseCodes: readonly number[] };
  hold: { maxMessages: number; maxAgeMs: number };
  poll: { silenceMs: number; minIntervalMs: number; maxIntervalMs: number; concurrency: number; notFoundLimit: number };
  watch: { timeoutMs: number };
}

/**
 * Partial overrides of {@link WatcherPolicy}.
 *
 * @example
 * ```ts
 * const watcher: WatcherPolicyOptions = { socket: { maxDelayMs: 5_000 } };
 * ```
 */
export type WatcherPolicyOptions = { [K in keyof WatcherPolicy]?: Partial<WatcherPolicy[K]> };

/**
 * Merges overrides onto `CLOUD_DEFAULTS`.
 *
 * @example
 * ```ts
 * resolvePolicy({ hold: { maxMessages: 100 } }).hold; // { maxMessages: 100, maxAgeMs: 120000 }
 * ```
 */
export function resolvePolicy(options: WatcherPolicyOptions = {}): WatcherPolicy {
  return {
    socket: { ...CLOUD_DEFAULTS.socket, ...options.socket },
    hold: { ...CLOUD_DEFAULTS.hold, ...options.hold },
    poll: { ...CLOUD_DEFAULTS.poll, ...options.poll },
    watch: { ...CLOUD_DEFAULTS.watch, ...options.watch },
  };
}
