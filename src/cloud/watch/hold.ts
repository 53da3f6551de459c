import type { WatcherStats } from './events.js';

/** Messages held so far by every buffer: their arrival order. */
let arrivals = 0;

/**
 * The messages held for one prompt id nobody follows yet.
 *
 * @example
 * ```ts
 * const held: Held | undefined = buffer.take(promptId);
 * ```
 */
export interface Held {
  firstAt: number;
  /** The router's epoch of the first message; a later epoch means a gap. */
  epoch: number;
  /** Messages may be missing (a disconnect while holding, or the byte bound). */
  gap: boolean;
  /** `order` is the arrival order across every buffer of the process, to merge two of them. */
  messages: [type: string, data: Record<string, unknown>, bytes: number, order: number][];
  /** The size of the held messages (their frames' length). */
  bytes: number;
}

/**
 * Messages of prompt ids no watcher has claimed yet (a run can finish before the submit response
 * names its id), bounded in bytes (the length of their frames) and in age: the oldest prompts go
 * first; one prompt alone over the bound keeps its latest messages (the end matters most) and is
 * marked as having a gap. A count bound would let a few large frames hold hundreds of MB.
 *
 * @example
 * ```ts
 * const buffer = new HoldBuffer(CLOUD_DEFAULTS.hold, stats);
 * buffer.add('p', 'execution_start', { prompt_id: 'p' }, epoch, text.length);
 * ```
 */
export class HoldBuffer {
  readonly #held = new Map<string, Held>();
  readonly #bounds: { maxBytes: number; maxAgeMs: number };
  readonly #stats: WatcherStats;
  #bytes = 0;

  /** `stats.heldBytes` is the sum over every buffer sharing `stats`. */
  constructor(bounds: { maxBytes: number; maxAgeMs: number }, stats: WatcherStats) {
    this.#bounds = bounds;
    this.#stats = stats;
  }

  /** Bytes held now by this buffer. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Holds one message of `bytes` bytes, then drops what the bounds no longer allow. */
  add(promptId: string, type: string, data: Record<string, unknown>, epoch: number, bytes: number): void {
    const now = Date.now();
    let held = this.#held.get(promptId);
    if (!held) {
      held = { firstAt: now, epoch, gap: false, messages: [], bytes: 0 };
      this.#held.set(promptId, held);
    } else if (held.epoch !== epoch) {
      held.gap = true;
    }
    held.messages.push([type, data, bytes, ++arrivals]);
    held.bytes += bytes;
    this.#count(bytes);
    this.#stats.held++;
    this.#prune(now);
  }

  /** Removes and returns what is held for a prompt. */
  take(promptId: string): Held | undefined {
    const held = this.#held.get(promptId);
    if (!held) return undefined;
    this.#held.delete(promptId);
    this.#count(-held.bytes);
    return held;
  }

  /** Drops everything (the client closed). */
  clear(): void {
    this.#held.clear();
    this.#count(-this.#bytes);
  }

  #count(bytes: number): void {
    this.#bytes += bytes;
    this.#stats.heldBytes += bytes;
  }

  #prune(now: number): void {
    const { maxBytes, maxAgeMs } = this.#bounds;
    for (const [promptId, held] of this.#held) {
      const tooMuch = this.#bytes > maxBytes;
      if (!tooMuch && now - held.firstAt <= maxAgeMs) return;
      if (tooMuch && this.#held.size === 1) {
        // Drop from the front: the end of a run matters most.
        let dropped = 0;
        while (this.#bytes > maxBytes && dropped < held.messages.length) {
          const size = held.messages[dropped]?.[2] ?? 0;
          held.bytes -= size;
          this.#count(-size);
          dropped++;
        }
        held.messages.splice(0, dropped);
        held.gap = true;
        this.#stats.dropped += dropped;
        if (held.messages.length === 0) this.#held.delete(promptId);
        return;
      }
      this.#held.delete(promptId);
      this.#count(-held.bytes);
      this.#stats.dropped += held.messages.length;
    }
  }
}
