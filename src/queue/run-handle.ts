// A handle on one run, from any process: its result when it ends, and its events as they come.
// Both read BullMQ's event stream (one QueueEvents reader per process, `RunFeed`) and, between
// events, the run itself: an event missed (a reconnect, a restart of Redis) delays nothing longer
// than one re-check.
import { QueueEvents, type ConnectionOptions } from 'bullmq';
import { sleep, STOPPED, throwIfAborted, type GraphcloudError } from '../core/index.js';
import { STATE_EVENT } from './store.js';
import { ENDED_STATES, type RunEvent, type RunInfo, type RunProgress, type RunState } from './types.js';

/** How often a follower reads the run itself, besides the events, in ms. */
const RECHECK_MS = 2_000;

/**
 * What a handle needs from its queue: the shared event feed, the run's current record, and the
 * error of a run that did not complete.
 *
 * @example
 * ```ts
 * const source: RunSource = { feed, get: (id) => queue.get(id), error: (id) => queue.errorOf(id) };
 * ```
 */
export interface RunSource {
  feed: RunFeed;
  get(id: string): Promise<RunInfo | undefined>;
  error(id: string): Promise<GraphcloudError>;
}

/**
 * A run of the queue. `result()` resolves with its result wherever it ran (a `JobResult` for a
 * workflow); `events()` yields its progress and state changes.
 *
 * @example
 * ```ts
 * const run = await queue.add({ workflow });
 * for await (const event of run.events()) console.log(event);
 * const result = await run.result();
 * ```
 */
export class Run {
  /** The run's id. */
  readonly id: string;
  readonly #source: RunSource;

  /** @internal Made by `queue.add()` and `queue.run()`. */
  constructor(id: string, source: RunSource) {
    this.id = id;
    this.#source = source;
  }

  /**
   * The run as it stands now (`queue.get(id)`).
   *
   * @example
   * ```ts
   * console.log((await run.get())?.state);
   * ```
   */
  async get(): Promise<RunInfo | undefined> {
    return this.#source.get(this.id);
  }

  /**
   * Waits for the run to end: resolves with its result, or rejects with `RunFailedError` (failed
   * or cancelled) or `RunUnknownError` (it may have been submitted; its job could not be found).
   *
   * @throws `RunFailedError`, `RunUnknownError`, or `signal.reason` on abort.
   * @example
   * ```ts
   * const { outputs } = (await run.result()) as JobResult;
   * ```
   */
  async result(options?: { signal?: AbortSignal | undefined }): Promise<unknown> {
    const signal = options?.signal;
    throwIfAborted(signal);
    const { feed } = this.#source;
    let ended: { completed: boolean; result?: unknown } | undefined;
    let wake: (() => void) | undefined;
    const stop = feed.follow(this.id, (event) => {
      if (event.type !== 'ended') return;
      ended = event;
      wake?.();
    });
    try {
      await feed.ready();
      // Read once (it may have ended already), then on its end event (a completed one carries the
      // result) or every RECHECK_MS, whichever comes first.
      while (!ended) {
        const info = await this.#source.get(this.id);
        const state = info?.state ?? 'cancelled';
        if (state === 'completed') return info?.result;
        if (ENDED_STATES.has(state)) break;
        // Its end event may have come while it was read.
        if (!ended) await this.#pause(signal, (resolve) => (wake = resolve));
      }
      if (ended?.completed) return ended.result;
      throw await this.#source.error(this.id);
    } finally {
      stop();
    }
  }

