import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, ConnectionError, InternalServerError, NotFoundError, RateLimitError, TimeoutError, ValidationError } from '../../src/core/index.js';
import { TaskFailedError } from '../../src/proxy/errors.js';
import type { TaskStatus } from '../../src/proxy/types.js';
import { BASE, client, TOKEN, useProxyServer } from './helpers.js';

const { server, seen } = useProxyServer();
const UPSCALE_STATUS = '/proxy/imagevendor/v1/ai/image-upscaler/t-1';
const VIDEO_STATUS = '/proxy/videovendor/tasks/v-1/creations';
/** A credential as long as real ones (shorter ones are placeholders, not scrubbed from answers). */
const SECRET = 'sk-live-7d1e2f3a9b';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  // The engine draws each delay between half and all of the backoff step: 1 takes the full step.
  vi.spyOn(Math, 'random').mockReturnValue(1);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const image = (status: string, generated: string[] = []) => () => HttpResponse.json({ data: { task_id: 't-1', status, generated } });
const videoState = (state: string, extra: object = {}) => () => HttpResponse.json({ id: 'v-1', state, err_code: '', ...extra });
const status = (code: number, headers: Record<string, string> = {}) => () => new HttpResponse(null, { status: code, headers });

/** Answers GET `path` with `reply(elapsed ms, call index)` and records when each request came. */
function answerBy(path: string, reply: (elapsed: number, index: number) => Response) {
  const times: number[] = [];
  const start = Date.now();
  server.use(
    http.get(`${BASE}${path}`, () => {
      times.push(Date.now() - start);
      return reply(Date.now() - start, times.length - 1);
    }),
  );
  return times;
}

/** Answers GET `path` with `replies` in order (the last one repeats). */
function sequence(path: string, replies: (() => Response)[]) {
  return answerBy(path, (_elapsed, i) => (replies[Math.min(i, replies.length - 1)] as () => Response)());
}

/**
 * Advances fake time 1 ms at a time: msw answers through several event-loop turns, and one big
 * jump would move the clock past timers while a response is still on its way.
 */
async function advance(ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) await vi.advanceTimersByTimeAsync(1);
}
const settle = () => advance(20);
const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] as number));

/** Settles to the rejection and the fake time (ms since `start`) at which it came. */
function rejection(promise: Promise<unknown>, start = Date.now()): Promise<{ error: unknown; at: number }> {
  return promise.then(
    (value) => ({ error: new Error(`resolved: ${JSON.stringify(value)}`), at: Date.now() - start }),
    (error: unknown) => ({ error, at: Date.now() - start }),
  );
}

