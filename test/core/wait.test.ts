import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, InternalServerError, Limiter, NotFoundError, poll, pollUntil, TimeoutError, Waker, type PollReading } from '../../src/core/index.js';

const BACKOFF = { minDelayMs: 1_000, maxDelayMs: 8_000, growFactor: 2 };
const fixed = () => 1; // the top of the jitter range: delays are 1, 2, 4, 8, 8... s

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const api = (status: number, retryAfterMs?: number) => {
  const init = { status, method: 'GET', url: 'https://x.test/s', body: undefined, retryAfterMs };
  if (status === 401) return new AuthenticationError(init);
  if (status === 404) return new NotFoundError(init);
  return new InternalServerError(init);
};

/** A reader that answers from a script, recording when each reading started. */
function scripted(answers: ((() => PollReading<string> | Error) | 'hang')[]) {
  const at: number[] = [];
  let i = 0;
  const read = (signal: AbortSignal) => {
    at.push(Date.now());
    const answer = answers[Math.min(i++, answers.length - 1)]!;
    if (answer === 'hang') {
      return new Promise<PollReading<string>>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    }
    const next = answer();
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
  return { read, at };
}

const running = () => ({ value: 'running', terminal: false });
const queued = () => ({ value: 'queued', terminal: false, queued: true });
const done = () => ({ value: 'done', terminal: true });

describe('poll() / pollUntil(): the one wait engine', () => {
  it('reads at once, then on the growing backoff, and yields every reading up to the terminal one', async () => {
    const { read, at } = scripted([running, running, running, done]);
    const seen: string[] = [];
    const result = pollUntil({ describe: 'job p', read, backoff: BACKOFF, random: fixed }, (r) => seen.push(r.value));
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(result).resolves.toBe('done');
    expect(seen).toEqual(['running', 'running', 'running', 'done']);
    expect(at.map((t) => t - at[0]!)).toEqual([0, 1_000, 3_000, 7_000]);
  });

  it('counts time spent on failed readings: a wait whose status reads keep failing times out (it hung in 0.1.0)', async () => {
    const { read } = scripted([() => api(503)]);
    const result = pollUntil({ describe: 'task t', read, backoff: BACKOFF, random: fixed, waitTimeout: 20_000, freeQueued: true, startsQueued: true });
    result.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(20_001);
    const error = await result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toContain('waiting for task t');
    expect((error as TimeoutError).cause).toBeInstanceOf(InternalServerError);
  });

  it('leaves time between two "queued" readings free only when asked (freeQueued)', async () => {
    const answers = [...Array.from({ length: 12 }, () => queued), done];
    const free = pollUntil({ describe: 't', read: scripted(answers).read, backoff: BACKOFF, random: fixed, waitTimeout: 10_000, freeQueued: true, startsQueued: true });
    const counted = pollUntil({ describe: 't', read: scripted(answers).read, backoff: BACKOFF, random: fixed, waitTimeout: 10_000 });
    counted.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(200_000);
    await expect(free).resolves.toBe('done');
    await expect(counted).rejects.toBeInstanceOf(TimeoutError);
  });

  it('never reads again before the server\'s Retry-After, and gives up at once when it lies past the budget', async () => {
    const { read, at } = scripted([() => api(503, 7_000), done]);
    const result = pollUntil({ describe: 't', read, backoff: BACKOFF, random: fixed });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(result).resolves.toBe('done');
    expect(at[1]! - at[0]!).toBe(7_000);

    const far = pollUntil({ describe: 't', read: scripted([() => api(503, 60_000), done]).read, backoff: BACKOFF, waitTimeout: 30_000 });
    await expect(far).rejects.toBeInstanceOf(TimeoutError);
  });

  it('throws a failure that is not transient (a 401) at once', async () => {
    const { read, at } = scripted([() => api(401)]);
    await expect(pollUntil({ describe: 't', read, backoff: BACKOFF })).rejects.toBeInstanceOf(AuthenticationError);
    expect(at).toHaveLength(1);
  });

  it('takes a 404 before the first reading for lag during notFoundGraceMs, and for an error after it', async () => {
    const lag = scripted([() => api(404), () => api(404), done]);
    const ok = pollUntil({ describe: 't', read: lag.read, backoff: BACKOFF, random: fixed, notFoundGraceMs: 30_000 });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(ok).resolves.toBe('done');

    const gone = pollUntil({ describe: 't', read: scripted([() => api(404)]).read, backoff: BACKOFF, random: fixed, notFoundGraceMs: 5_000 });
    gone.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(20_000);
    await expect(gone).rejects.toBeInstanceOf(NotFoundError);
  });

  it('aborts a reading in flight at the deadline: a stalled answer cannot hold the wait', async () => {
    const { read } = scripted([running, 'hang']);
    const result = pollUntil({ describe: 'job p', read, backoff: BACKOFF, random: fixed, waitTimeout: 5_000 });
    result.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(result).rejects.toBeInstanceOf(TimeoutError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the signal\'s reason on abort, mid-sleep or mid-read, and leaves no timer', async () => {
    const sleeping = new AbortController();
    const a = pollUntil({ describe: 't', read: scripted([running]).read, backoff: BACKOFF, signal: sleeping.signal });
    await vi.advanceTimersByTimeAsync(100);
    sleeping.abort(new Error('stop'));
    await expect(a).rejects.toThrow('stop');

    const reading = new AbortController();
    const b = pollUntil({ describe: 't', read: scripted(['hang']).read, backoff: BACKOFF, signal: reading.signal, waitTimeout: 60_000 });
    await vi.advanceTimersByTimeAsync(100);
    reading.abort(new Error('stop now'));
    await expect(b).rejects.toThrow('stop now');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('re-plans when woken: a custom schedule is asked again, and an urgent wake reads at once', async () => {
    const { read, at } = scripted([running, running, running, done]);
    const waker = new Waker();
    let silenceUntil = Date.now() + 20_000;
    const result = pollUntil({ describe: 'job p', read, backoff: BACKOFF, waker, dueIn: (s) => Math.max(silenceUntil, s.lastReadAt + 20_000) - s.now });
    await vi.advanceTimersByTimeAsync(20_000); // first reading, after the silence
    expect(at).toHaveLength(1);
    silenceUntil = Date.now() + 50_000;
    waker.wake(); // activity: the next reading moves out
    await vi.advanceTimersByTimeAsync(30_000);
    expect(at).toHaveLength(1);
    waker.wake(true); // a reconnect: read now
    await vi.advanceTimersByTimeAsync(0);
    expect(at).toHaveLength(2);
    waker.wake(true);
    await vi.advanceTimersByTimeAsync(0);
    waker.wake(true);
    await vi.advanceTimersByTimeAsync(0);
    await expect(result).resolves.toBe('done');
  });

  it('polls waits independently under a shared limiter: one stalled answer delays no other wait', async () => {
    const limiter = new Limiter(2);
    const stalled = pollUntil({ describe: 'job a', read: scripted(['hang']).read, backoff: BACKOFF, limiter, waitTimeout: 60_000 });
    stalled.catch(() => undefined);
    const others = Array.from({ length: 5 }, () => pollUntil({ describe: 'job b', read: scripted([running, done]).read, backoff: BACKOFF, random: fixed, limiter }));
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(Promise.all(others)).resolves.toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(limiter.active).toBe(1);
  });

  it('ends the generator quietly on break and clears its timers', async () => {
    const { read } = scripted([running]);
    for await (const reading of poll({ describe: 't', read, backoff: BACKOFF })) {
      expect(reading.value).toBe('running');
      break;
    }
    expect(vi.getTimerCount()).toBe(0);
  });
});
