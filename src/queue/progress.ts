// A run's progress as its worker writes it to the BullMQ job: the watcher's own reading of the
// job (`watcher.progress`, the one progress rule of the SDK, so `batch` and `batch --redis` show the
// same percentage for a run) with the running node's steps, at most every `intervalMs`, the first
// one `intervalMs` after the watch began (each write is a Redis command and an event every follower
// reads: a run that ends sooner writes none, its end says it all).
import type { JobWatcher } from '../cloud/watch/job-watcher.js';
import type { JobProgress, WatchEvent } from '../cloud/watch/events.js';
import type { RunProgress } from './types.js';

/**
 * A run's progress from its watcher's: the job's `fraction` (nodes done or cached, plus the running
 * node's share of its steps, over the workflow's nodes) and node, with that node's last steps (the
 * steps of a node that is no longer running are left out).
 *
 * @example
 * ```ts
 * toRunProgress(watcher.progress, { node: '2', value: 3, max: 10 }); // { fraction: 0.43, node: '2', value: 3, max: 10 }
 * ```
 */
export function toRunProgress(job: JobProgress, steps: Steps | undefined): RunProgress {
  const own = steps !== undefined && (steps.node === undefined || steps.node === job.node);
  return { fraction: job.fraction ?? 0, node: job.node, value: own ? steps.value : undefined, max: own ? steps.max : undefined };
}

/** The last `progress` message of a job: its node (when the server names it) and steps. */
type Steps = { node: string | undefined; value: number; max: number };

/**
 * Writes a watched run's progress, bounded in rate: `see()` after each event that may change it,
 * the write reads `read()` when it happens.
 *
 * @example
 * ```ts
 * const writes = new ProgressWrites(250, () => toRunProgress(watcher.progress, steps), (p) => job.updateProgress(p));
 * watcher.onEvent(() => writes.see());
 * const result = await watcher.result();
 * if (result.status === 'completed') writes.stop(); else await writes.flush();
 * ```
 */
export class ProgressWrites {
  readonly #intervalMs: number;
  readonly #read: () => RunProgress;
  readonly #write: (progress: RunProgress) => Promise<unknown>;
  #lastWrite: number;
  #writing: Promise<unknown> = Promise.resolve();
  #dirty = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(intervalMs: number, read: () => RunProgress, write: (progress: RunProgress) => Promise<unknown>) {
    this.#intervalMs = intervalMs;
    this.#read = read;
    this.#write = write;
    this.#lastWrite = Date.now();
  }

  /** The progress may have changed: it is written when the interval is up. */
  see(): void {
    if (this.#stopped) return;
    this.#dirty = true;
    if (this.#timer !== undefined) return;
    const wait = this.#lastWrite + this.#intervalMs - Date.now();
    if (wait <= 0) this.#flushSoon();
    else {
      // The progress seen until then is written when the interval is up, even if no event follows.
      this.#timer = setTimeout(() => this.#flushSoon(), wait);
      if (typeof this.#timer === 'object') this.#timer.unref?.();
    }
  }

  /** Writes the last progress seen, if not written yet, and stops. */
  async flush(): Promise<void> {
    if (this.#dirty && !this.#stopped) this.#flushSoon();
    this.stop();
    await this.#writing;
  }

  /** Stops without writing what is pending (a completed run's end tells its progress). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #flushSoon(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#stopped || !this.#dirty) return;
    this.#dirty = false;
    this.#lastWrite = Date.now();
    const progress = this.#read();
    // One write at a time, in order; a failed write (Redis restarting) loses one reading, no more.
    this.#writing = this.#writing.then(() => this.#write(progress)).catch(() => undefined);
  }
}

/**
 * Writes a watcher's progress to its run: on every change of the job's progress (`job_progress`)
 * and of the running node's steps (`progress`), bounded in rate by `ProgressWrites`.
 *
 * @example
 * ```ts
 * const writes = followProgress(watcher, 250, (p) => job.updateProgress(p));
 * ```
 */
export function followProgress(watcher: JobWatcher, intervalMs: number, write: (progress: RunProgress) => Promise<unknown>): ProgressWrites {
  let steps: Steps | undefined;
  const writes = new ProgressWrites(intervalMs, () => toRunProgress(watcher.progress, steps), write);
  watcher.onEvent((event: WatchEvent) => {
    if (event.type === 'progress') steps = { node: event.data.node === undefined || event.data.node === null ? undefined : String(event.data.node), value: event.data.value, max: event.data.max };
    else if (event.type === 'executing') steps = undefined;
    else if (event.type !== 'job_progress') return;
    writes.see();
  });
  return writes;
}
