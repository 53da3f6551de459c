import { EventEmitter } from 'eventemitter3';
import { callSafely, onAbort, setTimer, TimeoutError, ValidationError, withSubmitted, type WaitOptions } from '../../core/index.js';
import { JobFailedError, WatcherClosedError } from '../shared/errors.js';
import type { JobResult, NodeErrors } from '../shared/types.js';
import type { JobProgress, WatchEvent, WatcherListeners } from './events.js';
import type { ProgressTracker } from './progress.js';

type Listener = (...args: never[]) => unknown;
type Event = EventEmitter.EventNames<WatcherListeners>;
type ListenerOf<K extends Event> = EventEmitter.EventListener<WatcherListeners, K>;

// A listener is registered as its safe wrapper (one per function, so `off()` finds it): what it
// throws, or an async one rejects with, is dropped by `callSafely`, and the other listeners, the
// routing of other jobs and the job's result go on.
const SAFE = new WeakMap<Listener, Listener>();
const ORIGINAL = new WeakMap<Listener, Listener>();
function safe(listener: Listener, method: string, event: Event): Listener {
  if (typeof listener !== 'function') throw new ValidationError([{ path: 'listener', rule: 'a function', received: listener }], `watcher.${method}('${String(event)}')`);
  let wrapped = SAFE.get(listener);
  if (!wrapped) {
    // Every event has one argument; `this` is the watcher unless a context was given (eventemitter3 passes it).
    wrapped = function (this: unknown, arg: never) {
      callSafely(listener, arg, this);
    };
    SAFE.set(listener, wrapped);
    ORIGINAL.set(wrapped, listener);
  }
  return wrapped;
}

// Previews and node texts are of live interest only: a consumer that falls behind gets at most this many bytes of them.
const LIVE_BUFFER_BYTES = 8 * 1024 * 1024;
// Closing ends an iteration quietly; a timeout, abort or auth refusal is thrown.
const thrown = (reason: unknown): unknown => (reason instanceof WatcherClosedError ? undefined : reason);
const liveBytes = (event: WatchEvent): number => (event.type === 'preview' ? event.data.data.byteLength : event.type === 'text' ? event.data.data.length * 2 : 0);

/**
 * How one job is watched: the caller's signal and deadline (the client's when not given), a
 * per-job poll backoff, the submission's `node_errors`, and the workflow's nodes.
 *
 * @example
 * ```ts
 * hub.watch(promptId, { waitTimeout: 600_000, nodeErrors: submitted.nodeErrors }, since);
 * ```
 */
export interface WatchSettings extends WaitOptions {
  /** The submission's `node_errors`, copied into the result. */
  nodeErrors?: Record<string, NodeErrors> | undefined;
  /**
   * The ids of the submitted workflow's output nodes. A cached one that sent no `executed` has
   * its outputs read from the job record; unknown, every cached node without `executed` counts.
   */
  outputNodes?: readonly string[] | undefined;
  /** The ids of the workflow's nodes: the job's overall progress counts them. */
  nodes?: readonly string[] | undefined;
}

interface Queue {
  push(event: WatchEvent): void;
  end(error?: unknown): void;
}

/**
 * Watches one job on the client's shared socket. Listen with `on()`, iterate with `for await`,
 * or await `result()`; it always settles: completed, failed, cancelled (resolved), timed out,
 * aborted or closed (rejected; an SDK error then names the job in `submitted`). Breaking out of
 * `for await`, aborting or `close()` releases the job; the shared socket closes when no job is
 * left. Listeners are observers: what they throw is dropped.
 *
 * @example
 * ```ts
 * const watcher = cloud.jobs.watch(promptId);
 * watcher.on('progress', (p) => console.log(`${p.value}/${p.max}`));
 * const { status, outputs } = await watcher.result();
 * ```
 */
export class JobWatcher extends EventEmitter<WatcherListeners> implements AsyncIterable<WatchEvent> {
  /** The id of the watched job. */
  readonly promptId: string;
  // What a watcher holds is made when it is needed: thousands may wait at once, most of them
  // only for `result()` and one listener (no promise before `result()`, no queue before `for await`).
  /** The job's overall progress, shared by every watcher of the job. */
  readonly #progress: ProgressTracker;
  /** Tells the watcher's owner that it settled on its own (timeout, abort, close): one function per job. */
  readonly #leave: (watcher: JobWatcher) => void;
  readonly #nodeErrors: Record<string, NodeErrors> | undefined;
  #result: Promise<JobResult> | undefined;
  #resolve: ((result: JobResult) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  #outcome: { result: JobResult } | { error: unknown } | undefined;
  #queues: Set<Queue> | undefined;
  #onEvent: ((event: WatchEvent) => unknown)[] | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unlisten: (() => void) | undefined;

  /**
   * Makes the watcher of a job, for the hub that follows it. `leave` is called once if the watcher
   * settles on its own (its deadline, the caller's abort, `close()`), never when the hub settles it
   * (`finish()`, `fail()`): the hub then already knows.
   *
   * @internal
   */
  static open(promptId: string, settings: WatchSettings, waitTimeout: number | false, progress: ProgressTracker, leave: (watcher: JobWatcher) => void): JobWatcher {
    return new JobWatcher(promptId, settings, waitTimeout, progress, leave);
  }