describe('proxy.waitForTask()', () => {
  it('follows an image task from queued through running to completed, with growing intervals', async () => {
    const times = sequence(UPSCALE_STATUS, [image('CREATED'), image('CREATED'), image('IN_PROGRESS'), image('IN_PROGRESS'), image('COMPLETED', ['https://cdn.test/out.png'])]);
    const updates: TaskStatus[] = [];
    const done = client().waitForTask({ kind: 'upscale', taskId: 't-1', status: 'CREATED' }, { onUpdate: (s) => updates.push(s) });
    await advance(20_000);
    const result = await done;
    expect(result).toEqual({ kind: 'upscale', taskId: 't-1', status: 'COMPLETED', urls: ['https://cdn.test/out.png'], raw: { data: { task_id: 't-1', status: 'COMPLETED', generated: ['https://cdn.test/out.png'] } } });
    expect(updates.map((u) => u.phase)).toEqual(['queued', 'running', 'succeeded']);
    expect(gaps(times)).toEqual([1000, 2000, 4000, 8000]);
    expect(seen.every((r) => r.method === 'GET' && r.headers.get('authorization') === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('caps the delay at poll.maxDelayMs', async () => {
    const times = sequence(UPSCALE_STATUS, [image('IN_PROGRESS')]);
    const done = client().waitForTask({ kind: 'upscale', taskId: 't-1' }, { poll: { maxDelayMs: 3000 }, waitTimeout: 20_000 }).catch((e: unknown) => e);
    await advance(25_000);
    await done;
    expect(gaps(times).slice(0, 4)).toEqual([1000, 2000, 3000, 3000]);
    expect(Math.max(...gaps(times))).toBe(3000);
  });

  it('draws each delay between half and all of its step (jitter), from the client defaults merged under the call', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const times = sequence(UPSCALE_STATUS, [image('IN_PROGRESS')]);
    const p = client({ wait: { poll: { minDelayMs: 2000, growFactor: 3 } } });
    const done = p.waitForTask({ kind: 'upscale', taskId: 't-1' }, { poll: { maxDelayMs: 10_000 }, waitTimeout: 20_000 }).catch((e: unknown) => e);
    await advance(25_000);
    await done;
    expect(gaps(times).slice(0, 4)).toEqual([1000, 3000, 5000, 5000]);
  });

  it('keeps a default that an option set to undefined leaves out', async () => {
    const times = sequence(UPSCALE_STATUS, [image('IN_PROGRESS'), image('IN_PROGRESS'), image('COMPLETED', ['https://cdn.test/o.png'])]);
    const p = client({ wait: { poll: { maxDelayMs: undefined } }, statusPaths: { upscale: undefined }, base64Format: { image: undefined } });
    const done = p.waitForTask({ kind: 'upscale', taskId: 't-1' }, { poll: { minDelayMs: undefined, growFactor: undefined }, waitTimeout: undefined });
    await advance(5000);
    await expect(done).resolves.toMatchObject({ urls: ['https://cdn.test/o.png'] });
    expect(gaps(times)).toEqual([1000, 2000]);
  });

  it('reads the style-transfer status at the top level and task_status as status', async () => {
    sequence('/proxy/imagevendor/v1/ai/image-style-transfer/t-1', [() => HttpResponse.json({ task_id: 't-1', task_status: 'completed', generated: ['https://cdn.test/s.png'] })]);
    const done = client().waitForTask({ kind: 'styleTransfer', taskId: 't-1' });
    await settle();
    await expect(done).resolves.toMatchObject({ status: 'COMPLETED', urls: ['https://cdn.test/s.png'] });
  });

  it('resolves a video task to creations[].url with cover_url', async () => {
    const creations = [{ id: 'c-1', url: 'https://cdn.test/v.mp4', cover_url: 'https://cdn.test/v.jpg' }];
    sequence(VIDEO_STATUS, [videoState('queueing'), videoState('processing', { progress: 50 }), videoState('success', { creations, credits: 20 })]);
    const done = client().waitForTask({ kind: 'referenceToVideo', taskId: 'v-1' });
    await advance(5000);
    const result = await done;
    expect(result).toMatchObject({ kind: 'referenceToVideo', taskId: 'v-1', status: 'success', urls: ['https://cdn.test/v.mp4'], credits: 20 });
    expect(result.creations[0]?.cover_url).toBe('https://cdn.test/v.jpg');
  });

  it('rejects with TaskFailedError carrying err_code when a video fails', async () => {
    sequence(VIDEO_STATUS, [videoState('processing'), videoState('failed', { err_code: 'CreationPolicyViolation' })]);
    const done = client().waitForTask({ kind: 'extend', taskId: 'v-1' }).catch((e: unknown) => e);
    await advance(2000);
    const error = (await done) as TaskFailedError;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error).toMatchObject({ kind: 'extend', taskId: 'v-1', status: 'failed', reason: 'failed', errCode: 'CreationPolicyViolation' });
  });

  it('scrubs the token a failure body echoes from the TaskFailedError (message, errCode, raw) and from every update', async () => {
    const echo = `Bearer ${SECRET}`;
    sequence(VIDEO_STATUS, [
      videoState('processing', { note: echo }),
      videoState('failed', { err_code: `Denied:${SECRET}`, message: `token ${SECRET} refused`, nested: { [SECRET]: [echo] } }),
    ]);
    const updates: TaskStatus[] = [];
    const done = client({ token: SECRET }).waitForTask({ kind: 'extend', taskId: 'v-1' }, { onUpdate: (s) => updates.push(s) }).catch((e: unknown) => e);
    await advance(2000);
    const error = (await done) as TaskFailedError;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error.errCode).toBe('Denied:[REDACTED]');
    const { inspect } = await import('node:util');
    for (const surface of [error.message, String(error), JSON.stringify(error), JSON.stringify(error.raw), inspect(error, { depth: 10 }), JSON.stringify(updates)]) {
      expect(surface).not.toContain(SECRET);
    }
    expect(updates.length).toBeGreaterThan(0);
  });

  it('scrubs the token an answer echoes from the result of a successful wait', async () => {
    sequence(UPSCALE_STATUS, [() => HttpResponse.json({ data: { task_id: 't-1', status: 'COMPLETED', generated: ['https://cdn.test/a.png'], echo: SECRET, relay_token: 'relay-signed' } })]);
    const done = client({ token: SECRET }).waitForTask({ kind: 'upscale', taskId: 't-1' });
    await settle();
    const result = await done;
    expect(result.urls).toEqual(['https://cdn.test/a.png']);
    expect(JSON.stringify(result)).not.toContain(SECRET);
    // A short credential is a placeholder (the relay's): answers keep text that merely contains it.
    sequence(UPSCALE_STATUS, [() => HttpResponse.json({ data: { task_id: 't-1', status: 'COMPLETED', generated: ['https://cdn.test/a.png'], relay_token: 'relay-signed' } })]);
    const placeholder = client({ token: 'relay' }).waitForTask({ kind: 'upscale', taskId: 't-1' });
    await settle();
    expect((await placeholder).raw).toEqual({ data: expect.objectContaining({ relay_token: 'relay-signed' }) });
  });

  it('rejects with TaskFailedError when an image fails', async () => {
    sequence(UPSCALE_STATUS, [image('FAILED')]);
    const done = client().waitForTask({ kind: 'upscale', taskId: 't-1' }).catch((e: unknown) => e);
    await settle();
    expect(await done).toMatchObject({ name: 'TaskFailedError', status: 'FAILED', reason: 'failed' });
  });

  it('rejects with TaskFailedError on success with no result (image and video)', async () => {
    sequence(UPSCALE_STATUS, [image('COMPLETED', [])]);
    sequence(VIDEO_STATUS, [videoState('success', { creations: [] })]);
    const p = client();
    const a = p.waitForTask({ kind: 'upscale', taskId: 't-1' }).catch((e: unknown) => e);
    const b = p.waitForTask({ kind: 'multiframe', taskId: 'v-1' }).catch((e: unknown) => e);
    await settle();
    expect(await a).toMatchObject({ name: 'TaskFailedError', reason: 'no-result', status: 'COMPLETED' });
    expect(await b).toMatchObject({ name: 'TaskFailedError', reason: 'no-result', status: 'success' });
  });

  it('retries a 404 right after submission, then finds the task', async () => {
    const times = sequence(UPSCALE_STATUS, [status(404), status(404), image('COMPLETED', ['https://cdn.test/o.png'])]);
    const done = client().waitForTask({ kind: 'upscale', taskId: 't-1' });
    await advance(5000);
    await expect(done).resolves.toMatchObject({ urls: ['https://cdn.test/o.png'] });
    expect(gaps(times)).toEqual([1000, 2000]);
  });

  it('reports a 404 that outlasts the grace period as NotFoundError', async () => {
    const times = sequence(UPSCALE_STATUS, [status(404)]);
    const done = client().waitForTask({ kind: 'upscale', taskId: 't-1' }, { notFoundGraceMs: 5000 }).catch((e: unknown) => e);
    await advance(20_000);
    expect(await done).toBeInstanceOf(NotFoundError);
    expect(gaps(times)).toEqual([1000, 2000, 4000]);
  });

  it('honours Retry-After of a 429 and a 503', async () => {
    const times = sequence(UPSCALE_STATUS, [status(429, { 'retry-after': '7' }), status(503, { 'retry-after': '12' }), image('COMPLETED', ['https://cdn.test/o.png'])]);
    const done = client().waitForTask({ kind: 'upscale', taskId: 't-1' });
    await advance(6999);
    expect(times).toHaveLength(1);
    await advance(30_000);
    await expect(done).resolves.toBeDefined();
    expect(gaps(times)).toEqual([7000, 12_000]);
  });

  it('gives up at once when Retry-After lies past the budget, naming the 429 as the cause', async () => {
    const times = sequence(UPSCALE_STATUS, [status(429, { 'retry-after': '60' })]);
    const done = client().waitForTask({ kind: 'upscale', taskId: 't-1' }, { waitTimeout: 30_000 }).catch((e: unknown) => e);
    await advance(100);
    const error = (await done) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.cause).toBeInstanceOf(RateLimitError);
    expect(error.submitted).toEqual({ kind: 'upscale', taskId: 't-1' });
    expect(times).toHaveLength(1);
  });

  it('retries transient errors (500, connection errors) and never resubmits', async () => {
    let posts = 0;
    server.use(http.post(`${BASE}/proxy/imagevendor/v1/ai/image-upscaler`, () => (posts++, HttpResponse.json({ data: { task_id: 't-1', status: 'CREATED' } }))));
    sequence(UPSCALE_STATUS, [status(500), () => HttpResponse.error(), image('COMPLETED', ['https://cdn.test/o.png'])]);
    const done = client().image.upscale({ image: 'https://cdn.test/in.png' }, { wait: true });
    await advance(10_000);
    await expect(done).resolves.toMatchObject({ kind: 'upscale', urls: ['https://cdn.test/o.png'] });
    expect(posts).toBe(1);
    expect(seen.map((r) => r.method)).toEqual(['POST', 'GET', 'GET', 'GET']);
  });

  it('times each status read out after options.timeout and reads again, within waitTimeout', async () => {
    let reads = 0;
    server.use(
      http.get(`${BASE}${UPSCALE_STATUS}`, ({ request }) => {
        reads++;
        // The first read never answers: only the per-attempt timeout ends it.
        if (reads === 1) return new Promise<Response>((resolve) => request.signal.addEventListener('abort', () => resolve(HttpResponse.error())));
        return image('COMPLETED', ['https://cdn.test/o.png'])();
      }),
    );
    const start = Date.now();
    let resolvedAt = -1;
    const done = client()
      .waitForTask({ kind: 'upscale', taskId: 't-1' }, { timeout: 2000, waitTimeout: 60_000 })
      .then((result) => ((resolvedAt = Date.now() - start), result));
    await advance(5000);
    await expect(done).resolves.toMatchObject({ urls: ['https://cdn.test/o.png'] });
    // 2 s until the first read timed out, then the first failure's backoff step of 1 s.
    expect(resolvedAt).toBe(3000);
    expect(reads).toBe(2);
  });

  it('stops at once on an error that another request cannot fix (401)', async () => {
    const times = sequence(UPSCALE_STATUS, [status(401)]);
    const done = client().waitForTask({ kind: 'upscale', taskId: 't-1' }).catch((e: unknown) => e);
    await advance(10_000);
    expect(await done).toBeInstanceOf(AuthenticationError);
    expect(times).toHaveLength(1);
  });

  it('times out with the core TimeoutError at waitTimeout, naming the task as error.submitted', async () => {
    const times = sequence(UPSCALE_STATUS, [image('IN_PROGRESS')]);
    const task = { kind: 'upscale', taskId: 't-1', status: 'IN_PROGRESS' } as const;
    const done = rejection(client().waitForTask(task, { waitTimeout: 10_000 }));
    await advance(60_000);
    const { error, at } = await done;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(10_000);
    expect((error as TimeoutError).submitted).toBe(task);
    expect(at).toBe(10_000);
    // Reads at 0, 1, 3 and 7 s; the next (15 s) would be past the deadline, and no read follows it.
    expect(times).toEqual([0, 1000, 3000, 7000]);
    expect(vi.getTimerCount()).toBe(0);
  });

  for (const [name, failure, cause] of [
    ['503', status(503), InternalServerError],
    ['connection refused', () => HttpResponse.error(), ConnectionError],
  ] as const) {
    it(`rejects at waitTimeout when a task that started queued cannot be read (${name}): time on failed reads counts (0.1.0 waited forever)`, async () => {
      const times = sequence(UPSCALE_STATUS, [failure]);
      const done = rejection(client().waitForTask({ kind: 'upscale', taskId: 't-1', status: 'CREATED' }, { waitTimeout: 10_000 }));
      await advance(60_000);
      const { error, at } = await done;
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as TimeoutError).cause).toBeInstanceOf(cause);
      expect((error as TimeoutError).submitted).toMatchObject({ kind: 'upscale', taskId: 't-1' });
      expect(at).toBe(10_000);
      expect(times.every((t) => t < 10_000)).toBe(true);
    });
  }

  it('does not count the time between two queued readings against waitTimeout', async () => {
    const times = answerBy(UPSCALE_STATUS, (elapsed) => (elapsed < 60_000 ? image('CREATED')() : image('IN_PROGRESS')()));
    const done = rejection(client().waitForTask({ kind: 'upscale', taskId: 't-1' }, { waitTimeout: 10_000, poll: { maxDelayMs: 2000 } }));
    await advance(120_000);
    const { error, at } = await done;
    expect(error).toBeInstanceOf(TimeoutError);
    // Everything from the last reading that said "queued" counts: the deadline falls 10 s after it.
    const lastQueued = times.filter((t) => t < 60_000).at(-1) as number;
    expect(at).toBe(lastQueued + 10_000);
    expect(at).toBeGreaterThan(60_000);
  });

  it('counts queued time with countQueued: true', async () => {
    const times = sequence(UPSCALE_STATUS, [image('CREATED')]);
    const done = rejection(client().waitForTask({ kind: 'upscale', taskId: 't-1', status: 'CREATED' }, { waitTimeout: 10_000, countQueued: true }));
    await advance(30_000);
    const { error, at } = await done;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(at).toBe(10_000);
    expect(times.at(-1)).toBeLessThan(10_000);
  });

  it('rejects with signal.reason when aborted during a sleep, leaving no timer', async () => {
    const times = sequence(UPSCALE_STATUS, [image('IN_PROGRESS')]);
    const controller = new AbortController();
    const options = { signal: controller.signal, poll: { minDelayMs: 60_000, maxDelayMs: 60_000 } };
    const done = client().waitForTask({ kind: 'upscale', taskId: 't-1' }, options).catch((e: unknown) => e);
    await advance(1500);
    expect(times).toHaveLength(1);
    const reason = new Error('user left');
    controller.abort(reason);
    expect(await done).toBe(reason);
    // The HTTP stack's own keep-alive timers expire within 5 s; a leaked 60 s sleep would not.
    await advance(5000);
    expect(vi.getTimerCount()).toBe(0);
    await advance(60_000);
    expect(times).toHaveLength(1);
  });

  it('charges a status body without any status (image) or state (video) to the budget', async () => {
    sequence(UPSCALE_STATUS, [() => HttpResponse.json({ data: { task_id: 't-1' } })]);
    sequence(VIDEO_STATUS, [() => HttpResponse.json({})]);
    const p = client();
    const image = p.waitForTask({ kind: 'upscale', taskId: 't-1' }, { waitTimeout: 5000 }).catch((e: unknown) => e);
    const video = p.waitForTask({ kind: 'extend', taskId: 'v-1', state: 'created' }, { waitTimeout: 5000 }).catch((e: unknown) => e);
    await advance(10_000);
    expect(await image).toBeInstanceOf(TimeoutError);
    expect(await video).toBeInstanceOf(TimeoutError);
  });

  it('uses statusPaths overrides', async () => {
    sequence('/custom/upscale/t-1/state', [image('COMPLETED', ['https://cdn.test/o.png'])]);
    const p = client({ statusPaths: { upscale: (id) => `/custom/upscale/${id}/state` } });
    const done = p.waitForTask({ kind: 'upscale', taskId: 't-1' });
    await settle();
    await expect(done).resolves.toMatchObject({ urls: ['https://cdn.test/o.png'] });
  });

  it('reads an image status that names no task as the status of the task asked about', async () => {
    sequence(UPSCALE_STATUS, [() => HttpResponse.json({ data: { status: 'COMPLETED', generated: ['https://cdn.test/o.png'] } })]);
    const done = client().waitForTask({ kind: 'upscale', taskId: 't-1' });
    await settle();
    await expect(done).resolves.toMatchObject({ taskId: 't-1', urls: ['https://cdn.test/o.png'] });
  });

  it('refuses a task reference without a known kind or an id', async () => {
    await expect(client().waitForTask({ kind: 'paint' as never, taskId: '' })).rejects.toBeInstanceOf(ValidationError);
    expect(seen).toHaveLength(0);
  });

  it.each(['', '.', '..', '%2e%2e'])('refuses the task id %j before any request (it would address another route)', async (taskId) => {
    const error = await client().waitForTask({ kind: 'upscale', taskId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual(['task.taskId']);
    expect(() => client().watchTask({ kind: 'extend', taskId })).toThrow(ValidationError);
    expect(seen).toHaveLength(0);
  });
});

