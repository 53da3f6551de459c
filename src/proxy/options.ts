import {
  backoffRules,
  checkOptions,
  CLIENT_RULES,
  credentialRule,
  isPlainObject,
  REQUEST_RULES,
  rule,
  type Backoff,
  type ClientOptions,
  type Clock,
  type Credential,
  type OptionRules,
  type RequestOptions,
  type Rule,
  type WaitOptions,
} from '../core/index.js';
import { TASK_KINDS, type TaskKind } from './tasks.js';
import type { ImageTask, TaskStatus, VideoTask } from './types.js';

/**
 * Options of `proxy.waitForTask()` (and of `wait` on a submission).
 *
 * @example
 * ```ts
 * await proxy.waitForTask(task, { waitTimeout: 10 * 60_000, poll: { maxDelayMs: 10_000 }, onUpdate: (s) => console.log(s.phase) });
 * ```
 */
export interface WaitForTaskOptions extends WaitOptions {
  /**
   * Deadline of the whole wait in ms, or `false` for none. Time spent on failed status reads
   * counts; time between two readings that both said "queued" does not, unless `countQueued`.
   * The wait then rejects with a `TimeoutError` whose `submitted` names the task.
   * @default PROXY_DEFAULTS.wait.waitTimeout (80 minutes)
   */
  waitTimeout?: number | false | undefined;
  /**
   * Delays between status reads (each drawn between half and all of the step), merged over the client's.
   * @default PROXY_DEFAULTS.wait.poll ({ minDelayMs: 1_000, maxDelayMs: 24_000, growFactor: 2 })
   */
  poll?: Partial<Backoff> | undefined;
  /**
   * Count the time the task spends queued against `waitTimeout`.
   * @default false
   */
  countQueued?: boolean | undefined;
  /**
   * How long a `404` before the first successful reading is taken for a status route lagging the
   * submission, in ms; after it the wait rejects with `NotFoundError`.
   * @default PROXY_DEFAULTS.wait.notFoundGraceMs (30_000)
   */
  notFoundGraceMs?: number | undefined;
  /** Called with each status that differs from the previous one. What it throws or rejects with is ignored. */
  onUpdate?: ((status: TaskStatus) => unknown) | undefined;
  /**
   * Per-attempt HTTP timeout of each status read, in ms (not the wait's deadline: that is `waitTimeout`).
   * @default the client's `timeout`
   */
  timeout?: number | undefined;
  /** Extra headers of the status reads. */
  headers?: Record<string, string> | undefined;
}

/**
 * Options of a submission (`proxy.image.*`, `proxy.video.*`): the request options of the POST,
 * `validate`, `onSubmitted`, and `wait` to submit and wait in one call.
 *
 * @example
 * ```ts
 * const done = await proxy.image.upscale(params, { timeout: 30_000, wait: { waitTimeout: 600_000 } }); // ImageTaskResult<'upscale'>
 * ```
 */
export interface SubmitTaskOptions<T extends ImageTask | VideoTask = ImageTask | VideoTask> extends RequestOptions {
  /**
   * Check the documented limits before sending. `false` sends the params as given (binary image
   * inputs are still encoded), for values a server accepts before the SDK knows them.
   * @default true
   */
  validate?: boolean | undefined;
  /**
   * Wait for the task after submitting: `true`, or the options of `waitForTask()` (its `signal`
   * defaults to the submission's). The call then resolves to the task's result. When the wait ends
   * with an SDK error (`TimeoutError`, `401` on the status route, `ClientClosedError`...), the task
   * is paid for and running: the error names it as `error.submitted`, for another `waitForTask()`.
   * @default false
   */
  wait?: boolean | WaitForTaskOptions | undefined;
  /**
   * Called with the task as soon as the submission is accepted, before any wait: the place to
   * store its id, since an abort during `wait` rejects with `signal.reason` alone. What it throws
   * or rejects with is ignored.
   * @example onSubmitted: (task) => db.save(task.kind, task.taskId)
   */
  onSubmitted?: ((task: T) => unknown) | undefined;
}

/**
 * A status route: a template where `{task_id}` is replaced by the encoded id, or a function of the
 * raw id (encode it yourself).
 * @example const route: StatusPath = '/proxy/imagevendor/v1/ai/image-upscaler/{task_id}';
 */
export type StatusPath = string | ((taskId: string) => string);

/**
 * Options of `new ProxyClient()`.
 * @example new ProxyClient({ baseUrl: 'https://api.example.com', apiKey: key, timeout: 30_000, wait: { poll: { maxDelayMs: 10_000 } } });
 */
