import { backoffDelay, poll, STOPPED, Waker, type Limiter, type PollState } from '../../core/index.js';
import type { PollPolicy } from '../shared/defaults.js';
import type { Absence, JobReader } from '../shared/job-reader.js';
import type { JobStatusInfo } from '../shared/types.js';
import type { WatcherStats } from './events.js';
import type { Seen } from './router.js';
import type { SocketLink } from './socket.js';

/**
 * What one job's poll loop needs: the client's job reader, socket and counters, and what the
 * messages told of the job.
 *
 * @example
 * ```ts
 * new JobPoll({ promptId, reader, stats, policy, limiter, socket, seen: router.follow(promptId, track) });
 * ```
 */
export interface JobPollOptions {
  promptId: string;
  /** Reads the job's status (`watchStatus`); each read counts in `stats.polls`. */
  reader: JobReader;
  stats: WatcherStats;
  policy: PollPolicy;
  /** Shared by every job of the client: bounds the reads in flight, one slow answer holds one slot. */
  limiter: Limiter;
  /** The client's socket: its state decides when a read is due. */
  socket: SocketLink;
  /** What the messages told of the job: its last activity starts the silence clock. */
  seen: Readonly<Seen>;
  random?: (() => number) | undefined;
}

const FOREVER = 2_147_483_647;

/**
 * The fallback polling of one job, on the core wait engine (`poll()`): it reads the job's status
 * after `silenceMs` without a message while the socket is open, on a growing backoff while the
 * socket is down, at once when asked (a reconnect, an outage, an end to confirm), and never
 * before a server's `Retry-After`. Failed reads are retried on the engine's backoff when
 * transient; any other failure ends the loop. It owns its poll state; nobody else writes it.
 *
 * @example
 * ```ts
 * const loop = new JobPoll({ promptId, reader, stats, policy, limiter, socket, seen });
 * loop.run().then((status) => status && finish(status), fail);
 * socket.on('reconnect', () => loop.readNow());
 * ```
 */
export class JobPoll {
  readonly #options: JobPollOptions;
  readonly #waker = new Waker();
  readonly #stop = new AbortController();
  /** The reads in a row that found the job nowhere (`JobReader.watchStatus`). */
  readonly #absence: Absence = { reads: 0 };
  /** A read is wanted as soon as the socket state allows one. */
  #wanted = false;
  /** Successful reads when the socket was first seen down (the backoff counts from there). */
  #downSince: number | undefined;
  /** The delay drawn for the current reading (its jitter is drawn once). */
  #drawn: { reads: number; step: number; delay: number } | undefined;

  constructor(options: JobPollOptions) {
    this.#options = options;
  }

  /**
   * Polls until the job's status is terminal and resolves with it; resolves `undefined` once
   * stopped; rejects with a read's failure that is not transient (an auth refusal, a job of
   * another user, a `404` after `notFoundGraceMs`...).
   */
  async run(): Promise<JobStatusInfo | undefined> {
    const { promptId, reader, stats, policy, limiter, random } = this.#options;
    const signal = this.#stop.signal;
    const read = async (readSignal: AbortSignal) => {
      this.#wanted = false;
      stats.polls++;
      const status = await reader.watchStatus(promptId, { signal: readSignal, retry: false }, this.#absence);
      return { value: status, terminal: status.terminal };
    };
    try {
      const readings = poll({ describe: `job ${promptId}`, read, backoff: policy, signal, dueIn: this.#dueIn, notFoundGraceMs: policy.notFoundGraceMs, limiter, waker: this.#waker, random });
      for await (const reading of readings) if (reading.terminal) return reading.value;
    } catch (error) {
      if (signal.aborted) return undefined;
      throw error;
    }
    return undefined;
  }

  /** Reads as soon as the socket state allows (a job watched without its submission, after a gap). */
  readWhenReady(): void {
    this.#wanted = true;
    this.#waker.wake();
  }

  /** Reads now (the socket reconnected or went down: messages may be lost; an end to confirm). */
  readNow(): void {
    this.#wanted = true;
    this.#waker.wake(true);
  }

  /** Re-plans (the socket state changed). */
  replan(): void {
    this.#waker.wake();
  }

  /** Stops the loop and aborts its read in flight. */
  stop(): void {
    this.#stop.abort(STOPPED);
  }

  readonly #dueIn = (state: PollState): number => {
    const link = this.#options.socket.link;
    if (link === 'waiting') return FOREVER;
    if (this.#wanted) return 0;
    const policy = this.#options.policy;
    if (link === 'open') {
      this.#downSince = undefined;
      return Math.max(this.#options.seen.lastActivity, state.lastReadAt) + policy.silenceMs - state.now;
    }
    this.#downSince ??= state.reads;
    const step = state.reads - this.#downSince + 1;
    if (this.#drawn?.reads !== state.reads || this.#drawn.step !== step) {
      this.#drawn = { reads: state.reads, step, delay: backoffDelay(step, policy, this.#options.random) };
    }
    return state.lastReadAt + this.#drawn.delay - state.now;
  };
}
