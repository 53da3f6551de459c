// The defaults and option rules of RunQueue and RunWorker: every option checked when given, before
// Redis is touched.
import { Checker, checkOptions, isPlainObject, rule, type OptionRules, type Rule } from '../core/index.js';

/**
 * Policies of `graphcloud/queue`, frozen: the one way to read its defaults (the queue's entry
 * exports them, so the main entry stays free of them).
 *
 * @example
 * ```ts
 * import { QUEUE_DEFAULTS } from 'graphcloud/queue';
 * console.log(QUEUE_DEFAULTS.maxRunBytes); // 1048576
 * ```
 */
export const QUEUE_DEFAULTS = Object.freeze({
  /**
   * The most bytes a run's data may take in Redis (its JSON, UTF-8): the workflow with its inputs
   * and the names of its uploaded files, or the task's parameters. File bytes never go to Redis.
   * `queue.add()` refuses a larger run with a `ValidationError`.
   * @default 1_048_576
   */
  maxRunBytes: 1_048_576,
  /**
   * Prefix of every Redis key of the queue (BullMQ's `prefix`).
   * @default 'graphcloud'
   */
  prefix: 'graphcloud',
  /**
   * How long a worker's hold on a run lasts without renewal, in ms: a worker that dies (`SIGKILL`)
   * leaves its runs to be taken over after this long (BullMQ's `lockDuration`).
   * @default 30_000
   */
  lockDurationMs: 30_000,
  /**
   * How often each worker looks for runs whose worker died, in ms (BullMQ's `stalledInterval`).
   * @default 30_000
   */
  stalledIntervalMs: 30_000,
  /**
   * How many times one run may be taken over from a dead worker before it fails (BullMQ's
   * `maxStalledCount`): a run that kills every worker does not circle for ever.
   * @default 10
   */
  maxStalledCount: 10,
  /**
   * Least time between two progress writes of one run, in ms (each is a Redis write and an event).
   * @default 250
   */
  progressIntervalMs: 250,
  /**
   * How often a worker on a local runtime checks that the runtime answers, in ms: while runs are in
   * flight, and while the worker is paused because the runtime stopped answering.
   * @default 2_000
   */
  probeIntervalMs: 2_000,
  /**
   * How long one probe of a local runtime may take, in ms: a runtime that is slow (busy, or on a
   * loaded machine) is not taken for one that stopped answering.
   * @default 10_000
   */
  probeTimeoutMs: 10_000,
  /**
   * Jobs the taking-over worker reads (`jobs.get`), at most, when it looks for a submission whose
   * answer was lost: the cloud's jobs created around the run's "submitting" mark, nearest it first.
   * @default 500
   */
  recoverScanLimit: 500,
  /**
   * How long a worker's submission of a run may take, in ms, across its attempts (the request's
   * `timeout` and `totalTimeout`): after this the answer is taken as lost and the run recovered.
   * @default 30_000
   */
  submitTimeoutMs: 30_000,
  /**
   * How long after a run was marked "submitting" its request may still create the job, in ms: the
   * submission's time limit plus a margin for the server. A worker that takes the run over within
   * this window and finds no tagged job puts the run back, delayed to the window's end, and looks
   * again then (the first worker may still be sending); only after it does a run end `unknown`.
   * @default 45_000
   */
  recoverWindowMs: 45_000,
  /**
   * How long a finished run is kept, in seconds: its result or error stays readable this long.
   * @default 604_800 (7 days)
   */
  keepFinishedSeconds: 604_800,
  /**
   * Concurrent runs of one worker.
   * @default 4
   */
  workerConcurrency: 4,
});

/**
 * Records on `check` a connection that is neither a `redis://` / `rediss://` URL nor an options object.
 *
 * @example
 * ```ts
 * checkConnection(check, 'options.connection', options.connection);
 * ```
 */
export function checkConnection(check: Checker, path: string, value: unknown): void {
  if (typeof value === 'string') {
    if (!/^rediss?:\/\//.test(value)) check.fail(path, 'a redis:// or rediss:// URL, or { host, port, ... }', value.replace(/\/\/[^@/]*@/, '//***@'));
    return;
  }
  if (!isPlainObject(value)) check.fail(path, 'a redis:// or rediss:// URL, or { host, port, ... }', typeof value);
}

const positiveInteger: Rule = (check, path, value) => check.integer(path, value, { min: 1 });
const anyObject: Rule = (check, path, value) => {
  if (value !== undefined && !isPlainObject(value)) check.fail(path, 'an options object', typeof value);
};
const queueName: Rule = (check, path, value) => {
  if (typeof value !== 'string' || value === '' || value.includes(':')) check.fail(path, 'a non-empty name without ":"', value);
};

const SHARED_RULES: OptionRules = {
  connection: (check, path, value) => checkConnection(check, path, value),
  name: queueName,
  cloud: anyObject,
  prefix: queueName,
};

/** Rules of `new RunQueue()`. */
export const QUEUE_RULES: OptionRules = Object.freeze({ ...SHARED_RULES, maxRunBytes: positiveInteger, keepFinishedSeconds: positiveInteger });

/** Rules of `new RunWorker()`. */
export const WORKER_RULES: OptionRules = Object.freeze({
  ...SHARED_RULES,
  runtime: (check, path, value) => {
    if (value !== undefined && (typeof value !== 'string' || !/^https?:\/\//.test(value))) check.fail(path, 'a local runtime URL such as http://127.0.0.1:8188', value);
  },
  proxy: anyObject,
  concurrency: positiveInteger,
  lockDurationMs: positiveInteger,
  stalledIntervalMs: positiveInteger,
  probeIntervalMs: positiveInteger,
  recoverWindowMs: positiveInteger,
  progressIntervalMs: positiveInteger,
  onLog: rule.callback,
});

/**
 * Checks a constructor's options: required `connection` and `name`, every given option by its rule.
 *
 * @example
 * ```ts
 * checkClientOptions('new RunQueue()', options, QUEUE_RULES);
 * ```
 */
export function checkClientOptions(context: string, options: unknown, rules: OptionRules, more?: (check: Checker, options: Record<string, unknown>) => void): void {
  const check = new Checker();
  if (!isPlainObject(options)) check.fail('options', 'an options object with connection and name', typeof options);
  else {
    checkOptions(check, 'options', options, rules);
    if (options.connection === undefined) check.fail('options.connection', 'a redis:// URL or { host, port }', undefined);
    if (options.name === undefined) check.fail('options.name', 'the queue name', undefined);
    more?.(check, options);
  }
  check.throwIfInvalid(context);
}

/**
 * Records on `check` a run id BullMQ cannot take: empty, longer than 256, all digits, or with ":".
 *
 * @example
 * ```ts
 * checkRunId(check, 'options.id', 'order-1234');
 * ```
 */
export function checkRunId(check: Checker, path: string, value: unknown): void {
  if (typeof value !== 'string' || value === '' || value.length > 256 || /^\d+$/.test(value) || value.includes(':')) {
    check.fail(path, 'an id of 1 to 256 characters, not only digits, without ":"', value);
  }
}
