/** A socket frame: text, or a binary preview. */
type Frame = string | Uint8Array;

interface Held {
  firstAt: number;
  bytes: number;
  frames: Frame[];
}

const sizeOf = (frame: Frame): number => (typeof frame === 'string' ? frame.length : frame.byteLength);

/**
 * Messages of prompt ids no browser of this instance follows yet, bounded in bytes and age:
 * a fast run can finish before its browser has subscribed (the submit answer, which carries the
 * token, arrives after the run began; see docs/wire-protocol.md#cloud-websocket-messages-and-their-order).
 * The oldest prompts go first; one prompt alone over the bound keeps its latest messages (the end
 * matters most). Each held message is handed out once.
 *
 * @example
 * ```ts
 * const hold = new HoldBuffer({ maxBytes: 4 << 20, maxAgeMs: 30_000 });
 * hold.add('p1', text);
 * for (const frame of hold.take('p1')) session.send(frame);
 * ```
 */
export class HoldBuffer {
  readonly #held = new Map<string, Held>();
  readonly #bounds: { maxBytes: number; maxAgeMs: number };
  #bytes = 0;
  /** Messages dropped by the bounds so far. */
  dropped = 0;

  constructor(bounds: { maxBytes: number; maxAgeMs: number }) {
    this.#bounds = bounds;
  }

  /** Bytes held now (a text frame counts its UTF-16 code units, about the bytes of ASCII JSON). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Prompt ids with held messages. */
  get prompts(): number {
    return this.#held.size;
  }

  /** Holds one message, then drops what the bounds no longer allow. */
  add(promptId: string, frame: Frame): void {
    const now = Date.now();
    let held = this.#held.get(promptId);
    if (!held) {
      held = { firstAt: now, bytes: 0, frames: [] };
      this.#held.set(promptId, held);
    }
    const size = sizeOf(frame);
    held.frames.push(frame);
    held.bytes += size;
    this.#bytes += size;
    this.#prune(now);
  }

  /** Removes and returns what is held for a prompt, oldest first. */
  take(promptId: string): Frame[] {
    const held = this.#held.get(promptId);
    if (!held) return [];
    this.#held.delete(promptId);
    this.#bytes -= held.bytes;
    if (Date.now() - held.firstAt > this.#bounds.maxAgeMs) {
      this.dropped += held.frames.length;
      return [];
    }
    return held.frames;
  }

  /** Drops everything. */
  clear(): void {
    this.#held.clear();
    this.#bytes = 0;
  }

  #prune(now: number): void {
    const { maxBytes, maxAgeMs } = this.#bounds;
    for (const [promptId, held] of this.#held) {
      const over = this.#bytes > maxBytes;
      if (!over && now - held.firstAt <= maxAgeMs) return;
      if (over && this.#held.size === 1) {
        while (this.#bytes > maxBytes && held.frames.length > 0) {
          const size = sizeOf(held.frames.shift() as Frame);
          held.bytes -= size;
          this.#bytes -= size;
          this.dropped++;
        }
        return;
      }
      this.#held.delete(promptId);
      this.#bytes -= held.bytes;
      this.dropped += held.frames.length;
    }
  }
}
