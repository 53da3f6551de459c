import { backoffRules, Checker, MAX_TIMER_MS, rule, type Backoff, type OptionRules, type Rule } from '../../core/index.js';
import type { JobRoutes } from './job-types.js';

/**
 * Policies of the cloud client and its job watcher, frozen; also `DEFAULTS.cloud`. Every option
 * that overrides one of them names it in its `@default` tag; pass `watcher: { ... }` to
 * `new CloudClient()` to change them per client.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from 'graphcloud';
 * console.log(DEFAULTS.cloud.socket.maxDelayMs); // 15000
 * ```
 */
export const CLOUD_DEFAULTS = Object.freeze({
  /**
   * Deadline of the wait for a job in ms (`runWorkflow`, `jobs.watch`), or `false` for none.
   * @default 3_600_000
   */
  waitTimeout: 3_600_000 as number | false,
  /** How the shared WebSocket reconnects and when it closes. */
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
  /** Socket messages kept for jobs no watcher has claimed yet. */
  hold: Object.freeze({
    /**
     * Bytes of messages (their frames' length) kept for prompt ids no watcher has claimed yet (a
     * run can finish before the submit response names its id). Oldest are dropped first; freed
     * by `close()`.
     * @default 4_194_304 (4 MiB)
     */
    maxBytes: 4 * 1024 * 1024,
    /**
     * Bytes of preview images (binary frames) kept for prompt ids no watcher has claimed yet,
     * apart from `maxBytes`, so that large previews never push out a job's end. Oldest are
     * dropped first; freed by `close()`.
     * @default 2_097_152 (2 MiB)
     */
    maxPreviewBytes: 2 * 1024 * 1024,
    /**
     * Age in ms after which held messages of an unclaimed prompt id are dropped.
     * @default 120_000
     */
    maxAgeMs: 120_000,
  }),
  /** Status reads of watched jobs, when the socket is down or silent. */
  poll: Object.freeze({
    /**
     * A watched job with no message for this long, in ms, has its status read (catches a
     * completion lost on a half-open connection).
     * @default 20_000
     */
    silenceMs: 20_000,
    /**
     * First delay in ms between status reads while the socket is down, and after a failed read;
     * grows by `growFactor` per read, with jitter, up to `maxDelayMs`.
     * @default 1_000
     */
    minDelayMs: 1_000,
    /**
     * Cap of one delay between status reads, in ms.
     * @default 10_000
     */
    maxDelayMs: 10_000,
    /**
     * Growth of the delay per status read while the socket is down.
     * @default 2
     */
    growFactor: 2,
    /**
     * Status reads in flight at once across every job of the client (each job is read on its
     * own: a slow answer holds one of these only).
     * @default 8
     */
    concurrency: 8,
    /**
     * A `404` from the status route before the first status of a job is lag, not an error, for
     * this long in ms (the status store can lag a submission).
     * @default 30_000
     */
    notFoundGraceMs: 30_000,
  }),
  /**
   * Routes asked, in order, for a job's outputs when its completion was learned by polling
   * (`{id}` is replaced). The first that answers with outputs wins; `404` moves on.
   * @default ['/api/jobs/{id}', '/api/history_v2/{id}', '/history/{id}']
   */
  outputRoutes: Object.freeze(['/api/jobs/{id}', '/api/history_v2/{id}', '/history/{id}']) as readonly string[],
  /**
   * Routes of job control and listing (`{id}` is replaced); see
   * docs/wire-protocol.md#cloud-job-control-listing-and-queue. `cancel` is tried first; a server
   * that answers it `404` or `405` is cancelled through `queue` and, on a local runtime,
   * `interrupt`.
   * @default { cancel: '/api/jobs/{id}/cancel', jobs: '/api/jobs', job: '/api/jobs/{id}', queue: '/api/queue', interrupt: '/api/interrupt' }
   */
  jobRoutes: Object.freeze({ cancel: '/api/jobs/{id}/cancel', jobs: '/api/jobs', job: '/api/jobs/{id}', queue: '/api/queue', interrupt: '/api/interrupt' }) as Readonly<JobRoutes>,
  /**
   * Status reads in a row that find a watched job in neither the queue nor the history of a local
   * runtime before the watch fails with a `NotFoundError` (`code: 'job_not_found'`). A job deleted
   * from the queue is recorded nowhere, and a finished one reaches the history just after its
   * last message; a job this client cancelled ends as `cancelled` at the first such read.
   * @default 3
   */
  absentReads: 3,
  /**
   * The whole cancel `runWorkflow()` sends after an abort or a missed deadline
   * (`cancelOnAbort`), in ms: the rejection waits for it at most this long.
   * @default 10_000
   */
  cancelTimeoutMs: 10_000,
});

