// Timers fire after 1 ms beyond 2^31 - 1 ms; a far `Retry-After` date must not turn into a busy loop.
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The one abortable wait of the SDK: resolves after `ms`, or rejects with `signal.reason`
 * as soon as the signal aborts (the timer is cleared, no handle is left).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.min(MAX_TIMER_MS, Math.max(0, ms)));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The reason the SDK gives when it aborts one of its own controllers to end its own work (a
 * sleep it no longer needs, a poll loop, an idle timer): one value made once, since `abort()`
 * without a reason builds a `DOMException` and its stack every time, several per watched job.
 * It never reaches a caller: whoever waits on such a signal treats any abort as "stopped".
 */
export const STOPPED: Error = Object.freeze(new Error('stopped'));

/** Throws `signal.reason` when the signal has aborted. */
export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason;
}
