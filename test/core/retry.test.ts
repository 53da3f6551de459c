import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConnectionError, HttpClient, InternalServerError, RateLimitError, TimeoutError } from '../../src/core/index.js';
import { useMsw } from '../helpers/msw.js';

const BASE = 'https://api.test';
const { server, seen } = useMsw();

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Lets pending promise chains run (msw answers through several microtask hops). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await vi.advanceTimersByTimeAsync(0);
}

function failThen(times: number, failure: () => Response, path = '/thing') {
  let calls = 0;
  server.use(
    http.all(`${BASE}${path}`, () => {
      calls += 1;
      return calls <= times ? failure() : HttpResponse.json({ ok: true });
    }),
  );
}

describe('HttpClient retries', () => {
  it('retries a GET on 503 and resolves', async () => {
    failThen(2, () => new HttpResponse(null, { status: 503 }));
    const client = new HttpClient({ baseUrl: BASE });
    const done = client.request({ method: 'GET', path: '/thing' });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(done).resolves.toBeUndefined();
    expect(seen).toHaveLength(3);
  });

  it('retries on 408 and on a connection error', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/thing`, () => {
        calls += 1;
        if (calls === 1) return new HttpResponse(null, { status: 408 });
        if (calls === 2) return HttpResponse.error();
        return HttpResponse.json({});
      }),
    );
    const done = new HttpClient({ baseUrl: BASE }).request({ method: 'GET', path: '/thing' });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(done).resolves.toBeUndefined();
    expect(calls).toBe(3);
  });

  it('waits exactly the Retry-After of a 429 before the next attempt', async () => {
    failThen(1, () => new HttpResponse(null, { status: 429, headers: { 'retry-after': '7' } }));
    const done = new HttpClient({ baseUrl: BASE }).request({ method: 'GET', path: '/thing' });
    await settle();
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(6_900);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    await expect(done).resolves.toBeUndefined();
    expect(seen).toHaveLength(2);
  });

  it('never retries a POST, whatever the failure', async () => {
    failThen(1, () => new HttpResponse(null, { status: 503 }));
    const client = new HttpClient({ baseUrl: BASE, retry: { limit: 5 } });
    const done = client.request({ method: 'POST', path: '/thing', json: { a: 1 } }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await done).toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1);
  });

  it('never retries a POST whose connection broke (the job may exist)', async () => {
    server.use(http.post(`${BASE}/thing`, () => HttpResponse.error()));
    const done = new HttpClient({ baseUrl: BASE }).request({ method: 'POST', path: '/thing' }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await done).toBeInstanceOf(ConnectionError);
    expect(seen).toHaveLength(1);
  });

  it('stops after the attempt limit', async () => {
    failThen(10, () => new HttpResponse(null, { status: 500 }));
    const done = new HttpClient({ baseUrl: BASE, retry: { limit: 3 } }).request({ method: 'GET', path: '/thing' }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await done).toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(4);
  });

  it('does not start a retry that would end past the clock budget', async () => {
    failThen(1, () => new HttpResponse(null, { status: 429, headers: { 'retry-after': '45' } }));
    const done = new HttpClient({ baseUrl: BASE, retry: { budgetMs: 30_000 } }).request({ method: 'GET', path: '/thing' }).catch((e: unknown) => e);
    await settle();
    const error = await done;
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(45_000);
    expect(seen).toHaveLength(1);
  });

  it('bounds retries by the budget even when attempts remain', async () => {
    failThen(100, () => new HttpResponse(null, { status: 500 }));
    const client = new HttpClient({ baseUrl: BASE, retry: { limit: 100, budgetMs: 5_000, minDelayMs: 1_000, maxDelayMs: 1_000 } });
    const done = client.request({ method: 'GET', path: '/thing' }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await done).toBeInstanceOf(InternalServerError);
    // Delays are 500..1000 ms each: at most 10 retries fit in 5 s, at least 5.
    expect(seen.length).toBeGreaterThanOrEqual(6);
    expect(seen.length).toBeLessThanOrEqual(11);
  });

  it('rejects with signal.reason when aborted during a backoff sleep, and sends nothing more', async () => {
    failThen(5, () => new HttpResponse(null, { status: 503, headers: { 'retry-after': '10' } }));
    const controller = new AbortController();
    const done = new HttpClient({ baseUrl: BASE }).request({ method: 'GET', path: '/thing', options: { signal: controller.signal } }).catch((e: unknown) => e);
    await settle();
    expect(seen).toHaveLength(1);
    const reason = new Error('user cancelled');
    controller.abort(reason);
    expect(await done).toBe(reason);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(seen).toHaveLength(1);
  });

  it('times out an attempt that hangs, then retries it (GET)', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/thing`, async () => {
        calls += 1;
        if (calls === 1) await new Promise(() => {});
        return HttpResponse.json({});
      }),
    );
    const done = new HttpClient({ baseUrl: BASE, timeout: 1_000 }).request({ method: 'GET', path: '/thing' });
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(done).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });

  it('rejects with a TimeoutError at the overall deadline', async () => {
    server.use(http.get(`${BASE}/thing`, () => new HttpResponse(null, { status: 503 })));
    const client = new HttpClient({ baseUrl: BASE, totalTimeout: 2_000, retry: { limit: 50, budgetMs: 60_000, minDelayMs: 400, maxDelayMs: 400 } });
    const done = client.request({ method: 'GET', path: '/thing' }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3_000);
    const error = await done;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(2_000);
  });

  it('can be turned off per call', async () => {
    failThen(1, () => new HttpResponse(null, { status: 503 }));
    const done = new HttpClient({ baseUrl: BASE }).request({ method: 'GET', path: '/thing', options: { retry: false } }).catch((e: unknown) => e);
    await settle();
    expect(await done).toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1);
  });
});
