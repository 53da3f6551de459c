import { http, HttpResponse, ws } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CloudClient } from '../../../src/index.js';
import { type CloudClientOptions } from '../../../src/cloud/client.js';
import { useMsw } from '../../helpers/msw.js';
import { step, NoSocket } from '../helpers.js';

const BASE = 'https://cloud.test';
const { server } = useMsw();
const link = ws.link('wss://cloud.test/ws');
const POLICY: CloudClientOptions['watcher'] = {
  socket: { minDelayMs: 100, maxDelayMs: 1_000, growFactor: 2, idleCloseMs: 500, connectionTimeoutMs: 1_000 },
  poll: { silenceMs: 5_000, minDelayMs: 200, maxDelayMs: 1_000 },
};
let cloud: CloudClient | undefined;
const make = (options: Partial<CloudClientOptions> = {}) => (cloud = new CloudClient({ baseUrl: BASE, apiKey: 'sk-poll', watcher: POLICY, retry: false, ...options }));
beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] }));
afterEach(async () => {
  await cloud?.close();
  cloud = undefined;
  vi.useRealTimers();
});

describe('cloud.jobs.watch() polling', () => {
  it('waits Retry-After before polling again after a 429', async () => {
    const times: number[] = [];
    server.use(
      http.get(`${BASE}/api/job/p/status`, () => {
        times.push(Date.now());
        return times.length === 1 ? HttpResponse.json({ message: 'slow down' }, { status: 429, headers: { 'retry-after': '3' } }) : HttpResponse.json({ status: 'success' });
      }),
      http.get(`${BASE}/api/jobs/p`, () => HttpResponse.json({ outputs: {} })),
    );
    const watcher = make({ WebSocket: NoSocket as never }).jobs.watch('p');
    await step(4_000);
    await expect(watcher.result()).resolves.toMatchObject({ status: 'completed', via: 'poll' });
    expect(times).toHaveLength(2);
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(3_000);
  });

  it('retries soon a status poll that failed after a server restart, instead of waiting silenceMs', async () => {
    let connection = 0;
    server.use(
      link.addEventListener('connection', ({ client }) => {
        if (++connection === 1) {
          client.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: 'p' } }));
          client.close(1001, 'server restart');
        }
      }),
    );
    let polls = 0;
    server.use(
      http.get(`${BASE}/api/job/p/status`, () => (++polls <= 2 ? HttpResponse.json({ message: 'restarting' }, { status: 503 }) : HttpResponse.json({ status: 'success' }))),
      http.get(`${BASE}/api/jobs/p`, () => HttpResponse.json({ outputs: { '9': { images: [{ filename: 'a.png' }] } } })),
    );
    const watcher = make().jobs.watch('p');
    await step(2_000);
    expect(connection).toBe(2);
    expect(watcher.settled).toBe(true);
    await expect(watcher.result()).resolves.toMatchObject({ status: 'completed', via: 'poll', outputsComplete: true });
  });

  it('reads on the poll backoff of the watch, over the client policy', async () => {
    const times: number[] = [];
    server.use(
      http.get(`${BASE}/api/job/p/status`, () => {
        times.push(Date.now());
        return HttpResponse.json({ status: times.length < 3 ? 'executing' : 'success' });
      }),
      http.get(`${BASE}/api/jobs/p`, () => HttpResponse.json({ outputs: {} })),
    );
    const watcher = make({ WebSocket: NoSocket as never }).jobs.watch('p', { poll: { minDelayMs: 2_000, maxDelayMs: 2_000, growFactor: 1 } });
    await step(5_000);
    await expect(watcher.result()).resolves.toMatchObject({ status: 'completed', via: 'poll' });
    const gaps = times.slice(1).map((t, i) => t - (times[i] ?? 0));
    // Each gap is drawn from [half, all] of 2 s (the client's policy would give 100 to 400 ms).
    expect(gaps.every((gap) => gap >= 1_000 && gap <= 2_010)).toBe(true);
    expect(gaps).toHaveLength(2);
  });

  it('keeps one timer for the jobs that wait for a silence, not one per job, and still reads each after silenceMs', async () => {
    server.use(link.addEventListener('connection', () => undefined));
    const reads = new Map<string, number>();
    // Answered in process: no connection timers of the HTTP stack, so only the SDK's own are counted.
    const fetch = async (input: RequestInfo | URL) => {
      const id = /\/api\/job\/([^/]+)\/status/.exec(String(input instanceof Request ? input.url : input))?.[1] ?? '';
      reads.set(id, (reads.get(id) ?? 0) + 1);
      return Response.json({ status: 'executing' });
    };
    const client = make({ fetch });
    const watchers = Array.from({ length: 200 }, (_, i) => client.jobs.watch(`job-${i}`, { waitTimeout: false }));
    // Watched by id: each job is read once the socket is up, then waits silenceMs (5 s) without a message.
    await step(1_000);
    expect(reads.size).toBe(200);
    expect([...reads.values()].every((n) => n === 1)).toBe(true);
    // The socket's and the waiting jobs' one timer (0.2 slept on a timer per job).
    expect(vi.getTimerCount()).toBeLessThanOrEqual(3);
    await step(5_000);
    expect([...reads.values()].every((n) => n === 2)).toBe(true);
    for (const watcher of watchers) watcher.close();
  });
  it('reads a job due while the reads were all taken, even when the job first asked again no longer needs one', async () => {
    // One read at a time: A, B and C fall silent together, A reads (slowly), B and C wait their
    // turn. B then hears from the socket (its silence restarts) before A's read ends: A's turn
    // must pass on to C, whose job also needs its read (its end message may have been lost).
    let socket: { send(data: string): void } | undefined;
    server.use(link.addEventListener('connection', ({ client }) => void (socket = client)));
    const reads = new Map<string, number>();
    let holdA: (() => void) | undefined;
    const fetch = async (input: RequestInfo | URL) => {
      const id = /\/api\/job\/([^/]+)\/status/.exec(String(input instanceof Request ? input.url : input))?.[1] ?? '';
      reads.set(id, (reads.get(id) ?? 0) + 1);
      if (id === 'A' && reads.get(id) === 2) await new Promise<void>((resolve) => (holdA = resolve));
      return Response.json({ status: 'executing' });
    };
    const client = make({ fetch, watcher: { ...POLICY, poll: { ...POLICY?.poll, concurrency: 1 } } });
    const watchers = ['A', 'B', 'C'].map((id) => client.jobs.watch(id, { waitTimeout: false }));
    await step(1_000);
    expect(Object.fromEntries(reads)).toEqual({ A: 1, B: 1, C: 1 });
    // Silence: all three are due; A's second read hangs until released.
    await step(4_500);
    expect(reads.get('A')).toBe(2);
    expect(holdA).toBeDefined();
    socket?.send(JSON.stringify({ type: 'progress', data: { prompt_id: 'B', value: 1, max: 4, node: '3' } }));
    await step(100);
    holdA?.();
    await step(1_000);
    expect(reads.get('C')).toBe(2);
    expect(reads.get('B')).toBe(1);
    for (const watcher of watchers) watcher.close();
  });
});