  private constructor(promptId: string, settings: WatchSettings, waitTimeout: number | false, progress: ProgressTracker, leave: (watcher: JobWatcher) => void) {
    super();
    this.promptId = promptId;
    this.#nodeErrors = settings.nodeErrors;
    this.#progress = progress;
    this.#leave = leave;
    const { signal } = settings;
    if (signal) {
      // An abort rejects with the caller's own reason, unchanged.
      const fail = () => this.fail(signal.reason, true);
      if (signal.aborted) queueMicrotask(fail);
      else this.#unlisten = onAbort(signal, fail);
    }
    if (waitTimeout !== false) {
      // A plain timer, cleared when the watcher settles: nobody awaits this deadline, so the
      // abortable sleep (a controller, a promise and a listener per watcher) would buy nothing.
      this.#timer = setTimer(() => this.fail(withSubmitted(new TimeoutError(`waiting for job ${promptId}`, waitTimeout), { kind: 'job', promptId }), true), waitTimeout);
    }
  }

  /**
   * Calls `listener` on every `event`; what it throws is dropped. `addListener` is the same.
   *
   * @example
   * ```ts
   * watcher.on('progress', (p) => console.log(`${p.value}/${p.max}`));
   * ```
   */
  override on<K extends Event>(event: K, listener: ListenerOf<K>, context?: unknown): this {
    return super.on(event, safe(listener, 'on', event) as ListenerOf<K>, context);
  }

  /**
   * Calls `listener` on every `event` (the same as `on`).
   *
   * @example
   * ```ts
   * watcher.addListener('executed', (e) => console.log(e.node));
   * ```
   */
  override addListener<K extends Event>(event: K, listener: ListenerOf<K>, context?: unknown): this {
    return super.addListener(event, safe(listener, 'addListener', event) as ListenerOf<K>, context);
  }

  /**
   * Calls `listener` on the next `event` only; what it throws is dropped.
   *
   * @example
   * ```ts
   * watcher.once('execution_start', () => console.log('started'));
   * ```
   */
  override once<K extends Event>(event: K, listener: ListenerOf<K>, context?: unknown): this {
    return super.once(event, safe(listener, 'once', event) as ListenerOf<K>, context);
  }

  /**
   * Removes `listener` from `event`, or every listener of `event` without one. `removeListener` is the same.
   *
   * @example
   * ```ts
   * watcher.off('progress', onProgress);
   * ```
   */
  override off<K extends Event>(event: K, listener?: ListenerOf<K>, context?: unknown, once?: boolean): this {
    return super.off(event, listener && ((SAFE.get(listener) ?? listener) as ListenerOf<K>), context, once);
  }

  /**
   * Removes `listener` from `event` (the same as `off`).
   *
   * @example
   * ```ts
   * watcher.removeListener('progress', onProgress);
   * ```
   */
  override removeListener<K extends Event>(event: K, listener?: ListenerOf<K>, context?: unknown, once?: boolean): this {
    return this.off(event, listener, context, once);
  }

  /**
   * The listeners of `event`, as they were added.
   *
   * @example
   * ```ts
   * console.log(watcher.listeners('progress').length);
   * ```
   */
  override listeners<K extends Event>(event: K): ListenerOf<K>[] {
    return super.listeners(event).map((wrapped) => (ORIGINAL.get(wrapped) ?? wrapped) as ListenerOf<K>);
  }

  /** True once the watcher has settled. */
  get settled(): boolean {
    return this.#outcome !== undefined;
  }

  /**
   * How far along the whole job is now (what the last `job_progress` event carried): nodes done,
   * cached, the workflow's node count, the running node's share, and a fraction from 0 to 1.
   *
   * @example
   * ```ts
   * watcher.on('progress', () => console.log(`${Math.round((watcher.progress.fraction ?? 0) * 100)}%`));
   * ```
   */
  get progress(): JobProgress {
    return this.#progress.progress;
  }

  /**
   * Resolves with the outcome of the job (failed and cancelled runs resolve too: check `status`).
   *
   * @example
   * ```ts
   * const { status, outputs, outputsComplete } = await cloud.jobs.watch(promptId).result();
   * ```
   */
  result(): Promise<JobResult> {
    if (!this.#result) {
      const outcome = this.#outcome;
      this.#result = outcome ? ('result' in outcome ? Promise.resolve(outcome.result) : Promise.reject(outcome.error)) : new Promise<JobResult>((resolve, reject) => ((this.#resolve = resolve), (this.#reject = reject)));
      // The outcome is also reported through events and iteration: never an unhandled rejection.
      this.#result.catch(() => undefined);
    }
    return this.#result;
  }

