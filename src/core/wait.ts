// Waiting, and what decides it: the abortable sleep and timer, the abort listeners, the retry rules
// (the one backoff formula, Retry-After, the one transient rule) and the one wait engine, poll().
import { ApiError, NotFoundError } from './api-errors.js';
import { ConnectionError, TimeoutError } from './errors.js';
import type { Backoff } from './options.js';

/**
 * The longest delay a timer can take: every runtime fires a longer one at once (after 1 ms), so a
 * far `Retry-After` date or a `waitTimeout` of days would turn into a busy loop or an instant
 * timeout. Options are refused beyond it; delays computed at run time are clamped to it.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * `setTimeout` with the delay clamped to 0 to `MAX_TIMER_MS`: the one way the SDK arms a timer
 * (a deadline nobody awaits, a schedule), as `sleep` is the one way it waits.
 *
 * @example
 * ```ts
 * const timer = setTimer(() => fail(new TimeoutError(operation, ms)), ms);
 * clearTimeout(timer);
 * ```
 */
export function setTimer(callback: () => void, ms: number): ReturnType<typeof setTimeout> {
  return setTimeout(callback, Math.min(MAX_TIMER_MS, Math.max(0, ms)));
}

/**
 * The one abortable wait of the SDK: resolves after `ms`, or rejects with `signal.reason`
 * as soon as the signal aborts (the timer is cleared, no handle is left).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const forget = onAbort(signal, () => {
      clearTimeout(timer);
      reject(signal?.reason);
    });
    const timer = setTimer(() => {
      forget();
      resolve();
    }, ms);
  });
}

// The SDK's waits on each signal: its one listener (dispatch), and the callbacks it calls.
const ABORT_WAITS = new WeakMap<AbortSignal, { readonly callbacks: Set<{ readonly call: () => void }>; readonly dispatch: () => void }>();

/**
 * Calls `callback` once when `signal` aborts (never when it has already: check `aborted` first);
 * returns the function that forgets it. However many waits share a signal (a caller's signal
 * given to 100 calls, a client's life with every call in flight), the signal holds one listener
 * of the SDK's: Node warns of a leak at an 11th listener on one signal, and each
 * `addEventListener` costs more than a set entry.
 *
 * @example
 * ```ts
 * const forget = onAbort(options.signal, () => reject(options.signal?.reason));
 * try { await work(); } finally { forget(); }
 * ```
 */
