import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { http, HttpResponse, passthrough } from 'msw';
import { describe, expect, it } from 'vitest';
import { ConnectionError, HttpClient } from '../../src/core/index.js';
import { useMsw } from '../helpers/msw.js';

const { server, seen } = useMsw();

/** A loopback port nothing listens on: connecting to it is refused at once. */
async function closedPort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('ConnectionError: "certainly not sent" versus "may have been accepted"', () => {
  it('says a refused connection sent nothing, keeps the refusal, and marks it notSent', async () => {
    const origin = `http://127.0.0.1:${await closedPort()}`;
    server.use(http.post(`${origin}/prompt`, () => passthrough()));
    const error = (await new HttpClient({ baseUrl: origin }).request({ method: 'POST', path: '/prompt', json: {} }).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.notSent).toBe(true);
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain('nothing was sent');
    expect(error.message).not.toContain('may have accepted');
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