describe('proxy submissions with { wait }', () => {
  it('a failed wait names the paid task as error.submitted; onSubmitted saw it before the wait', async () => {
    server.use(http.post(`${BASE}/proxy/imagevendor/v1/ai/image-upscaler`, () => HttpResponse.json({ data: { task_id: 't-1', status: 'CREATED' } })));
    sequence(UPSCALE_STATUS, [status(401)]);
    const submitted: unknown[] = [];
    const done = client()
      .image.upscale({ image: 'https://cdn.test/a.png' }, { wait: true, onSubmitted: (task) => void submitted.push(task) })
      .catch((e: unknown) => e);
    await settle();
    const error = (await done) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.submitted).toMatchObject({ kind: 'upscale', taskId: 't-1', status: 'CREATED' });
    expect(error.submitted).toBe(submitted[0]);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ submitted: { kind: 'upscale', taskId: 't-1' } });
    expect(Object.keys(error)).not.toContain('task');
    expect(seen.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('onSubmitted is told the task even when the wait is aborted (which rejects with signal.reason alone)', async () => {
    server.use(http.post(`${BASE}/proxy/videovendor/extend`, () => HttpResponse.json({ task_id: 'v-1', state: 'created', credits: 5 })));
    sequence(VIDEO_STATUS, [videoState('processing')]);
    const controller = new AbortController();
    const submitted: string[] = [];
    const done = client()
      .video.extend({ model: 'videoq2-pro', video_creation_id: 'c', video_url: 'https://cdn.test/v.mp4' }, { wait: true, signal: controller.signal, onSubmitted: (t) => void submitted.push(t.taskId) })
      .catch((e: unknown) => e);
    await settle();
    const reason = new Error('left');
    controller.abort(reason);
    expect(await done).toBe(reason);
    expect(submitted).toEqual(['v-1']);
  });

  it('an async onUpdate or onSubmitted that rejects breaks nothing and leaves no unhandled rejection', async () => {
    server.use(http.post(`${BASE}/proxy/imagevendor/v1/ai/image-upscaler`, () => HttpResponse.json({ data: { task_id: 't-1', status: 'CREATED' } })));
    sequence(UPSCALE_STATUS, [image('COMPLETED', ['https://cdn.test/out.png'])]);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const fail = async () => Promise.reject(new Error('observer down'));
      const done = client().image.upscale({ image: 'https://cdn.test/a.png' }, { wait: { onUpdate: fail }, onSubmitted: fail });
      await settle();
      await expect(done).resolves.toMatchObject({ urls: ['https://cdn.test/out.png'] });
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});

describe('proxy.watchTask()', () => {
  it('yields each change, ends after the terminal status', async () => {
    sequence(VIDEO_STATUS, [videoState('created'), videoState('created'), videoState('processing', { progress: 10 }), videoState('processing', { progress: 80 }), videoState('success', { creations: [{ url: 'https://cdn.test/v.mp4' }] })]);
    const seenStatuses: string[] = [];
    const loop = (async () => {
      for await (const s of client().watchTask({ kind: 'multiframe', taskId: 'v-1' })) seenStatuses.push(`${s.status}:${s.progress ?? ''}`);
    })();
    await advance(20_000);
    await loop;
    expect(seenStatuses).toEqual(['created:', 'processing:10', 'processing:80', 'success:']);
  });

  it('releases its timers on break', async () => {
    const times = sequence(UPSCALE_STATUS, [image('IN_PROGRESS')]);
    const loop = (async () => {
      for await (const s of client().watchTask({ kind: 'upscale', taskId: 't-1' }, { poll: { minDelayMs: 60_000 } })) if (s.phase === 'running') break;
    })();
    await settle();
    await loop;
    await advance(5000);
    expect(vi.getTimerCount()).toBe(0);
    await advance(60_000);
    expect(times).toHaveLength(1);
  });
});