/**
 * How the shared socket reconnects (see `DEFAULTS.cloud.socket`).
 *
 * @example
 * ```ts
 * const socket: SocketPolicy = { ...DEFAULTS.cloud.socket, maxDelayMs: 5_000 };
 * ```
 */
export interface SocketPolicy extends Backoff {
  /** A connection that stayed open this long, in ms, resets the backoff to `minDelayMs`. @default 5_000 */
  minUptimeMs: number;
  /** Time allowed for one connection attempt to open, in ms. @default 10_000 */
  connectionTimeoutMs: number;
  /** Delay in ms before the shared socket closes once no job is watched. @default 1_000 */
  idleCloseMs: number;
  /**
   * Close codes that mean the server refused the credential: the watcher stops reconnecting and
   * its jobs reject with an `AuthenticationError`.
   * @default [1008, 4001, 4003, 4401, 4403]
   */
  authCloseCodes: readonly number[];
}

/**
 * What the shared socket keeps of messages for prompt ids no watcher has claimed yet: a run can
 * finish before the submission's answer names its id (see `DEFAULTS.cloud.hold`).
 *
 * @example
 * ```ts
 * const hold: HoldPolicy = { ...DEFAULTS.cloud.hold, maxBytes: 1_048_576 };
 * ```
 */
export interface HoldPolicy {
  /** Bytes of held messages (their frames' length) at most; the oldest are dropped first. @default 4_194_304 (4 MiB) */
  maxBytes: number;
  /** Bytes of held preview images at most, apart from `maxBytes`; the oldest are dropped first. @default 2_097_152 (2 MiB) */
  maxPreviewBytes: number;
  /** Age in ms after which the held messages of an unclaimed prompt id are dropped. @default 120_000 */
  maxAgeMs: number;
}

/**
 * How jobs are polled when the socket cannot tell (see `DEFAULTS.cloud.poll`).
 *
 * @example
 * ```ts
 * const poll: PollPolicy = { ...DEFAULTS.cloud.poll, silenceMs: 10_000 };
 * ```
 */
export interface PollPolicy extends Backoff {
  /** A watched job with no message for this long, in ms, has its status read (catches a completion lost on a half-open connection). @default 20_000 */
  silenceMs: number;
  /** Status reads in flight at once across every job of the client, 1 to 1000. @default 8 */
  concurrency: number;
  /** A `404` from the status route before a job's first status is lag, not an error, for this long in ms. @default 30_000 */
  notFoundGraceMs: number;
}

/**
 * The watcher's policies, resolved (see `DEFAULTS.cloud`).
 *
 * @example
 * ```ts
 * const policy: WatcherPolicy = resolvePolicy({ poll: { silenceMs: 10_000 } });
 * ```
 */
export interface WatcherPolicy {
  /** Deadline of the wait for a job in ms, or `false` for none. */
  waitTimeout: number | false;
  /** How the shared socket reconnects. */
  socket: SocketPolicy;
  /** What is kept for unclaimed prompt ids. */
  hold: HoldPolicy;
  /** How jobs are polled when the socket cannot tell. */
  poll: PollPolicy;
}

/**
 * Overrides of the watcher's policies, as `new CloudClient({ watcher })` takes them (every field
 * optional).
 *
 * @example
 * ```ts
 * const watcher: WatcherPolicyOptions = { waitTimeout: 600_000, socket: { maxDelayMs: 5_000 }, poll: { silenceMs: 10_000 } };
 * ```
 */
