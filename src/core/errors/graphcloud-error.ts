/**
 * Base class of every error the SDK throws (aborts reject with the caller's `signal.reason` instead).
 *
 * @example
 * ```ts
 * try { await registry.nodes.get('comfy-x'); }
 * catch (error) { if (error instanceof GraphcloudError) console.error(error.message); }
 * ```
 */
export class GraphcloudError extends Error {
  override name = 'GraphcloudError';

  /** A plain, credential-free description used by `JSON.stringify(error)`. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (key !== 'cause') out[key] = value;
    }
    return out;
  }
}
