// The option rules of RunQueue and RunWorker: every option checked when given, before Redis is touched.
import { Checker, checkOptions, isPlainObject, rule, type OptionRules, type Rule } from '../core/index.js';
import { checkConnection } from './connection.js';

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
