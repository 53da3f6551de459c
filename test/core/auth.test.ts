import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { http, HttpResponse, passthrough } from 'msw';
import { describe, expect, it } from 'vitest';
import { ConnectionError, GraphcloudError, HttpClient, ValidationError } from '../../src/core/index.js';
import { RegistryClient } from '../../src/registry/client.js';
import { useMsw } from '../helpers/msw.js';

const BASE = 'https://api.test';
const OTHER = 'https://files.other.test';
const SECRET = 'sk-live-4f9d2c1b8e7a6f5d';
const { server, seen } = useMsw();

describe('HttpClient auth', () => {
  it('sends X-API-Key for the api-key scheme', async () => {
    server.use(http.get(`${BASE}/a`, () => HttpResponse.json({})));
    await new HttpClient({ baseUrl: BASE, auth: { scheme: 'api-key', credential: SECRET } }).request({ method: 'GET', path: '/a' });
    expect(seen[0]?.headers.get('x-api-key')).toBe(SECRET);
    expect(seen[0]?.headers.get('authorization')).toBeNull();
  });

  it('sends Authorization: Bearer for the bearer scheme', async () => {
    server.use(http.get(`${BASE}/a`, () => HttpResponse.json({})));
    await new HttpClient({ baseUrl: BASE, auth: { scheme: 'bearer', credential: SECRET } }).request({ method: 'GET', path: '/a' });
    expect(seen[0]?.headers.get('authorization')).toBe(`Bearer ${SECRET}`);
  });

  it('resolves a credential function before every request (sync and async)', async () => {
    server.use(http.get(`${BASE}/a`, () => HttpResponse.json({})));
    let n = 0;
    const sync = new HttpClient({ baseUrl: BASE, auth: { scheme: 'bearer', credential: () => `tok-${++n}` } });
    await sync.request({ method: 'GET', path: '/a' });
    await sync.request({ method: 'GET', path: '/a' });
    const asyncClient = new HttpClient({ baseUrl: BASE, auth: { scheme: 'api-key', credential: async () => 'async-key-1' } });
    await asyncClient.request({ method: 'GET', path: '/a' });
    expect(seen.map((r) => r.headers.get('authorization') ?? r.headers.get('x-api-key'))).toEqual(['Bearer tok-1', 'Bearer tok-2', 'async-key-1']);
  });

  it('rejects an empty credential with a ValidationError and sends nothing', async () => {
    const client = new HttpClient({ baseUrl: BASE, auth: { scheme: 'bearer', credential: () => '' } });
    await expect(client.request({ method: 'GET', path: '/a' })).rejects.toBeInstanceOf(ValidationError);
    expect(seen).toHaveLength(0);
  });

  it('does not attach the credential to another origin', async () => {
    server.use(http.get(`${OTHER}/file.png`, () => HttpResponse.json({})));
    await new HttpClient({ baseUrl: BASE, auth: { scheme: 'api-key', credential: SECRET } }).request({ method: 'GET', path: `${OTHER}/file.png` });
    expect(seen[0]?.headers.get('x-api-key')).toBeNull();
  });

  it('follows a redirect to another origin without the credential', async () => {
    server.use(
      http.get(`${BASE}/view`, () => new HttpResponse(null, { status: 302, headers: { location: `${OTHER}/signed?sig=abc` } })),
      http.get(`${OTHER}/signed`, () => HttpResponse.json({ ok: true })),
    );
    const client = new HttpClient({ baseUrl: BASE, auth: { scheme: 'api-key', credential: SECRET } });
    const response = await client.requestRaw({ method: 'GET', path: '/view' });
    expect(await response.json()).toEqual({ ok: true });
    expect(seen.map((r) => [r.url.origin, r.headers.get('x-api-key')])).toEqual([
      [BASE, SECRET],
      [OTHER, null],
    ]);
  });

  it('keeps the credential on a same-origin redirect', async () => {
    server.use(
      http.get(`${BASE}/nodes/alias`, () => new HttpResponse(null, { status: 302, headers: { location: '/nodes/canonical' } })),
      http.get(`${BASE}/nodes/canonical`, () => HttpResponse.json({ id: 'canonical' })),
    );
    await new HttpClient({ baseUrl: BASE, auth: { scheme: 'bearer', credential: SECRET } }).request({ method: 'GET', path: '/nodes/alias' });
    expect(seen.map((r) => r.headers.get('authorization'))).toEqual([`Bearer ${SECRET}`, `Bearer ${SECRET}`]);
  });
});

describe('credential redaction', () => {
  it('keeps the token out of util.inspect(client)', () => {
    const client = new RegistryClient({ baseUrl: BASE, token: SECRET });
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(SECRET);
    expect(JSON.stringify(client)).not.toContain(SECRET);
  });

  it('redacts token= in URLs of errors and hooks', async () => {
    server.use(http.get(`${BASE}/a`, () => new HttpResponse('denied', { status: 401 })));
    const events: unknown[] = [];
    const client = new HttpClient({ baseUrl: BASE, retry: false, onRequest: (e) => events.push(e), onResponse: (e) => events.push(e) });
    const error = await client.request({ method: 'GET', path: '/a', query: { token: SECRET, page: 2 } }).catch((e: unknown) => e);
    const text = [String(error), JSON.stringify(error), inspect(error), JSON.stringify(events)].join('\n');
    expect(text).not.toContain(SECRET);
    expect(text).toContain('token=[REDACTED]');
    expect(text).toContain('page=2');
  });

  it('scrubs a credential the server echoes into an error body', async () => {
    server.use(http.get(`${BASE}/a`, () => HttpResponse.json({ error: 'bad_key', message: `key ${SECRET} is revoked` }, { status: 401 })));
    const client = new HttpClient({ baseUrl: BASE, auth: { scheme: 'api-key', credential: SECRET } });
    const error = await client.request({ method: 'GET', path: '/a' }).catch((e: unknown) => e);
    expect([String(error), JSON.stringify(error), inspect(error, { depth: 10 })].join('\n')).not.toContain(SECRET);
  });
});

describe('HttpClient credential functions that fail', () => {
  it('rejects with a GraphcloudError, sends nothing and does not retry', async () => {
    let calls = 0;
    const client = new HttpClient({
      baseUrl: BASE,
      auth: {
        scheme: 'bearer',
        credential: () => {
          calls += 1;
          throw new Error('vault unreachable');
        },
      },
    });
    const error = await client.request({ method: 'GET', path: '/a' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphcloudError);
    expect(error).not.toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain('vault unreachable');
    expect(calls).toBe(1);
    expect(seen).toHaveLength(0);
  });
});

describe('ConnectionError of a POST', () => {
  it('says the server may have accepted a POST whose body broke after the headers', async () => {
    // A real loopback server: headers and half a body, then the socket is destroyed.
    const broken = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"prompt_id":');
      setImmediate(() => res.socket?.destroy());
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
    server.use(http.post(`${origin}/prompt`, () => passthrough()));
    try {
      const error = (await new HttpClient({ baseUrl: origin }).request({ method: 'POST', path: '/prompt', json: {} }).catch((e: unknown) => e)) as ConnectionError;
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error.status).toBe(200);
      expect(error.message).toContain('answered 200');
      expect(error.message).toContain('may have accepted it; it was not sent again');
    } finally {
      broken.close();
    }
  });
});
