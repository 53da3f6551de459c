import { getEventListeners } from 'node:events';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { ClientClosedError, GraphcloudError, HttpClient, ResponseValidationError, sleep } from '../../src/core/index.js';
import { useMsw } from '../helpers/msw.js';

const BASE = 'https://api.test';
const OTHER = 'https://other.test';
const SECRET = 'sk-http-test-9f8e7d6c';
const { server, seen } = useMsw();

afterEach(() => {
  vi.useRealTimers();
});

/** msw records a request (and its body) asynchronously: let the recorder finish before asserting. */
const recorded = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('HttpClient redirects', () => {
  it('turns a POST into a GET without body on 302 and 303', async () => {
    server.use(
      http.post(`${BASE}/a302`, () => new HttpResponse(null, { status: 302, headers: { location: '/done' } })),
      http.post(`${BASE}/a303`, () => new HttpResponse(null, { status: 303, headers: { location: '/done' } })),
      http.get(`${BASE}/done`, () => HttpResponse.json({})),
    );
    const client = new HttpClient({ baseUrl: BASE });
    await client.request({ method: 'POST', path: '/a302', json: { x: 1 } });
    await client.request({ method: 'POST', path: '/a303', json: { x: 1 } });
    expect(seen.map((r) => `${r.method} ${r.url.pathname} ${r.body} ${r.headers.get('content-type') ?? '-'}`)).toEqual([
      'POST /a302 {"x":1} application/json',
      'GET /done  -',
      'POST /a303 {"x":1} application/json',
      'GET /done  -',
    ]);
  });

  it('turns a PUT into a GET on 303 (fetch semantics)', async () => {
    server.use(
      http.put(`${BASE}/a`, () => new HttpResponse(null, { status: 303, headers: { location: '/done' } })),
      http.get(`${BASE}/done`, () => HttpResponse.json({})),
    );
    await new HttpClient({ baseUrl: BASE }).request({ method: 'PUT', path: '/a', json: { x: 1 } });
    expect(seen.map((r) => `${r.method} ${r.url.pathname}`)).toEqual(['PUT /a', 'GET /done']);
  });

  it('repeats method and body on a same-origin 307 and 308', async () => {
    server.use(
      http.post(`${BASE}/a`, () => new HttpResponse(null, { status: 307, headers: { location: '/b' } })),
      http.post(`${BASE}/b`, () => new HttpResponse(null, { status: 308, headers: { location: '/c' } })),
      http.post(`${BASE}/c`, () => HttpResponse.json({})),
    );
    await new HttpClient({ baseUrl: BASE, auth: { scheme: 'bearer', credential: SECRET } }).request({ method: 'POST', path: '/a', json: { x: 1 } });
    expect(seen.map((r) => `${r.method} ${r.url.pathname} ${r.body} ${r.headers.get('authorization')}`)).toEqual([
      `POST /a {"x":1} Bearer ${SECRET}`,
      `POST /b {"x":1} Bearer ${SECRET}`,
      `POST /c {"x":1} Bearer ${SECRET}`,
    ]);
  });

  it('does not send a request body to another origin on a 307', async () => {
    server.use(http.post(`${BASE}/a`, () => new HttpResponse(null, { status: 307, headers: { location: `${OTHER}/steal` } })));
    const error = await new HttpClient({ baseUrl: BASE }).request({ method: 'POST', path: '/a', json: { key: SECRET } }).catch((e: unknown) => e);
    await recorded();
    expect(error).toBeInstanceOf(GraphcloudError);
    expect(String(error)).toContain('another origin');
    expect(seen.map((r) => r.url.origin)).toEqual([BASE]);
  });

  it('bounds a redirect loop with a clear error', async () => {
    server.use(http.get(`${BASE}/loop`, () => new HttpResponse(null, { status: 302, headers: { location: '/loop' } })));
    const error = await new HttpClient({ baseUrl: BASE }).request({ method: 'GET', path: '/loop' }).catch((e: unknown) => e);
    await recorded();
    expect(error).toBeInstanceOf(GraphcloudError);
    expect(String(error)).toMatch(/redirected more than 5 times/);
    expect(seen).toHaveLength(6);
  });

  it('resolves a relative Location against the current URL', async () => {
    server.use(
      http.get(`${BASE}/v1/nodes/a`, () => new HttpResponse(null, { status: 301, headers: { location: 'b?x=1' } })),
      http.get(`${BASE}/v1/nodes/b`, () => HttpResponse.json({})),
    );
    await new HttpClient({ baseUrl: BASE }).request({ method: 'GET', path: '/v1/nodes/a' });
    expect(seen.map((r) => `${r.url.pathname}${r.url.search}`)).toEqual(['/v1/nodes/a', '/v1/nodes/b?x=1']);
  });
});

describe('HttpClient absolute URLs', () => {
  it('keeps the path and the own query of an absolute URL byte for byte', async () => {
    server.use(http.get(`${OTHER}/*`, () => HttpResponse.json({})));
    const client = new HttpClient({ baseUrl: BASE, auth: { scheme: 'api-key', credential: SECRET } });
    await client.request({ method: 'GET', path: `${OTHER}/dir/` });
    await client.request({ method: 'GET', path: `${OTHER}/f.png?sig=a/b%2Bc&exp=1`, query: { n: 2 } });
    expect(seen.map((r) => r.url.toString())).toEqual([`${OTHER}/dir/`, `${OTHER}/f.png?sig=a/b%2Bc&exp=1&n=2`]);
    expect(seen.every((r) => r.headers.get('x-api-key') === null)).toBe(true);
  });
});

