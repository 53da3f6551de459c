// One QueueEvents reader per process, shared by every Run handle: BullMQ's event stream (progress,
// completed, failed, removed) and the state events workers publish, routed to the runs followed.
import { QueueEvents, type ConnectionOptions } from 'bullmq';
import type { RunProgress, RunState } from './types.js';

/** The name of the state events workers publish on the queue's event stream. */
export const STATE_EVENT = 'graphcloud:state';
/** Events kept in the stream (BullMQ's own default). */
export const MAX_EVENTS = 10_000;

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
