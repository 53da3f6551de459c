import type { WatcherStats } from './events.js';

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
  /** Messages may be missing (a disconnect while holding, or the count bound). */
  gap: boolean;
  messages: [type: string, data: Record<string, unknown>][];
}

/**
 * Messages of prompt ids no watcher has claimed yet (a run can finish before the submit response
 * names its id), bounded in count and in age: the oldest prompts go first; one prompt alone over
 * the bound keeps its latest messages (the end matters most) and is marked as having a gap.
 *
 * @example
 * ```ts
 * const buffer = new HoldBuffer(CLOUD_DEFAULTS.hold, stats);
 * buffer.add('p', 'execution_start', { prompt_id: 'p' }, epoch);
 * ```
 */
export class HoldBuffer {
  readonly #held = new Map<string, Held>();
  readonly #bounds: { maxMessages: number; maxAgeMs: number };
  readonly #stats: WatcherStats;
  #count = 0;

  constructor(bounds: { maxMessages: number; maxAgeMs: number }, stats: WatcherStats) {
    this.#bounds = bounds;
    this.#stats = stats;
  }

  /** Messages held now. */
  get count(): number {
    return this.#count;
  }

  /** Holds one message, then drops what the bounds no longer allow. */
  add(promptId: string, type: string, data: Record<string, unknown>, epoch: number): void {
    const now = Date.now();
    let held = this.#held.get(promptId);
    if (!held) {
      held = { firstAt: now, epoch, gap: false, messages: [] };
      this.#held.set(promptId, held);
    } else if (held.epoch !== epoch) {
      held.gap = true;
    }
    held.messages.push([type, data]);
    this.#count++;
    this.#stats.held++;
    this.#prune(now);
  }

  /** Removes and returns what is held for a prompt. */
  take(promptId: string): Held | undefined {
    const held = this.#held.get(promptId);
    if (!held) return undefined;
    this.#held.delete(promptId);
    this.#count -= held.messages.length;
    return held;
  }

  #prune(now: number): void {
    const { maxMessages, maxAgeMs } = this.#bounds;
    for (const [promptId, held] of this.#held) {
      const tooMany = this.#count > maxMessages;
      if (!tooMany && now - held.firstAt <= maxAgeMs) return;
      if (tooMany && this.#held.size === 1) {
        const excess = this.#count - maxMessages;
        held.messages.splice(0, excess);
        held.gap = true;
        this.#count -= excess;
        this.#stats.dropped += excess;
        return;
      }
      this.#held.delete(promptId);
      this.#count -= held.messages.length;
      this.#stats.dropped += held.messages.length;
    }
  }
}
