// A run's progress from its job's events: the share of nodes done (cached or executed) and the
// running node's steps, written to the BullMQ job at most every `intervalMs`, the first one
// `intervalMs` after the watch began (each write is a Redis command and an event every follower
// reads: a run that ends sooner writes none, its end says it all).
import type { WatchEvent } from '../cloud/watch/events.js';
import type { RunProgress } from './types.js';

/**
 * Turns watch events into `RunProgress` writes, bounded in rate.
 *
 * @example
 * ```ts
 * const meter = new ProgressMeter(Object.keys(workflow).length, 250, (p) => job.updateProgress(p));
 * watcher.onEvent((event) => meter.see(event));
 * const result = await watcher.result();
 * if (result.status === 'completed') meter.stop(); else await meter.flush();
 * ```
 */
export class ProgressMeter {
  readonly #total: number;
  readonly #intervalMs: number;
  readonly #write: (progress: RunProgress) => Promise<unknown>;
  readonly #done = new Set<string>();
  #node: string | undefined;
  #value: number | undefined;
  #max: number | undefined;
  #lastWrite: number;
  #writing: Promise<unknown> = Promise.resolve();
  #dirty = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(total: number, intervalMs: number, write: (progress: RunProgress) => Promise<unknown>) {
    this.#total = Math.max(1, total);
    this.#intervalMs = intervalMs;
    this.#write = write;
    this.#lastWrite = Date.now();
  }

  /** The progress now. */
  get current(): RunProgress {
    return { fraction: Math.min(1, this.#done.size / this.#total), node: this.#node, value: this.#value, max: this.#max };
  }

  /** Reads one event of the job. */
  see(event: WatchEvent): void {
    if (event.type === 'execution_cached') for (const node of event.data.nodes ?? []) this.#done.add(String(node));
    else if (event.type === 'executing') {
      if (this.#node !== undefined) this.#done.add(this.#node);
      this.#node = event.data.node ?? undefined;
      this.#value = this.#max = undefined;
    } else if (event.type === 'progress') {
      this.#value = event.data.value;
      this.#max = event.data.max;
    } else return;
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
    const progress = this.current;
    // One write at a time, in order; a failed write (Redis restarting) loses one reading, no more.
    this.#writing = this.#writing.then(() => this.#write(progress)).catch(() => undefined);
  }
}