export interface WatcherPolicyOptions {
  /**
   * Deadline of the wait for a job in ms (`runWorkflow`, `jobs.watch`), or `false` for none; a
   * call's own `waitTimeout` overrides it.
   * @default DEFAULTS.cloud.waitTimeout (3_600_000)
   */
  waitTimeout?: number | false | undefined;
  /** How the shared socket reconnects and closes; each field over `DEFAULTS.cloud.socket`. */
  socket?: Partial<SocketPolicy> | undefined;
  /** What is kept for prompt ids no watcher has claimed yet; each field over `DEFAULTS.cloud.hold`. */
  hold?: Partial<HoldPolicy> | undefined;
  /** How jobs are polled when the socket is down or silent; each field over `DEFAULTS.cloud.poll`. */
  poll?: Partial<PollPolicy> | undefined;
}

/** Smallest delay between two status reads of one job: a poll every millisecond only adds load. */
export const POLL_FLOOR_MS = 100;
/** Smallest reconnect delay: a refused socket must not be retried in a busy loop. */
const SOCKET_FLOOR_MS = 10;

const atLeast = (min: number, integer = false): Rule => (check, path, value) => (integer ? check.integer(path, value, { min }) : check.number(path, value, { min, max: MAX_TIMER_MS }));
const closeCodes: Rule = (check, path, value) => {
  if (value === undefined) return;
  if (!Array.isArray(value)) return check.fail(path, 'a list of WebSocket close codes (integers from 1000 to 4999)', value);
  value.forEach((code, i) => check.integer(`${path}[${i}]`, code, { min: 1000, max: 4999 }));
};

/**
 * Rules of `new CloudClient({ watcher })`: delays are finite with a floor, growth at least 1,
 * counts positive integers.
 *
 * @example
 * ```ts
 * assertOptions('new CloudClient()', options, { ...CLIENT_RULES, watcher: rule.object(WATCHER_RULES) });
 * ```
 */
export const WATCHER_RULES: OptionRules = Object.freeze({
  waitTimeout: rule.deadline,
  socket: rule.object({
    ...backoffRules(SOCKET_FLOOR_MS),
    minUptimeMs: atLeast(0),
    connectionTimeoutMs: rule.duration,
    idleCloseMs: atLeast(0),
    authCloseCodes: closeCodes,
  }),
  hold: rule.object({ maxBytes: atLeast(0, true), maxPreviewBytes: atLeast(0, true), maxAgeMs: rule.duration }),
  poll: rule.object({
    ...backoffRules(POLL_FLOOR_MS),
    silenceMs: atLeast(POLL_FLOOR_MS),
    concurrency: (check, path, value) => check.integer(path, value, { min: 1, max: 1_000 }),
    notFoundGraceMs: atLeast(0),
  }),
});

/**
 * Merges checked overrides onto `CLOUD_DEFAULTS`; a `minDelayMs` above its `maxDelayMs` is
 * recorded on `check`.
 *
 * @example
 * ```ts
 * resolvePolicy({ hold: { maxBytes: 1_000_000 } }).hold; // { maxBytes: 1000000, maxPreviewBytes: 2097152, maxAgeMs: 120000 }
 * ```
 */
export function resolvePolicy(options: WatcherPolicyOptions = {}, check = new Checker()): WatcherPolicy {
  const policy: WatcherPolicy = {
    waitTimeout: options.waitTimeout ?? CLOUD_DEFAULTS.waitTimeout,
    socket: { ...CLOUD_DEFAULTS.socket, ...defined(options.socket) },
    hold: { ...CLOUD_DEFAULTS.hold, ...defined(options.hold) },
    poll: { ...CLOUD_DEFAULTS.poll, ...defined(options.poll) },
  };
  for (const name of ['socket', 'poll'] as const) {
    const { minDelayMs, maxDelayMs } = policy[name];
    if (minDelayMs > maxDelayMs) check.fail(`options.watcher.${name}.minDelayMs`, `at most ${name}.maxDelayMs (${maxDelayMs})`, minDelayMs);
  }
  return policy;
}

/** The object without its `undefined` values (an explicit `undefined` keeps the default). */
export function defined<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, item]) => item !== undefined)) as Partial<T>;
}
