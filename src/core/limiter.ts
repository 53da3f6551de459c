import { onAbort } from './wait.js';

/**
 * Bounds how many tasks run at once: `run()` waits for a free slot. Slots are granted in call
 * order; a task that stalls holds one slot only, so the others keep going.
 *
 * @example
 * ```ts
 * const limiter = new Limiter(8);
 * await Promise.all(ids.map((id) => limiter.run(() => readStatus(id))));
 * ```
 */
export class Limiter {
  readonly #max: number;
  #active = 0;
  readonly #queue: (() => void)[] = [];

  constructor(max: number) {
    this.#max = Math.max(1, Math.floor(max));
  }

  /** Tasks running now. */
  get active(): number {
    return this.#active;
  }

  /** Runs `task` once a slot is free; an aborted `signal` gives up the place in line. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await task();
    } finally {
      this.#active--;
      this.#queue.shift()?.();
    }
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.#max) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        forget();
        this.#active++;
        resolve();
      };
      const forget = onAbort(signal, () => {
        const at = this.#queue.indexOf(grant);
        if (at >= 0) this.#queue.splice(at, 1);
        reject(signal?.reason);
      });
      this.#queue.push(grant);
    });
  }
}
