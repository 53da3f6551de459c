import { callSafely, Checker, checkOptions, ClientClosedError, poll, ValidationError, withSubmitted, type Clock, type HttpClient, type OptionRules } from '../core/index.js';
import { PROXY_DEFAULTS } from './defaults.js';
import { TaskFailedError } from './errors.js';
import type { Base64Format } from './inputs.js';
import { defined, ROUTE, WAIT_FOR_TASK_RULES, type ProxyClientOptions, type StatusPath, type WaitForTaskOptions } from './options.js';
import { FAMILIES, phaseOf, type WireStatus } from './schemas.js';
import { TASK_KINDS, TASKS, type TaskKind } from './tasks.js';
import type { ImageTaskResult, TaskRef, VideoTaskResult } from './types.js';

/**
 * What a client's submissions and waits share: the transport (whose `closed` signal ends every
 * wait), the encoding of binary images, the status routes, the wait defaults, the clock, and the
 * waits in progress (which `close()` awaits).
 * @example const ctx: ProxyContext = { http, base64Format, statusPaths, defaults: {}, clock: realClock, waits: new Set() };
 */
export interface ProxyContext {
  http: HttpClient;
  base64Format: Readonly<Record<'image' | 'video', Base64Format>>;
  statusPaths: Readonly<Record<TaskKind, StatusPath>>;
  defaults: NonNullable<ProxyClientOptions['wait']>;
  clock: Clock;
  waits: Set<Promise<unknown>>;
}

/**
 * Checks a task reference and a wait's options before anything is sent: the kind must be known and
 * the id one path segment (`''`, `.` and `..` would address another route).
 *
 * @throws {@link ValidationError} naming every problem.
 * @example assertWait('proxy.waitForTask()', task, options, WAIT_FOR_TASK_RULES);
 */
export function assertWait(context: string, task: unknown, options: unknown, rules: OptionRules): asserts task is TaskRef {
  const check = new Checker();
  if (typeof task !== 'object' || task === null) {
    check.fail('task', 'a task returned by a submission, or { kind, taskId }', task);
  } else {
    const { kind, taskId } = task as Record<string, unknown>;
    check.oneOf('task.kind', kind, TASK_KINDS, { required: true });
    check.id('task.taskId', taskId);
  }
  checkOptions(check, 'options', options, rules);
  check.throwIfInvalid(context);
}

/**
 * Polls a task on the core wait engine until its status is terminal, yielding each status that
 * differs from the previous one (the terminal one last; a failure is yielded, not thrown). The
 * engine owns the backoff with jitter, `Retry-After`, the abort, the deadline (failed reads count,
 * queued time is free unless `countQueued`) and the 404 grace before the first reading. An SDK error
 * that ends the wait names the task as `error.submitted`: it is paid for and still running.
 *
 * @throws {@link TimeoutError} when `waitTimeout` is spent.
 * @example for await (const status of watchStatuses(ctx, task, {})) console.log(status.phase);
 */
export async function* watchStatuses(ctx: ProxyContext, task: TaskRef, options: Omit<WaitForTaskOptions, 'onUpdate'>): AsyncGenerator<WireStatus, void, undefined> {
  const family = FAMILIES[TASKS[task.kind].family];
  // The call's settings over the client's over PROXY_DEFAULTS (`poll` is merged field by field).
  const { countQueued, waitTimeout, notFoundGraceMs } = { ...PROXY_DEFAULTS.wait, ...defined(ctx.defaults), ...defined(options) };
  const initial = task.status ?? task.state;
  const read = { retry: false as const, timeout: options.timeout, headers: options.headers };
  let previous: string | undefined;
  try {
    const path = statusPathOf(ctx, task);
    const readings = poll<WireStatus>({
      describe: `${task.kind} task ${task.taskId}`,
      read: async (signal) => {
        // retry: false: the engine retries within the wait's deadline, without a nested loop.
        const status = await family.readStatus(ctx.http, task.kind, task.taskId, path, { ...read, signal });
        return { value: status, terminal: status.phase === 'succeeded' || status.phase === 'failed', queued: status.phase === 'queued' };
      },
      backoff: { ...PROXY_DEFAULTS.wait.poll, ...defined(ctx.defaults.poll), ...defined(options.poll) },
      // close() ends every wait: its signal joins the caller's.
      signal: options.signal ? AbortSignal.any([options.signal, ctx.http.closed]) : ctx.http.closed,
      waitTimeout,
      // Queued time should not count against the caller's budget; see
      // docs/wire-protocol.md#media-proxy-status-routes-and-terminal-states.
      freeQueued: !countQueued,
      startsQueued: typeof initial === 'string' && phaseOf(initial, false) === 'queued',
      notFoundGraceMs,
      clock: ctx.clock,
    });
    for await (const { value } of readings) {
      const key = `${value.status}|${value.phase}|${value.progress ?? ''}|${value.urls.length}`;
      if (key === previous) continue;
      previous = key;
      yield value;
    }
  } catch (error) {
    // A wait that ends early leaves a paid task running: the error names it. The caller's own abort
    // reason is theirs, never changed; a close rejects every wait with its own error, since
    // `submitted` names one task.
    if (options.signal?.aborted && error === options.signal.reason) throw error;
    throw withSubmitted(error instanceof ClientClosedError ? new ClientClosedError('ProxyClient') : error, task);
  }
}

/**
 * `proxy.waitForTask()`: checks the task and options, then waits for a terminal status: resolves
 * to the result when the task succeeded, rejects with a `TaskFailedError` when it failed or
 * succeeded without a result. `onUpdate` sees every change. Kept in `ctx.waits` until it settles.
 *
 * @throws {@link TaskFailedError} when the task failed.
 * @example const result = await waitForTask(ctx, task, { onUpdate: console.log });
 */
export function waitForTask(ctx: ProxyContext, task: unknown, options?: WaitForTaskOptions): Promise<ImageTaskResult | VideoTaskResult> {
  const wait = (async () => {
    assertWait('proxy.waitForTask()', task, options, WAIT_FOR_TASK_RULES);
    const { onUpdate, ...watch } = options ?? {};
    let final: WireStatus | undefined;
    for await (const status of watchStatuses(ctx, task, watch)) {
      final = status;
      callSafely(onUpdate, status);
    }
    // The engine returns only after a terminal reading, which it always yields first.
    const done = final as WireStatus;
    if (done.phase === 'failed') {
      const reason = done.status.toUpperCase() === 'FAILED' ? 'failed' : 'no-result';
      const { kind, taskId } = task;
      throw new TaskFailedError({ kind, taskId, status: done.status, reason, errCode: done.errCode, raw: done.raw });
    }
    return FAMILIES[TASKS[task.kind].family].toResult(done);
  })();
  // close() awaits every wait in progress.
  ctx.waits.add(wait);
  const forget = () => void ctx.waits.delete(wait);
  wait.then(forget, forget);
  return wait;
}

/** The status route of a task: a template gets the encoded id, a function the raw one. */
function statusPathOf(ctx: ProxyContext, task: TaskRef): string {
  const route = ctx.statusPaths[task.kind];
  if (typeof route === 'string') return route.replaceAll('{task_id}', encodeURIComponent(task.taskId));
  let path: unknown;
  try {
    path = route(task.taskId);
  } catch (error) {
    path = `(threw: ${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof path === 'string' && ROUTE.test(path)) return path;
  throw new ValidationError([{ path: `statusPaths.${task.kind}`, rule: 'a function returning a route starting with / (or an http(s) URL)', received: path }], `status route of ${task.kind} task ${task.taskId}`);
}
