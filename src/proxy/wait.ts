import { ApiError, ConnectionError, NotFoundError, TimeoutError, sleep, throwIfAborted } from '../core/index.js';
import { PROXY_DEFAULTS } from './defaults.js';
import { TaskFailedError } from './errors.js';
import { phaseOf } from './schemas.js';
import type { Clock, TaskRef, TaskStatus, WaitOptions } from './types.js';

/**
 * Reads one status of the task; rejects with the core's errors (`ApiError`, `ConnectionError`,
 * `TimeoutError`, `ResponseValidationError`) or `signal.reason`.
 * @example const read: ReadStatus = async (signal) => imageStatus('upscale', id, await http.request({ method: 'GET', path, schema: ImageTaskSchema, options: { signal } }));
 */
export type ReadStatus = (signal: AbortSignal | undefined) => Promise<TaskStatus>;

/**
 * Real time: `Date.now` and the core's abortable `sleep`.
 * @example await realClock.sleep(1000, signal);
 */
export const realClock: Clock = Object.freeze({ now: () => Date.now(), sleep });

/**
 * Polls a task until a terminal status, yielding each status that differs from the previous one
 * (the terminal one included, then it returns). The delay starts at `initialIntervalMs` and grows
 * by `growFactor` up to `maxIntervalMs`; every sleep goes through `clock.sleep`, so an abort or a
 * `break` leaves no timer behind. A task is never resubmitted.
 *
 * @throws {TimeoutError} when the budget is spent (after one last status request at the deadline).
 * @throws {NotFoundError} for a `404` after `notFoundGraceMs`, or once the task has been seen.
 * @example for await (const status of pollTask(task, read, realClock, { timeout: 60_000 })) console.log(status.phase);
 */
export async function* pollTask(task: TaskRef, read: ReadStatus, clock: Clock, options: WaitOptions = {}): AsyncGenerator<TaskStatus, void, undefined> {
  const d = PROXY_DEFAULTS.wait;
  const timeout = options.timeout ?? d.timeout;
  const countQueued = options.countQueued ?? d.countQueued;
  const maxInterval = options.maxIntervalMs ?? d.maxIntervalMs;
  const grow = options.growFactor ?? d.growFactor;
  const grace = options.notFoundGraceMs ?? d.notFoundGraceMs;
  const signal = options.signal;
  let interval = Math.min(maxInterval, options.initialIntervalMs ?? d.initialIntervalMs);

  const started = clock.now();
  let last = started;
  let used = 0;
  // Queued time is free by default (wire facts: it should not count against the caller's budget).
  const initial = task.status ?? task.state;
  let counting = countQueued || initial === undefined || phaseOf(initial, false) !== 'queued';
  const charge = () => {
    const now = clock.now();
    if (counting) used += now - last;
    last = now;
  };
  let seen = false;
  let previous: string | undefined;
  let lastError: unknown;

  for (;;) {
    throwIfAborted(signal);
    let status: TaskStatus | undefined;
    let retryAfterMs: number | undefined;
    try {
      status = await read(signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!isTransient(error, !seen && clock.now() - started < grace)) throw error;
      lastError = error;
      retryAfterMs = error instanceof ApiError ? error.retryAfterMs : undefined;
    }
    charge();
    if (status) {
      seen = true;
      counting = countQueued || status.phase !== 'queued';
      const key = `${status.status}|${status.phase}|${status.progress ?? ''}|${status.urls.length}`;
      if (key !== previous) {
        previous = key;
        yield status;
      }
      if (status.phase === 'succeeded' || status.phase === 'failed') return;
    }
    const timedOut = () => new TimeoutError(`${task.kind} task ${task.taskId}`, timeout, lastError);
    if (used >= timeout) throw timedOut();
    // Never ask again before the server's Retry-After; if that lies past the budget, stop now.
    if (counting && retryAfterMs !== undefined && retryAfterMs >= timeout - used) throw timedOut();
    let delay = Math.max(interval, retryAfterMs ?? 0);
    interval = Math.min(maxInterval, interval * grow);
    if (counting) delay = Math.min(delay, timeout - used);
    await clock.sleep(delay, signal);
    charge();
  }
}

/**
 * Waits for a terminal status: resolves with it when the task succeeded, rejects with a
 * `TaskFailedError` when it failed or succeeded without a result. `onUpdate` sees every change.
 * @example const final = await waitForStatus(task, read, realClock, { onUpdate: console.log });
 */
export async function waitForStatus(task: TaskRef, read: ReadStatus, clock: Clock, options: WaitOptions = {}): Promise<TaskStatus> {
  let final: TaskStatus | undefined;
  for await (const status of pollTask(task, read, clock, options)) {
    final = status;
    observe(() => options.onUpdate?.(status));
  }
  // pollTask returns only after a terminal status, which it always yields first.
  const done = final as TaskStatus;
  if (done.phase === 'failed') {
    const failed = done.status.toUpperCase() === 'FAILED';
    throw new TaskFailedError({ kind: done.kind, taskId: done.taskId, status: done.status, reason: failed ? 'failed' : 'no-result', errCode: done.errCode, raw: done.raw });
  }
  return done;
}

// Connection drops, per-request timeouts, 408, 429 (with Retry-After) and 5xx are worth another
// status request: reading a status is free and never resubmits. A 404 is, only right after submission.
function isTransient(error: unknown, notFoundIsLag: boolean): boolean {
  if (error instanceof NotFoundError) return notFoundIsLag;
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  return error instanceof ApiError && (error.status === 408 || error.status === 429 || error.status >= 500);
}

/**
 * Calls an observer (`onUpdate`, `onSubmitted`): what it throws, or an async one rejects with, is
 * ignored, so a failing callback can neither abandon a paid task nor leave an unhandled rejection.
 * @example observe(() => options.onUpdate?.(status));
 */
export function observe(call: () => unknown): void {
  try {
    const result = call();
    if (typeof (result as PromiseLike<unknown> | null)?.then === 'function') (result as PromiseLike<unknown>).then(undefined, () => {});
  } catch {
    // Observers observe.
  }
}