  /**
   * The run's events until it ends: `state` on every change (the last one is its end state) and
   * `progress`. Each call follows the run on its own; `break` stops following.
   *
   * @example
   * ```ts
   * for await (const event of run.events()) if (event.type === 'progress') bar.update(event.progress.fraction);
   * ```
   */
  async *events(options?: { signal?: AbortSignal | undefined }): AsyncGenerator<RunEvent, void, undefined> {
    const signal = options?.signal;
    throwIfAborted(signal);
    const { feed } = this.#source;
    const pending: RunEvent[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const stop = feed.follow(this.id, (event) => {
      if (event.type === 'ended') ended = true;
      else if (event.type === 'progress') pending.push({ type: 'progress', runId: this.id, progress: event.progress });
      else pending.push({ type: 'state', runId: this.id, state: event.state, promptId: event.promptId, taskId: event.taskId });
      wake?.();
    });
    try {
      await feed.ready();
      let last: RunState | undefined;
      // The run itself is read first, on its end, and every RECHECK_MS: the truth whatever events were missed.
      let read = true;
      for (;;) {
        while (pending.length > 0) {
          const event = pending.shift() as RunEvent;
          if (event.type === 'state') {
            if (event.state === last || ENDED_STATES.has(event.state)) continue;
            last = event.state;
          }
          yield event;
        }
        if (read || ended) {
          read = ended = false;
          const info = await this.#source.get(this.id);
          const state = info?.state ?? 'cancelled';
          if (state !== last) {
            last = state;
            yield { type: 'state', runId: this.id, state, promptId: info?.promptId, taskId: info?.taskId };
          }
          if (ENDED_STATES.has(state)) return;
        }
        // Events that came while the run was read or an event was yielded are taken first.
        if (pending.length > 0 || ended) continue;
        read = !(await this.#pause(signal, (resolve) => (wake = resolve)));
        wake = undefined;
      }
    } finally {
      stop();
    }
  }

  /** Waits for an event (true) or RECHECK_MS (false); throws the signal's reason on abort. */
  async #pause(signal: AbortSignal | undefined, onWake: (resolve: () => void) => void): Promise<boolean> {
    let woken = false;
    const tick = new AbortController();
    const event = new Promise<void>((resolve) => onWake(() => resolve((woken = true, undefined))));
    await Promise.race([event, sleep(RECHECK_MS, signal ? AbortSignal.any([signal, tick.signal]) : tick.signal).catch(() => undefined)]);
    tick.abort(STOPPED);
    throwIfAborted(signal);
    return woken;
  }
}

/**
 * What a followed run hears: an end (`completed`, with its result; `failed`, `removed`), progress, or a state its worker published.
 *
 * @example
 * ```ts
 * feed.follow(runId, (signal) => console.log(signal.type));
 * ```
 */
export type FeedSignal = { type: 'ended'; completed: boolean; result?: unknown } | { type: 'progress'; progress: RunProgress } | { type: 'state'; state: RunState; promptId?: string | undefined; taskId?: string | undefined };

/**
 * Routes the queue's events to the runs followed in this process; reads nothing until the first
 * follower, and closes its connection on `close()`.
 *
 * @example
 * ```ts
 * const feed = new RunFeed('renders', { prefix: 'graphcloud', connection });
 * const stop = feed.follow('order-1234', onSignal);
 * ```
 */
export class RunFeed {
  readonly #name: string;
  readonly #options: { prefix: string; connection: ConnectionOptions };
  readonly #followers = new Map<string, Set<(signal: FeedSignal) => void>>();
  #events: QueueEvents | undefined;

  constructor(name: string, options: { prefix: string; connection: ConnectionOptions }) {
    this.#name = name;
    this.#options = options;
  }

  /** Starts reading (if not yet) and resolves once the reader listens, so no later event is missed. */
  async ready(): Promise<void> {
    if (!this.#events) {
      const events = new QueueEvents(this.#name, { ...this.#options, autorun: true });
      // A lost connection is retried by BullMQ; an error event without a listener would throw.
      events.on('error', () => undefined);
      const tell = (jobId: string, signal: FeedSignal) => this.#followers.get(jobId)?.forEach((listener) => listener(signal));
      // A completed run's event carries its result (BullMQ's `returnvalue`): no read is needed.
      events.on('completed', ({ jobId, returnvalue }) => tell(jobId, { type: 'ended', completed: true, result: returnvalue }));
      events.on('failed', ({ jobId }) => tell(jobId, { type: 'ended', completed: false }));
      events.on('removed', ({ jobId }) => tell(jobId, { type: 'ended', completed: false }));
      events.on('progress', ({ jobId, data }) => {
        if (typeof data === 'object' && data !== null && typeof (data as RunProgress).fraction === 'number') tell(jobId, { type: 'progress', progress: data as RunProgress });
      });
      events.on(STATE_EVENT as 'progress', (args: unknown) => {
        const { jobId, state, promptId, taskId } = args as Record<string, string | undefined>;
        if (jobId !== undefined && state !== undefined) tell(jobId, { type: 'state', state: state as RunState, promptId, taskId });
      });
      this.#events = events;
    }
    await this.#events.waitUntilReady();
  }

  /** Calls `listener` with every signal of the run until the returned function is called. */
  follow(runId: string, listener: (signal: FeedSignal) => void): () => void {
    let set = this.#followers.get(runId);
    if (!set) this.#followers.set(runId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#followers.delete(runId);
    };
  }

  async close(): Promise<void> {
    this.#followers.clear();
    await this.#events?.close();
  }
}
