import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { HttpClient, Limiter, onAbort, raceSignal, sleep } from '../../src/core/index.js';

// Node (22 and older) prints "MaxListenersExceededWarning: Possible EventTarget memory leak" when
// an 11th abort listener is added to one signal. A caller's signal shared by many calls, or a
// client's own life signal with many calls in flight, must hold one listener of the SDK's, however
// many calls wait on it.
let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/** A loopback server that answers `{}` after `delayMs`. */
async function slowServer(delayMs: number): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), delayMs);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const abortListeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

describe('abort listeners on a shared signal', () => {
  it('20 calls in flight with one caller signal add one listener to it, and leave none', async () => {
    const baseUrl = await slowServer(300);
    const http = new HttpClient({ baseUrl, retry: false });
    const caller = new AbortController();
    const calls = Array.from({ length: 20 }, (_, i) => http.request({ method: 'GET', path: `/item/${i}`, schema: z.unknown(), options: { signal: caller.signal } }));
    // Every call is in flight once the server holds 20 requests.
    await expect.poll(async () => new Promise((resolve) => server?.getConnections((_, count) => resolve(count)))).toBe(20);
    expect(abortListeners(caller.signal)).toBe(1);
    await Promise.all(calls);
    expect(abortListeners(caller.signal)).toBe(0);
  });

  it("an abort of the shared signal still ends every call with the caller's reason", async () => {
    const baseUrl = await slowServer(60_000);
    const http = new HttpClient({ baseUrl, retry: false });
    const caller = new AbortController();
    const calls = Array.from({ length: 12 }, (_, i) => http.request({ method: 'GET', path: `/item/${i}`, schema: z.unknown(), options: { signal: caller.signal } }).catch((e: unknown) => e));
    await expect.poll(async () => new Promise((resolve) => server?.getConnections((_, count) => resolve(count)))).toBe(12);
    const reason = new Error('the user left');
    caller.abort(reason);
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 12 }, () => reason));
    expect(abortListeners(caller.signal)).toBe(0);
  });

  it('20 sleeps and 20 places in a limiter line on one signal hold one listener between them, and an abort ends them all', async () => {
    const caller = new AbortController();
    const sleeps = Array.from({ length: 20 }, () => sleep(60_000, caller.signal).catch((e: unknown) => e));
    const limiter = new Limiter(1);
    const running = limiter.run(() => sleep(60_000, caller.signal).catch(() => undefined));
    const waiting = Array.from({ length: 20 }, () => limiter.run(async () => 'ran', caller.signal).catch((e: unknown) => e));
    expect(abortListeners(caller.signal)).toBe(1);
    caller.abort('stop');
    expect(await Promise.all(sleeps)).toEqual(Array.from({ length: 20 }, () => 'stop'));
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 20 }, () => 'stop'));
    await running;
    expect(abortListeners(caller.signal)).toBe(0);
  });

  it('20 races on one signal hold one listener; a late value goes to onLate', async () => {
    const caller = new AbortController();
    const late: number[] = [];
    const works = Array.from({ length: 20 }, (_, i) => new Promise<number>((resolve) => setTimeout(() => resolve(i), 20)));
    const races = works.map((work) => raceSignal(work, caller.signal, (value) => late.push(value)).catch((e: unknown) => e));
    expect(abortListeners(caller.signal)).toBe(1);
    caller.abort('stop');
    expect(await Promise.all(races)).toEqual(Array.from({ length: 20 }, () => 'stop'));
    await Promise.all(works);
    expect(late).toHaveLength(20);
    expect(abortListeners(caller.signal)).toBe(0);
  });

  it('onAbort calls each callback once, in order, a callback given twice twice, and one forgotten never', () => {
    const caller = new AbortController();
    const calls: string[] = [];
    const twice = () => calls.push('twice');
    onAbort(caller.signal, () => calls.push('first'));
    onAbort(caller.signal, twice);
    const forget = onAbort(caller.signal, () => calls.push('forgotten'));
    onAbort(caller.signal, twice);
    forget();
    expect(abortListeners(caller.signal)).toBe(1);
    caller.abort();
    caller.abort();
    expect(calls).toEqual(['first', 'twice', 'twice']);
    expect(abortListeners(caller.signal)).toBe(0);
  });
});