export function onAbort(signal: AbortSignal | undefined, callback: () => void): () => void {
  if (!signal) return () => undefined;
  let waits = ABORT_WAITS.get(signal);
  if (!waits) {
    const callbacks = new Set<{ readonly call: () => void }>();
    const dispatch = () => {
      ABORT_WAITS.delete(signal);
      // In order, each on its own: one that throws is reported as a listener's would be.
      for (const { call } of callbacks) {
        try {
          call();
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    };
    waits = { callbacks, dispatch };
    ABORT_WAITS.set(signal, waits);
    signal.addEventListener('abort', dispatch, { once: true });
  }
  // One entry per call, so that a callback given twice is called twice and forgotten once.
  const entry = { call: callback };
  const current = waits;
  current.callbacks.add(entry);
  return () => {
    if (!current.callbacks.delete(entry) || current.callbacks.size > 0 || ABORT_WAITS.get(signal) !== current) return;
    ABORT_WAITS.delete(signal);
    signal.removeEventListener('abort', current.dispatch);
  };
}

/**
 * Aborts `controller` with the reason of the first of `signals` that aborts (at once when one
 * already has), through `onAbort`: not `AbortSignal.any`, whose derived signal a garbage
 * collection can drop mid-wait. Returns the function that forgets those waits.
 *
 * @example
 * ```ts
 * const unfollow = follow(controller, [options.signal, client.closed]);
 * try { await work(controller.signal); } finally { unfollow(); }
 * ```
 */
export function follow(controller: AbortController, signals: readonly (AbortSignal | undefined)[]): () => void {
  const aborted = signals.find((signal) => signal?.aborted);
  if (aborted) {
    controller.abort(aborted.reason);
    return () => undefined;
  }
  const forgets = signals.map((signal) => onAbort(signal, () => controller.abort(signal?.reason)));
  return () => forgets.forEach((forget) => forget());
}

/**
 * The reason the SDK gives when it aborts one of its own controllers to end its own work (a
 * sleep it no longer needs, a poll loop, an idle timer): one value made once, since `abort()`
 * without a reason builds a `DOMException` and its stack every time, several per watched job.
 * It never reaches a caller: whoever waits on such a signal treats any abort as "stopped".
 */
export const STOPPED: Error = /* @__PURE__ */ Object.freeze(new Error('stopped'));

/** Throws `signal.reason` when the signal has aborted. */
export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason;
}

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

/**
 * Time as a wait sees it: `Date.now` and the core's abortable `sleep`. Replace it to simulate
 * hours of polling in milliseconds (`bench/proxy-wait.ts`).
 *
 * @example
 * ```ts
 * let now = 0;
 * const clock: Clock = { now: () => now, sleep: async (ms) => { now += ms; } };
 * ```
 */
export interface Clock {
  /** The current time in ms since the epoch, as `Date.now()` gives it. */
  now(): number;
  /** Resolves after `ms` milliseconds; rejects with `signal.reason` as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Real time.
 *
 * @example
 * ```ts
 * await realClock.sleep(1_000, signal);
 * ```
 */
export const realClock: Clock = /* @__PURE__ */ Object.freeze({ now: () => Date.now(), sleep });

/**
 * One status reading: its value, whether it is final, and whether the server confirmed the work
 * is still queued (time between two queued readings can be free, see `freeQueued`).
 *
 * @example
 * ```ts
 * const reading: PollReading<TaskStatus> = { value: status, terminal: status.phase === 'succeeded', queued: status.phase === 'queued' };
 * ```
 */
export interface PollReading<T> {
  value: T;
  terminal: boolean;
  queued?: boolean | undefined;
}

/**
 * What a custom schedule sees when it decides when the next reading is due.
 *
 * @example
 * ```ts
 * const dueIn = (state: PollState) => state.lastReadAt + 20_000 - state.now;
 * ```
 */
export interface PollState {
  now: number;
  startedAt: number;
  /** When the last reading ended (or the wait started). */
  lastReadAt: number;
  /** Successful readings so far. */
  reads: number;
}

/**
 * Wakes a sleeping wait so it re-plans: `wake()` re-asks the schedule, `wake(true)` reads at once
 * (still never before a server's `Retry-After`).
 *
 * @example
 * ```ts
 * const waker = new Waker();
 * socket.on('reconnect', () => waker.wake(true));
 * ```
 */
export class Waker {
  #sleeping: AbortController | undefined;
  #urgent = false;

  /** Interrupts the current sleep; `urgent` makes the next reading due now. */
  wake(urgent = false): void {
    if (urgent) this.#urgent = true;
    this.#sleeping?.abort(STOPPED);
  }

  /** @internal The signal of the next sleep. */
  arm(): AbortSignal {
    this.#sleeping = new AbortController();
    return this.#sleeping.signal;
  }

  /** @internal Ends the current sleep's arming (its controller is dropped, not aborted). */
  disarm(): void {
    this.#sleeping = undefined;
  }

  /** @internal Reads and clears the urgent flag. */
  takeUrgent(): boolean {
    const urgent = this.#urgent;
    this.#urgent = false;
    return urgent;
  }
}

/**
 * How to poll: what to read, how long and how often.
 *
 * @example
 * ```ts
 * const options: PollOptions<TaskStatus> = { describe: 'upscale task t1', read, backoff: { minDelayMs: 1_000, maxDelayMs: 24_000, growFactor: 2 }, waitTimeout: 600_000 };
 * ```
 */
export interface PollOptions<T> {
  /** Reads the state once; `signal` aborts the read (the caller's signal, the deadline). */
  read(signal: AbortSignal): Promise<PollReading<T>>;
  /** What is waited for, as a `TimeoutError` names it: `upscale task 123`, `job abc`. */
  describe: string;
  /** Delays between readings (growing per reading) and after failed ones (growing per failure). */
  backoff: Backoff;
  signal?: AbortSignal | undefined;
  /** Deadline of the whole wait in ms, or `false`/`undefined` for none. */
  waitTimeout?: number | false | undefined;
  /** Time between two readings that both say "queued" does not count against `waitTimeout`. */
  freeQueued?: boolean | undefined;
  /** The work was queued when the wait started (the submission said so). */
  startsQueued?: boolean | undefined;
  /** When the next reading is due after a successful one, in ms from now; default the backoff. */
  dueIn?: ((state: PollState) => number) | undefined;
  /** A `404` before the first successful reading is lag (not an error) for this long, in ms. */
  notFoundGraceMs?: number | undefined;
  /**
   * Shared bound on readings in flight at once (one slow answer delays no other wait): a
   * `Limiter` (`limiter.ts`, which uses this file's `onAbort`, so only its shape is named here).
   */
  limiter?: { run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> } | undefined;
  clock?: Clock | undefined;
  waker?: Waker | undefined;
  random?: (() => number) | undefined;
}

/**
 * The one wait engine of the SDK: reads a state until it is terminal, yielding every successful
 * reading (the terminal one last). Failed readings that are transient are retried on the
 * backoff, never before the server's `Retry-After`; any other failure is thrown. The deadline
 * counts all time, failed readings included, except the time between two readings that both
 * confirmed "queued" when `freeQueued` is set; it also aborts a reading in flight. Every sleep is
 * abortable (`signal`, `waker`), so `break`, an abort or a close leaves no timer behind.
 *
 * @throws {@link TimeoutError} when `waitTimeout` is spent (`cause`: the last failed reading).
 * @example
 * ```ts
 * for await (const { value } of poll({ describe: 'job p1', read, backoff })) console.log(value);
 * ```
 */
export async function* poll<T>(options: PollOptions<T>): AsyncGenerator<PollReading<T>, void, undefined> {
  const clock = options.clock ?? realClock;
  const deadline = typeof options.waitTimeout === 'number' ? options.waitTimeout : undefined;
  // backoffDelay() draws with Math.random when `random` is not given.
  const { signal, waker, backoff, random } = options;
  const startedAt = clock.now();
  let lastAt = startedAt;
  let lastQueued = options.startsQueued === true;
  let charged = 0;
  let reads = 0;
  let failures = 0;
  let lastError: unknown;
  // When the next reading is due, fixed once per reading (the jitter is drawn once); `undefined`
  // while a custom schedule decides.
  let dueAt: number | undefined = options.dueIn ? undefined : startedAt;
  let notBefore = 0;

  const counting = () => !(options.freeQueued && lastQueued);
  const budgetLeft = () => (deadline === undefined ? Infinity : deadline - charged - (counting() ? clock.now() - lastAt : 0));
  const timedOut = () => new TimeoutError(`waiting for ${options.describe}`, deadline ?? 0, lastError);

  for (;;) {
    // Sleep until the next reading is due, re-planning whenever the waker rings.
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      if (budgetLeft() <= 0) throw timedOut();
      const now = clock.now();
      const urgent = waker?.takeUrgent() ?? false;
      const planned = urgent ? now : (dueAt ?? now + Math.max(0, options.dueIn?.({ now, startedAt, lastReadAt: lastAt, reads }) ?? 0));
      const due = Math.max(planned, notBefore);
      if (due <= now) break;
      // One signal for the sleep: the waker's, which the caller's abort also rings (a listener,
      // not AbortSignal.any: that allocates a tracked signal per sleep, for every waiting job).
      const wakeSignal = waker?.arm();
      const forget = wakeSignal ? onAbort(signal, () => waker?.wake()) : undefined;
      try {
        await clock.sleep(Math.min(due - now, budgetLeft()), wakeSignal ?? signal);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (!wakeSignal?.aborted) throw error;
        // Woken: re-plan.
      } finally {
        forget?.();
        waker?.disarm();
      }
    }

    let reading: PollReading<T> | undefined;
    let failure: unknown;
    const left = budgetLeft();
    // The reading's signal: aborted by the caller's signal (relayed by a listener) or, at the
    // deadline, by the cut-off timer. Real timers: a simulated clock (which moves when slept on)
    // schedules the readings; only the runtime's timers can race one.
    const cutoff = new AbortController();
    const unfollow = follow(cutoff, [signal]);
    const timer = Number.isFinite(left) && counting() ? setTimer(() => cutoff.abort(timedOut()), left) : undefined;
    try {
      reading = await (options.limiter ? options.limiter.run(() => options.read(cutoff.signal), cutoff.signal) : options.read(cutoff.signal));
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(timer);
      unfollow();
    }
    const now = clock.now();
    const queuedNow = reading?.queued === true;
    if (!(options.freeQueued && lastQueued && queuedNow)) charged += now - lastAt;
    lastAt = now;
    lastQueued = queuedNow;

    if (reading) {
      reads++;
      failures = 0;
      notBefore = 0;
      yield reading;
      if (reading.terminal) return;
      dueAt = options.dueIn ? undefined : now + backoffDelay(reads, backoff, random);
    } else {
      if (signal?.aborted) throw signal.reason;
      // Nothing awaited since the reading failed: the cut-off aborted it, not the caller.
      if (cutoff.signal.aborted) throw cutoff.signal.reason;
      const lag = failure instanceof NotFoundError && reads === 0 && now - startedAt < (options.notFoundGraceMs ?? 0);
      if (!lag && !isTransientError(failure)) throw failure;
      lastError = failure;
      failures++;
      const retryAfter = failure instanceof ApiError ? (failure.retryAfterMs ?? 0) : 0;
      // Never ask again before the server's Retry-After; if that lies past the budget, stop now.
      if (retryAfter > 0 && counting() && retryAfter >= budgetLeft()) throw timedOut();
      notBefore = now + retryAfter;
      dueAt = now + Math.max(backoffDelay(failures, backoff, random), retryAfter);
    }
  }
}

/**
 * Polls until a terminal reading and resolves with its value; `onReading` sees every reading.
 *
 * @throws {@link TimeoutError} when `waitTimeout` is spent.
 * @example
 * ```ts
 * const status = await pollUntil({ describe: 'job p1', read, backoff, waitTimeout: 60_000 });
 * ```
 */
export async function pollUntil<T>(options: PollOptions<T>, onReading?: (reading: PollReading<T>) => void): Promise<T> {
  let last: PollReading<T> | undefined;
  for await (const reading of poll(options)) {
    last = reading;
    onReading?.(reading);
  }
  // poll() returns only after a terminal reading, which it always yields first.
  return (last as PollReading<T>).value;
}
