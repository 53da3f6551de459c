/**
 * Counters a {@link HoldBuffer} keeps up to date: a watcher's stats, or its own.
 *
 * @example
 * ```ts
 * const counters: HoldCounters = { held: 0, dropped: 0, heldBytes: 0 };
 * ```
 */
export interface HoldCounters {
  /** Messages held so far. */
  held: number;
  /** Held messages dropped by the byte or age bound. */
  dropped: number;
  /** Bytes held now. */
  heldBytes: number;
}

/**
 * The bounds of a {@link HoldBuffer}: previews have their own byte bound, so that large ones
 * never push out the end of a job.
 *
 * @example
 * ```ts
 * const bounds: HoldBounds = { maxBytes: 4 << 20, maxPreviewBytes: 2 << 20, maxAgeMs: 30_000 };
 * ```
 */
export interface HoldBounds {
  maxBytes: number;
  maxPreviewBytes: number;
  maxAgeMs: number;
}

/**
 * What was held for one prompt id.
 *
 * @example
 * ```ts
 * const held: Held<string> | undefined = buffer.take(promptId);
 * ```
 */
export interface Held<T> {
  /** Messages and previews together, in arrival order. */
  items: T[];
  /** The epoch of the first message (see `add`). */
  epoch: number;
  /** Messages may be missing: the byte bound dropped some, or they span two epochs. Dropped previews leave no gap. */
  gap: boolean;
}

interface Entry<T> {
  firstAt: number;
  epoch: number;
  gap: boolean;
  bytes: number;
  items: [item: T, bytes: number, order: number][];
}

interface Lane<T> {
  entries: Map<string, Entry<T>>;
  bytes: number;
  maxBytes: number;
}

/**
 * Messages of prompt ids nobody follows yet (a run can finish before the answer that names it
 * arrives; see docs/wire-protocol.md#cloud-websocket-messages-and-their-order), bounded in bytes
 * and age, and handed out once, in arrival order. Previews count against their own byte bound.
 * Over a bound, the oldest prompts go first; one prompt alone over it keeps its latest messages
 * (the end matters most). A count bound would let a few large frames hold hundreds of MB.
 *
 * @example
 * ```ts
 * const hold = new HoldBuffer<string>({ maxBytes: 4 << 20, maxPreviewBytes: 2 << 20, maxAgeMs: 30_000 });
 * hold.add('p', text, text.length);
 * for (const frame of hold.take('p')?.items ?? []) send(frame);
 * ```
 */
export class HoldBuffer<T> {
  readonly #lanes: readonly [messages: Lane<T>, previews: Lane<T>];
  readonly #maxAgeMs: number;
  readonly #counters: HoldCounters;
  #arrivals = 0;

  constructor(bounds: HoldBounds, counters: HoldCounters = { held: 0, dropped: 0, heldBytes: 0 }) {
    this.#lanes = [
      { entries: new Map(), bytes: 0, maxBytes: bounds.maxBytes },
      { entries: new Map(), bytes: 0, maxBytes: bounds.maxPreviewBytes },
    ];
    this.#maxAgeMs = bounds.maxAgeMs;
    this.#counters = counters;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#lanes[0].bytes + this.#lanes[1].bytes;
  }

  /** Prompt ids with something held. */
  get prompts(): number {
    return new Set([...this.#lanes[0].entries.keys(), ...this.#lanes[1].entries.keys()]).size;
  }

  /** Held messages dropped by the bounds so far. */
  get dropped(): number {
    return this.#counters.dropped;
  }

  /**
   * Holds one message of `bytes` bytes, then drops what the bounds no longer allow. `epoch` is
   * the caller's connection count: messages of one prompt held across two epochs have a gap.
   */
  add(promptId: string, item: T, bytes: number, options: { preview?: boolean; epoch?: number } = {}): void {
    const now = Date.now();
    const epoch = options.epoch ?? 0;
    const lane = this.#lanes[options.preview ? 1 : 0];
    let entry = lane.entries.get(promptId);
    if (!entry) {
      entry = { firstAt: now, epoch, gap: false, bytes: 0, items: [] };
      lane.entries.set(promptId, entry);
    } else if (entry.epoch !== epoch) {
      entry.gap = true;
    }
    entry.items.push([item, bytes, ++this.#arrivals]);
    entry.bytes += bytes;
    this.#count(lane, bytes);
    this.#counters.held++;
    this.#prune(lane, now);
  }

  /** Removes and returns what is held for a prompt; what is older than `maxAgeMs` is dropped. */
  take(promptId: string): Held<T> | undefined {
    const now = Date.now();
    const [messages, previews] = this.#lanes.map((lane) => this.#remove(lane, promptId, (entry) => now - entry.firstAt > this.#maxAgeMs));
    const first = messages ?? previews;
    if (!first) return undefined;
    const items = [...(messages?.items ?? []), ...(previews?.items ?? [])].sort((a, b) => a[2] - b[2]);
    return { items: items.map(([item]) => item), epoch: first.epoch, gap: messages?.gap ?? false };
  }

  /** Drops everything (the owner closed). */
  clear(): void {
    for (const lane of this.#lanes) {
      lane.entries.clear();
      this.#count(lane, -lane.bytes);
    }
  }

  /** Removes a prompt's entry from its lane and returns it, unless it is `stale`: then it counts as dropped. */
  #remove(lane: Lane<T>, promptId: string, stale: (entry: Entry<T>) => boolean): Entry<T> | undefined {
    const entry = lane.entries.get(promptId);
    if (!entry) return undefined;
    lane.entries.delete(promptId);
    this.#count(lane, -entry.bytes);
    if (!stale(entry)) return entry;
    this.#counters.dropped += entry.items.length;
    return undefined;
  }

  #count(lane: Lane<T>, bytes: number): void {
    lane.bytes += bytes;
    this.#counters.heldBytes += bytes;
  }

  #prune(lane: Lane<T>, now: number): void {
    for (const [promptId, entry] of lane.entries) {
      const tooMuch = lane.bytes > lane.maxBytes;
      if (!tooMuch && now - entry.firstAt <= this.#maxAgeMs) return;
      if (tooMuch && lane.entries.size === 1) {
        // Drop from the front: the end of a run matters most.
        let dropped = 0;
        while (lane.bytes > lane.maxBytes && dropped < entry.items.length) {
          const size = entry.items[dropped]?.[1] ?? 0;
          entry.bytes -= size;
          this.#count(lane, -size);
          dropped++;
        }
        entry.items.splice(0, dropped);
        entry.gap = true;
        this.#counters.dropped += dropped;
        if (entry.items.length === 0) lane.entries.delete(promptId);
        return;
      }
      this.#remove(lane, promptId, () => true);
    }
  }
}