describe('HttpClient hooks', () => {
  it('an async hook that rejects neither fails the request nor leaves an unhandled rejection', async () => {
    server.use(http.get(`${BASE}/a`, () => HttpResponse.json({})));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const client = new HttpClient({
        baseUrl: BASE,
        onRequest: async () => Promise.reject(new Error('logger down')),
        onResponse: async () => Promise.reject(new Error('metrics down')),
      });
      await expect(client.request({ method: 'GET', path: '/a' })).resolves.toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});

describe('HttpClient leaves nothing behind', () => {
  it('adds no lasting listener to the caller signal across many calls, raw ones included', async () => {
    server.use(
      http.get(`${BASE}/json`, () => HttpResponse.json({ a: 1 })),
      http.get(`${BASE}/file`, () => new HttpResponse('bytes')),
      http.get(`${BASE}/fail`, () => new HttpResponse(null, { status: 404 })),
    );
    const client = new HttpClient({ baseUrl: BASE });
    const { signal } = new AbortController();
    for (let i = 0; i < 20; i++) {
      await client.request({ method: 'GET', path: '/json', options: { signal } });
      await client.request({ method: 'GET', path: '/fail', options: { signal } }).catch(() => undefined);
      const read = await client.requestRaw({ method: 'GET', path: '/file', options: { signal } });
      await read.text();
      const cancelled = await client.requestRaw({ method: 'GET', path: '/file', options: { signal } });
      await cancelled.body?.cancel();
    }
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('a raw body still aborts with the caller signal while it is being read', async () => {
    server.use(http.get(`${BASE}/stream`, () => new HttpResponse(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('part')) }))));
    const controller = new AbortController();
    const response = await new HttpClient({ baseUrl: BASE }).requestRaw({ method: 'GET', path: '/stream', options: { signal: controller.signal } });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort(new Error('stop'));
    await expect(reader.read()).rejects.toThrow();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('sleep() never turns a delay past the timer limit into an immediate wake-up', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let woke = false;
    void sleep(2 ** 31 + 10_000).then(() => (woke = true));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(woke).toBe(false);
  });
});

describe('ResponseValidationError', () => {
  it('names the field inside a union (body with or without a data wrapper) and keeps the raw body', async () => {
    const schema = z.union([z.looseObject({ data: z.looseObject({ task_id: z.string() }) }), z.looseObject({ task_id: z.string() })]);
    server.use(
      http.get(`${BASE}/wrapped`, () => HttpResponse.json({ data: { status: 'CREATED' } })),
      http.get(`${BASE}/flat`, () => HttpResponse.json({ task_id: 42 })),
    );
    const client = new HttpClient({ baseUrl: BASE });
    const wrapped = (await client.request({ method: 'GET', path: '/wrapped', schema }).catch((e: unknown) => e)) as ResponseValidationError;
    const flat = (await client.request({ method: 'GET', path: '/flat', schema }).catch((e: unknown) => e)) as ResponseValidationError;
    server.use(http.get(`${BASE}/neither`, () => HttpResponse.json({ status: 'CREATED' })));
    const neither = (await client.request({ method: 'GET', path: '/neither', schema }).catch((e: unknown) => e)) as ResponseValidationError;
    expect(neither.field).toBe('task_id');
    expect(wrapped).toBeInstanceOf(ResponseValidationError);
    expect(wrapped.field).toBe('data.task_id');
    expect(wrapped.body).toEqual({ data: { status: 'CREATED' } });
    expect(flat.field).toBe('task_id');
    expect(flat.message).toContain('task_id');
  });
});

describe('HttpClient.close()', () => {
  it('rejects a call in flight and every later call with a ClientClosedError, and leaves no listener', async () => {
    server.use(http.get(`${BASE}/slow`, async () => {
      await sleep(5_000);
      return HttpResponse.json({});
    }));
    const client = new HttpClient({ baseUrl: BASE, clientName: 'RegistryClient' });
    const caller = new AbortController();
    const inFlight = client.request({ method: 'GET', path: '/slow', options: { signal: caller.signal } });
    await recorded();
    client.close();
    await expect(inFlight).rejects.toBeInstanceOf(ClientClosedError);
    await expect(client.request({ method: 'GET', path: '/slow' })).rejects.toThrow('The RegistryClient was closed');
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('lets a request marked finishOnClose (a paid submission) finish, and refuses new ones', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(http.post(`${BASE}/submit`, async () => {
      await answered;
      return HttpResponse.json({ id: 'job-1' });
    }));
    const client = new HttpClient({ baseUrl: BASE, clientName: 'CloudClient' });
    const inFlight = client.request({ method: 'POST', path: '/submit', json: {}, schema: z.object({ id: z.string() }), finishOnClose: true });
    await recorded();
    client.close();
    answer();
    await expect(inFlight).resolves.toEqual({ id: 'job-1' });
    await expect(client.request({ method: 'POST', path: '/submit', json: {}, finishOnClose: true })).rejects.toBeInstanceOf(ClientClosedError);
  });
});
