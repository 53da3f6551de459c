import { ApiError, AuthenticationError, NotFoundError, PermissionDeniedError, sleep, type RequestOptions } from '../core/index.js';
import type { JobStatusInfo, NodeOutput } from '../cloud/types.js';
import type { WatcherStats } from './events.js';
import type { Track } from './router.js';

/**
 * What the watcher asks the server when the socket cannot tell it: the job's status, and its
 * outputs once it is over. `CloudClient` provides it.
 *
 * @example
 * ```ts
 * const source: JobSource = { getJobStatus: (id, o) => cloud.getJobStatus(id, o), getJobOutputs: (id, o) => cloud.getJobOutputs(id, o) };
 * ```
 */
export interface JobSource {
  getJobStatus(promptId: string, options?: RequestOptions): Promise<JobStatusInfo>;
  getJobOutputs(promptId: string, options?: RequestOptions): Promise<{ outputs: Record<string, NodeOutput>; complete: boolean }>;
}

/**
 * Poll policy (see `CLOUD_DEFAULTS.poll`).
 *
 * @example
 * ```ts
 * const policy: PollPolicy = CLOUD_DEFAULTS.poll;
 * ```
 */
export interface PollPolicy {
  silenceMs: number;
  minIntervalMs: number;
  maxIntervalMs: number;
  concurrency: number;
  notFoundLimit: number;
}

/**
 * What the poller needs from the hub.
 *
 * @example
 * ```ts
 * new Poller({ source, policy, stats, tracks: () => router.tracks.values(), fallback: () => false, onTerminal, onFailure });
 * ```
 */
export interface PollerOptions {
  source: JobSource;
  policy: PollPolicy;
  stats: WatcherStats;
  tracks: () => Iterable<Track>;
  /** True while the socket is not open: every job is polled on a backoff schedule. */
  fallback: () => boolean;
  /** A poll found the job over. */
  onTerminal(track: Track, info: JobStatusInfo): void;
  /** A poll failed for good: the job (or, for an auth refusal, every job) must fail. */
  onFailure(track: Track, error: Error): void;
  random?: () => number;
}

const MAX_SLEEP = 2 ** 31 - 1;

/**
 * Polls `getJobStatus()` for the jobs that need it: every job right after a reconnect (a
 * completion may have been sent while the socket was down), a job silent for `silenceMs`, and
 * every job on a backoff schedule while the socket cannot be opened. One loop, one abortable
 * sleep, bounded concurrency.
 *
 * @example
 * ```ts
 * const poller = new Poller({ source, policy, stats, tracks: () => router.tracks.values(), fallback: () => !open, onTerminal, onFailure });
 * poller.start();
 * ```
 */
export class Poller {
  readonly #options: PollerOptions;
  #controller: AbortController | undefined;
  #wake: AbortController | undefined;

  constructor(options: PollerOptions) {
    this.#options = options;
  }

  /** Starts the loop (no-op when running). */
  start(): void {
    if (this.#controller) return;
    this.#controller = new AbortController();
    void this.#loop(this.#controller.signal);
  }

  /** Stops the loop and aborts the polls in flight. */
  stop(): void {
    this.#controller?.abort();
    this.#controller = undefined;
  }

  /** Re-plans now (a job was added, asked to be polled, or the socket changed state). */
  wake(): void {
    this.#wake?.abort();
  }

  /** When a track is next due, in epoch ms. */
  #dueAt(track: Track): number {
    if (track.pollNow) return 0;
    // A failed poll is retried on its own backoff even while the socket is open: the poll was
    // wanted (a reconnect, a silence) and the answer is still missing.
    if (this.#options.fallback() || track.failures > 0) return track.nextPollAt;
    return Math.max(track.lastActivity + this.#options.policy.silenceMs, track.nextPollAt);
  }

  async #loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const now = Date.now();
      const due: Track[] = [];
      let next = Number.POSITIVE_INFINITY;
      for (const track of this.#options.tracks()) {
        if (track.finishing) continue;
        const at = this.#dueAt(track);
        if (at <= now) due.push(track);
        else next = Math.min(next, at);
      }
      if (due.length > 0) {
        await this.#pollAll(due, signal);
        continue;
      }
      const wake = new AbortController();
      this.#wake = wake;
      try {
        await sleep(Math.min(MAX_SLEEP, next - now), AbortSignal.any([signal, wake.signal]));
      } catch {
        // Woken or stopped: re-plan (the loop condition handles a stop).
      }
    }
  }

  async #pollAll(due: Track[], signal: AbortSignal): Promise<void> {
    let index = 0;
    const worker = async () => {
      while (index < due.length && !signal.aborted) {
        const track = due[index++];
        if (track && !track.finishing) await this.#pollOne(track, signal);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#options.policy.concurrency, due.length) }, worker));
  }

  async #pollOne(track: Track, signal: AbortSignal): Promise<void> {
    const { source, policy, stats } = this.#options;
    track.pollNow = false;
    stats.polls++;
    try {
      const info = await source.getJobStatus(track.promptId, { signal, retry: false });
      track.notFound = 0;
      if (track.finishing) return;
      if (info.terminal) {
        this.#options.onTerminal(track, info);
        return;
      }
      this.#schedule(track);
    } catch (error) {
      if (signal.aborted || track.finishing) return;
      if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
        this.#options.onFailure(track, error);
        return;
      }
      // The status store can lag a submission: a few 404s are expected before the job appears.
      if (error instanceof NotFoundError && ++track.notFound >= policy.notFoundLimit) {
        this.#options.onFailure(track, error);
        return;
      }
      this.#schedule(track, error);
    }
  }

  /** Plans the next poll: after `silenceMs` while the socket is fine, else on a backoff that honours `Retry-After`. */
  #schedule(track: Track, error?: unknown): void {
    const { policy } = this.#options;
    if (error === undefined && !this.#options.fallback()) {
      track.failures = 0;
      track.nextPollAt = Date.now() + policy.silenceMs;
      return;
    }
    const full = Math.min(policy.maxIntervalMs, policy.minIntervalMs * 2 ** track.failures);
    track.failures++;
    const backoff = Math.round(full / 2 + ((this.#options.random ?? Math.random)() * full) / 2);
    // A 429 or 503 names the earliest useful retry; asking sooner only adds load and refusals.
    const retryAfter = error instanceof ApiError ? (error.retryAfterMs ?? 0) : 0;
    track.nextPollAt = Date.now() + Math.max(backoff, retryAfter);
  }
}
