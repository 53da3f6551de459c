import { http, HttpResponse, passthrough } from 'msw';
import { describe, expect, it } from 'vitest';
import { ConnectionError, HttpClient, isTransientError } from '../../src/core/index.js';
import { useMsw } from '../helpers/msw.js';

const { server, seen } = useMsw();

/**
 * A loopback port nothing listens on: connecting to it is refused at once. Port 2 is privileged,
 * unused, and not one fetch blocks (port 1 is); a port freed by `listen(0)` could be taken by
 * another test file's server before the request.
 */
const CLOSED_ORIGIN = 'http://127.0.0.1:2';

describe('ConnectionError: "certainly not sent" versus "may have been accepted"', () => {
  it('says a refused connection sent nothing, keeps the refusal, and marks it notSent', async () => {
    const origin = CLOSED_ORIGIN;
    server.use(http.post(`${origin}/prompt`, () => passthrough()));
    const error = (await new HttpClient({ baseUrl: origin }).request({ method: 'POST', path: '/prompt', json: {} }).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.notSent).toBe(true);
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain('nothing was sent');
    expect(error.message).not.toContain('may have accepted');
  });

  it('says the runtime connected nowhere when fetch refuses the port, and does not try again', async () => {
    // Port 6000 is on the Fetch standard's list of blocked ports: Node's fetch refuses it before
    // connecting, with only "fetch failed" and, two causes down, "bad port".
    const origin = 'http://127.0.0.1:6000';
    server.use(http.all(`${origin}/*`, () => passthrough()));
    const attempts: number[] = [];
    const client = new HttpClient({ baseUrl: origin, retry: { limit: 3, minDelayMs: 1, maxDelayMs: 1 }, onRequest: ({ attempt }) => void attempts.push(attempt) });
    const error = (await client.request({ method: 'POST', path: '/prompt', json: {} }).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.notSent).toBe(true);
    expect(error.message).toContain('fetch refuses to connect to this port');
    expect(error.code).toBe('ERR_BLOCKED_PORT');
    expect(error.message).toContain('serve the API on another port');
    expect(error.message).toContain('bad port');
    expect(error.message).not.toContain('may have accepted');
    expect(isTransientError(error)).toBe(false);
    expect(attempts).toEqual([1]);
    const get = (await client.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as ConnectionError;
    expect(get.notSent).toBe(true);
    expect(attempts).toEqual([1, 1]);
  });

  it('keeps the innermost reason of a failed connection in the message', async () => {
    server.use(http.all(`${CLOSED_ORIGIN}/*`, () => passthrough()));
    const error = (await new HttpClient({ baseUrl: CLOSED_ORIGIN }).request({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as ConnectionError;
    expect(error.message).toContain('connect ECONNREFUSED 127.0.0.1:2');
  });

  it('keeps "may have accepted" for a connection that broke once the request was out', async () => {
    server.use(http.post('https://api.test/prompt', () => HttpResponse.error()));
    const error = (await new HttpClient({ baseUrl: 'https://api.test' }).request({ method: 'POST', path: '/prompt', json: {} }).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.notSent).toBe(false);
    expect(error.message).toContain('may have accepted it');
  });
});

describe('credential headers set by the caller', () => {
  it.each(['authorization', 'x-api-key', 'cookie', 'proxy-authorization'])('never follow a redirect to another origin: %s', async (name) => {
    server.use(
      http.get('https://api.test/thing', () => new HttpResponse(null, { status: 302, headers: { location: 'https://other.test/file' } })),
      http.get('https://other.test/file', () => HttpResponse.json({})),
    );
    const perCall = new HttpClient({ baseUrl: 'https://api.test' });
    await perCall.request({ method: 'GET', path: '/thing', options: { headers: { [name]: 'secret-value-123', 'x-trace': 't1' } } });
    const perClient = new HttpClient({ baseUrl: 'https://api.test', headers: { [name]: 'secret-value-123' } });
    await perClient.request({ method: 'GET', path: '/thing' });
    const hops = seen.filter((r) => r.method === 'GET').map((r) => `${r.url.host} ${r.headers.get(name) ?? '-'}`);
    expect(hops).toEqual(['api.test secret-value-123', 'other.test -', 'api.test secret-value-123', 'other.test -']);
    // Headers that carry no credential still travel.
    expect(seen.filter((r) => r.url.host === 'other.test')[0]!.headers.get('x-trace')).toBe('t1');
  });
});