export interface ProxyClientOptions extends ClientOptions {
  /**
   * Bearer token sent as `Authorization: Bearer <token>` to the proxy's origin only; a function is
   * called before every request.
   * @example token: process.env.GRAPHCLOUD_PROXY_TOKEN
   */
  token?: Credential | undefined;
  /**
   * Platform key sent as `X-API-Key` instead of a Bearer token (deployments accept either).
   * @example apiKey: process.env.GRAPHCLOUD_API_KEY
   */
  apiKey?: Credential | undefined;
  /**
   * Status routes by task kind, merged over the vendors' convention.
   * @default PROXY_DEFAULTS.statusPaths
   * @example statusPaths: { upscale: (id) => `/proxy/imagevendor/v1/ai/image-upscaler/${encodeURIComponent(id)}/status` }
   */
  statusPaths?: Partial<Record<TaskKind, StatusPath>> | undefined;
  /**
   * How bytes given as image inputs are written: bare Base64 (`raw`) or a `data:` URL.
   * @default PROXY_DEFAULTS.base64Format ({ image: 'raw', video: 'data-url' })
   * @example base64Format: { video: 'raw' }
   */
  base64Format?: Partial<Record<'image' | 'video', 'raw' | 'data-url'>> | undefined;
  /**
   * Defaults of every wait of this client (per-call options win; `poll` is merged).
   * @default PROXY_DEFAULTS.wait
   * @example wait: { waitTimeout: 20 * 60_000, poll: { maxDelayMs: 10_000 } }
   */
  wait?: Pick<WaitForTaskOptions, 'waitTimeout' | 'poll' | 'countQueued' | 'notFoundGraceMs'> | undefined;
  /**
   * Time as the waits see it. Replace it in simulations (see `bench/proxy-wait.ts`).
   * @default Date.now and the core's abortable sleep
   */
  clock?: Clock | undefined;
}

/**
 * The entries of `value` that are not `undefined`: merged over defaults, `{ minDelayMs: undefined }`
 * keeps the default instead of erasing it.
 * @example ({ ...PROXY_DEFAULTS.wait.poll, ...defined(options.poll) });
 */
export function defined<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}

// A status poll more often than every 100 ms only adds load.
const POLL_FLOOR_MS = 100;

const WAIT_DEFAULT_RULES: OptionRules = {
  waitTimeout: rule.deadline,
  poll: rule.object(backoffRules(POLL_FLOOR_MS)),
  countQueued: rule.boolean,
  notFoundGraceMs: (check, path, value) => check.number(path, value, { min: 0 }),
};

/**
 * Rules of `watchTask()`'s options.
 * @example assertOptions('proxy.watchTask()', options, WATCH_TASK_RULES);
 */
export const WATCH_TASK_RULES: OptionRules = Object.freeze({
  signal: rule.signal,
  ...WAIT_DEFAULT_RULES,
  timeout: rule.duration,
  headers: rule.headers,
});

/**
 * Rules of `waitForTask()`'s options.
 * @example assertOptions('proxy.waitForTask()', options, WAIT_FOR_TASK_RULES);
 */
export const WAIT_FOR_TASK_RULES: OptionRules = Object.freeze({ ...WATCH_TASK_RULES, onUpdate: rule.callback });

/**
 * Rules of a submission's options.
 * @example checkOptions(check, 'options', options, SUBMIT_TASK_RULES);
 */
export const SUBMIT_TASK_RULES: OptionRules = Object.freeze({
  ...REQUEST_RULES,
  validate: rule.boolean,
  onSubmitted: rule.callback,
  wait: ((check, path, value) => {
    if (value === undefined || typeof value === 'boolean') return;
    if (!isPlainObject(value)) return check.fail(path, 'true, false, or the options of waitForTask()', value);
    checkOptions(check, path, value, WAIT_FOR_TASK_RULES);
  }) as Rule,
});

/**
 * How a status route starts: `/` (under `baseUrl`) or an absolute http(s) URL.
 * @example ROUTE.test('/tasks/{task_id}'); // true
 */
export const ROUTE = /^(\/|https?:\/\/)/i;

const statusPathRule: Rule = (check, path, value) => {
  if (value === undefined || typeof value === 'function') return;
  if (typeof value !== 'string') return check.fail(path, 'a route template or a function of the task id', value);
  // Without `{task_id}` every task would read the same route.
  if (!ROUTE.test(value) || !value.includes('{task_id}') || /\s/.test(value)) {
    check.fail(path, 'a route starting with / (or an http(s) URL) holding {task_id}, such as /tasks/{task_id}', value);
  }
};

const clockRule: Rule = (check, path, value) => {
  if (value === undefined) return;
  const clock = value as Partial<Clock> | null;
  if (typeof clock !== 'object' || clock === null || typeof clock.now !== 'function' || typeof clock.sleep !== 'function') {
    check.fail(path, 'an object with now() and sleep(ms, signal) functions', typeof value);
  }
};

const base64Format = rule.oneOf(['raw', 'data-url']);

/**
 * Rules of `new ProxyClient()`'s options.
 * @example checkOptions(check, 'options', options, PROXY_CLIENT_RULES);
 */
export const PROXY_CLIENT_RULES: OptionRules = Object.freeze({
  ...CLIENT_RULES,
  token: credentialRule,
  apiKey: credentialRule,
  statusPaths: rule.object(Object.fromEntries(TASK_KINDS.map((kind) => [kind, statusPathRule]))),
  base64Format: rule.object({ image: base64Format, video: base64Format }),
  wait: rule.object(WAIT_DEFAULT_RULES),
  clock: clockRule,
});
