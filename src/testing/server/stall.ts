import type { ServerResponse } from 'node:http';

// A timer longer than 2^31-1 ms fires at once.
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Makes a response stall after its headers: when the route (or a fault) ends the response, its
 * status and headers go out at once and the body `ms` later. The connection stays open meanwhile;
 * a client that gives up first closes it, and the body is never written. The simulator closing
 * ends the stall too.
 *
 * @example
 * stallBody(res, 5_000, signal);
 * sendJson(res, 200, { status: 'in_progress' }); // headers now, body in 5 s
 */
export function stallBody(res: ServerResponse, ms: number, signal: AbortSignal): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    res.flushHeaders();
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      if (!res.destroyed) end(...args);
    }, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    const onAbort = (): void => {
      clearTimeout(timer);
      res.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    res.once('close', () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    });
    return res;
  }) as ServerResponse['end'];
}