  /**
   * Stops watching: releases the job; `result()` rejects with a `WatcherClosedError` if it had not
   * settled. The job itself keeps running on the server.
   *
   * @example
   * ```ts
   * const watcher = cloud.jobs.watch(promptId);
   * setTimeout(() => watcher.close(), 60_000);
   * ```
   */
  close(): void {
    this.fail(new WatcherClosedError(this.promptId), true);
  }

  /**
   * Calls `listener` with every event as `{type, data}` (what `for await` yields), until the
   * watcher settles. What it throws is dropped.
   *
   * @example
   * ```ts
   * watcher.onEvent((event) => log(event.type));
   * ```
   */
  onEvent(listener: (event: WatchEvent) => unknown): this {
    if (typeof listener !== 'function') throw new ValidationError([{ path: 'listener', rule: 'a function', received: listener }], 'watcher.onEvent()');
    (this.#onEvent ??= []).push(listener);
    return this;
  }

  /**
   * Whether an event of this type would reach anyone: a listener of it, `onEvent` or an iterator.
   *
   * @internal
   */
  wants(type: WatchEvent['type']): boolean {
    return this.#outcome === undefined && (this.#onEvent !== undefined || (this.#queues?.size ?? 0) > 0 || this.listenerCount(type) > 0);
  }

  /**
   * Gives the watcher one event of its job (the hub's call).
   *
   * @internal
   */
  deliver(event: WatchEvent): void {
    if (this.#outcome) return;
    this.emit(event.type, event.data as never);
    if (this.#onEvent) for (const listener of this.#onEvent) callSafely(listener, event);
    if (this.#queues) for (const queue of this.#queues) queue.push(event);
  }

  /**
   * Settles the watcher with how its job ended (the hub's call).
   *
   * @internal
   */
  finish(result: Omit<JobResult, 'nodeErrors'>): void {
    if (this.#outcome) return;
    const full: JobResult = { ...result, nodeErrors: this.#nodeErrors ?? {} };
    this.#settle({ result: full }, false);
    this.emit('result', full);
    if (full.status !== 'completed') this.emit('error', new JobFailedError(full as JobResult & { status: 'failed' | 'cancelled' }));
  }

  /**
   * Settles the watcher with a failure of the wait: a refused credential, the client closed... (the
   * hub's call), or on its `own` (its deadline, the caller's abort, `close()`).
   *
   * @internal
   */
  fail(error: unknown, own = false): void {
    if (this.#outcome) return;
    this.#settle({ error }, own);
    this.emit('error', error instanceof Error ? error : new Error(String(error)));
  }

  /**
   * Settles once: the deadline and the abort listener go, `result()` and the iterations settle.
   * Settled on its `own` (deadline, abort, close), it tells its owner it left the job.
   */
  #settle(outcome: { result: JobResult } | { error: unknown }, own: boolean): void {
    this.#outcome = outcome;
    clearTimeout(this.#timer);
    this.#unlisten?.();
    this.#unlisten = undefined;
    if (own) this.#leave(this);
    if ('result' in outcome) this.#resolve?.(outcome.result);
    else this.#reject?.(outcome.error);
    this.#resolve = this.#reject = undefined;
    if (this.#queues) for (const queue of this.#queues) queue.end('error' in outcome ? outcome.error : undefined);
  }

  /**
   * Yields every event of the job until it settles; `break` releases the job. While a slow loop
   * body runs, the previews and texts waiting for it are capped at 8 MiB: beyond that they are
   * dropped (other events never are).
   */
  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    const buffer: WatchEvent[] = [];
    let head = 0;
    let live = 0;
    let waiting: { resolve: (r: IteratorResult<WatchEvent>) => void; reject: (e: unknown) => void } | undefined;
    const outcome = this.#outcome;
    let ended = outcome !== undefined;
    let error: unknown = outcome && 'error' in outcome ? thrown(outcome.error) : undefined;
    const queue: Queue = {
      push: (event) => {
        if (waiting) {
          waiting.resolve({ value: event, done: false });
          waiting = undefined;
        } else if (live + liveBytes(event) <= LIVE_BUFFER_BYTES) {
          live += liveBytes(event);
          buffer.push(event);
        }
      },
      end: (reason) => {
        ended = true;
        error = thrown(reason);
        this.#queues?.delete(queue);
        if (waiting && head >= buffer.length) {
          if (error !== undefined) waiting.reject(error);
          else waiting.resolve({ value: undefined, done: true });
          waiting = undefined;
        }
      },
    };
    if (!ended) (this.#queues ??= new Set()).add(queue);
    const iterator: AsyncIterator<WatchEvent> & AsyncIterable<WatchEvent> = {
      next: () => {
        if (head < buffer.length) {
          const value = buffer[head++] as WatchEvent;
          live -= liveBytes(value);
          if (head > 1024 && head * 2 > buffer.length) {
            buffer.splice(0, head);
            head = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (ended) {
          const failure = error;
          error = undefined;
          return failure !== undefined ? Promise.reject(failure) : Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve, reject) => {
          waiting = { resolve, reject };
        });
      },
      return: () => {
        this.#queues?.delete(queue);
        ended = true;
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }
}
