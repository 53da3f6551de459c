import { EventEmitter } from 'eventemitter3';
import { sleep, TimeoutError } from '../core/index.js';
import { JobFailedError, WatcherClosedError } from '../cloud/errors.js';
import type { JobResult, NodeErrors } from '../cloud/types.js';
import type { WatchEvent, WatcherListeners } from './events.js';
import type { JobSink } from './router.js';

/**
 * Options of `cloud.watch()`.
 *
 * @example
 * ```ts
 * cloud.watch(promptId, { timeout: 600_000, signal: AbortSignal.timeout(900_000) });
 * ```
 */
export interface WatchOptions {
  /** Stops watching; `result()` rejects with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /**
   * Deadline in ms; `result()` then rejects with a `TimeoutError`. `0` disables it.
   * @default CLOUD_DEFAULTS.watch.timeoutMs (3_600_000)
   */
  timeout?: number | undefined;
  /** The submission's `node_errors`, copied into the result. */
  nodeErrors?: Record<string, NodeErrors> | undefined;
}

interface Queue {
  push(event: WatchEvent): void;
  end(error?: unknown): void;
}

/**
 * Watches one job on the client's shared socket. Listen with `on()` (eventemitter3), iterate with
 * `for await`, or await `result()`; it always settles: completed, failed, cancelled (resolved),
 * timed out or aborted (rejected). Breaking out of `for await`, aborting or `close()` releases the
 * job; the shared socket closes when no job is left.
 *
 * @example
 * ```ts
 * const watcher = cloud.watch(promptId);
 * watcher.on('progress', (p) => console.log(`${p.value}/${p.max}`));
 * const { status, outputs } = await watcher.result();
 * ```
 */
export class JobWatcher extends EventEmitter<WatcherListeners> implements JobSink, AsyncIterable<WatchEvent> {
  readonly promptId: string;
  readonly #result: Promise<JobResult>;
  readonly #queues = new Set<Queue>();
  readonly #nodeErrors: Record<string, NodeErrors>;
  readonly #stop = new AbortController();
  #resolve!: (result: JobResult) => void;
  #reject!: (error: unknown) => void;
  #settled = false;
  #failure: unknown;
  #detach: (() => void) | undefined;
  #onEvent: ((event: WatchEvent) => void)[] = [];

  /** @internal Created by `cloud.watch()`; `detach` releases the job from the shared socket. */
  constructor(promptId: string, options: WatchOptions & { timeout: number }, detach: () => void) {
    super();
    this.promptId = promptId;
    this.#nodeErrors = options.nodeErrors ?? {};
    this.#detach = detach;
    this.#result = new Promise<JobResult>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // The outcome is also reported through events and iteration: never an unhandled rejection.
    this.#result.catch(() => undefined);
    const { signal, timeout } = options;
    if (signal) {
      const onAbort = () => this.fail(signal.reason);
      if (signal.aborted) queueMicrotask(onAbort);
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        this.#stop.signal.addEventListener('abort', () => signal.removeEventListener('abort', onAbort), { once: true });
      }
    }
    if (timeout > 0 && Number.isFinite(timeout)) {
      sleep(timeout, this.#stop.signal).then(() => this.fail(new TimeoutError(`watching job ${promptId}`, timeout)), () => undefined);
    }
  }

  /** True once the watcher has settled. */
  get settled(): boolean {
    return this.#settled;
  }

  /**
   * Resolves with the outcome of the job (failed and cancelled runs resolve too: check `status`).
   *
   * @example
   * ```ts
   * const { status, outputs, outputsComplete } = await cloud.watch(promptId).result();
   * ```
   */
  result(): Promise<JobResult> {
    return this.#result;
  }

  /**
   * Stops watching: releases the job; `result()` rejects with a `WatcherClosedError` if it had not
   * settled. The job itself keeps running on the server.
   *
   * @example
   * ```ts
   * const watcher = cloud.watch(promptId);
   * setTimeout(() => watcher.close(), 60_000);
   * ```
   */
  close(): void {
    this.fail(new WatcherClosedError(this.promptId));
  }

  /**
   * Calls `listener` with every event as `{type, data}` (what `for await` yields), until the
   * watcher settles.
   *
   * @example
   * ```ts
   * watcher.onEvent((event) => log(event.type));
   * ```
   */
  onEvent(listener: (event: WatchEvent) => void): this {
    this.#onEvent.push(listener);
    return this;
  }

  /** @internal One event from the router. */
  deliver(event: WatchEvent): void {
    if (this.#settled) return;
    this.#emitSafely(event.type, event.data);
    for (const listener of this.#onEvent) this.#callSafely(listener, event);
    for (const queue of this.#queues) queue.push(event);
  }

  /** @internal The job ended. */
  finish(result: Omit<JobResult, 'nodeErrors'>): void {
    if (this.#settled) return;
    const full: JobResult = { ...result, nodeErrors: this.#nodeErrors };
    this.#settle();
    this.#resolve(full);
    this.#emitSafely('result', full);
    if (full.status !== 'completed') this.#emitSafely('error', new JobFailedError(full as JobResult & { status: 'failed' | 'cancelled' }));
    for (const queue of this.#queues) queue.end();
  }

  /** @internal Watching failed (timeout, abort, close, auth refusal). */
  fail(error: unknown): void {
    if (this.#settled) return;
    this.#failure = error;
    this.#settle();
    this.#reject(error);
    if (this.listenerCount('error') > 0) this.#emitSafely('error', error instanceof Error ? error : new Error(String(error)));
    for (const queue of this.#queues) queue.end(error);
  }

  #settle(): void {
    this.#settled = true;
    this.#stop.abort();
    const detach = this.#detach;
    this.#detach = undefined;
    detach?.();
  }

  #emitSafely(type: string, data: unknown): void {
    this.#callSafely(() => (this.emit as (type: string, data: unknown) => boolean)(type, data), undefined);
  }

  #callSafely<T>(call: (arg: T) => unknown, arg: T): void {
    try {
      call(arg);
    } catch (error) {
      // A throwing listener must not break the routing of other jobs; it surfaces as the
      // uncaught error it would have been in the caller's own code.
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  /** Yields every event of the job until it settles; `break` releases the job. */
  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    const buffer: WatchEvent[] = [];
    let head = 0;
    let waiting: { resolve: (r: IteratorResult<WatchEvent>) => void; reject: (e: unknown) => void } | undefined;
    let ended = this.#settled;
    let error: unknown = this.#settled && !(this.#failure instanceof WatcherClosedError) ? this.#failure : undefined;
    const queue: Queue = {
      push: (event) => {
        if (waiting) {
          const w = waiting;
          waiting = undefined;
          w.resolve({ value: event, done: false });
        } else buffer.push(event);
      },
      end: (reason) => {
        // Closing ends the iteration quietly; a timeout, abort or auth refusal is thrown.
        const failure = reason instanceof WatcherClosedError ? undefined : reason;
        ended = true;
        error = failure;
        this.#queues.delete(queue);
        if (waiting && head >= buffer.length) {
          const w = waiting;
          waiting = undefined;
          if (failure !== undefined) w.reject(failure);
          else w.resolve({ value: undefined, done: true });
        }
      },
    };
    if (!ended) this.#queues.add(queue);
    const iterator: AsyncIterator<WatchEvent> & AsyncIterable<WatchEvent> = {
      next: () => {
        if (head < buffer.length) {
          const value = buffer[head++] as WatchEvent;
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
        this.#queues.delete(queue);
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
