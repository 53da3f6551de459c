import { callSafely, Checker } from '../../core/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyListener = (...args: any[]) => unknown;

interface Entry {
  listener: AnyListener;
  once: boolean;
}

/**
 * A small typed event emitter whose every listener is called through `callSafely`: what one
 * throws (or an async one rejects with) is dropped, and the other listeners, the routing of other
 * jobs and the job itself go on.
 *
 * @example
 * ```ts
 * class Watcher extends Listeners<{ progress: (p: ProgressData) => void }> {}
 * new Watcher().on('progress', (p) => console.log(p.value));
 * ```
 */
export class Listeners<Events extends { [K in keyof Events]: (arg: never) => unknown }> {
  readonly #entries = new Map<keyof Events, Entry[]>();

  /**
   * Calls `listener` on every `event`.
   *
   * @example
   * ```ts
   * watcher.on('progress', (p) => console.log(`${p.value}/${p.max}`));
   * ```
   */
  on<K extends keyof Events>(event: K, listener: Events[K]): this {
    return this.#add(event, listener, false);
  }

  /**
   * Calls `listener` on the next `event` only.
   *
   * @example
   * ```ts
   * watcher.once('execution_start', () => console.log('started'));
   * ```
   */
  once<K extends keyof Events>(event: K, listener: Events[K]): this {
    return this.#add(event, listener, true);
  }

  /**
   * Removes `listener` from `event` (once, as it was added).
   *
   * @example
   * ```ts
   * watcher.off('progress', onProgress);
   * ```
   */
  off<K extends keyof Events>(event: K, listener: Events[K]): this {
    const entries = this.#entries.get(event);
    const at = entries?.findIndex((entry) => entry.listener === listener) ?? -1;
    if (entries && at >= 0) {
      // Copy on write: an emit in progress keeps iterating the list it started with.
      const next = entries.filter((_, i) => i !== at);
      if (next.length > 0) this.#entries.set(event, next);
      else this.#entries.delete(event);
    }
    return this;
  }

  /**
   * Removes every listener of `event`, or of every event.
   *
   * @example
   * ```ts
   * watcher.removeAllListeners('progress');
   * ```
   */
  removeAllListeners(event?: keyof Events): this {
    if (event === undefined) this.#entries.clear();
    else this.#entries.delete(event);
    return this;
  }

  /**
   * How many listeners `event` has.
   *
   * @example
   * ```ts
   * if (watcher.listenerCount('error') === 0) console.warn('nobody listens for errors');
   * ```
   */
  listenerCount(event: keyof Events): number {
    return this.#entries.get(event)?.length ?? 0;
  }

  /** Calls the listeners of `event` with `arg`, each through `callSafely`; true when there were any. */
  protected emit<K extends keyof Events>(event: K, arg: Parameters<Events[K]>[0]): boolean {
    const entries = this.#entries.get(event);
    if (!entries) return false;
    for (const entry of entries) {
      if (entry.once) this.off(event, entry.listener as Events[K]);
      callSafely(entry.listener, arg);
    }
    return true;
  }

  #add<K extends keyof Events>(event: K, listener: Events[K], once: boolean): this {
    if (typeof listener !== 'function') {
      const check = new Checker();
      check.fail('listener', 'a function', listener);
      check.throwIfInvalid(`watcher.${once ? 'once' : 'on'}('${String(event)}')`);
    }
    this.#entries.set(event, [...(this.#entries.get(event) ?? []), { listener, once }]);
    return this;
  }
}
