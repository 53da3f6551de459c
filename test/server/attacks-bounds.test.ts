import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createRelay } from '../../src/server/index.js';
import { openSocket, SECRET } from './helpers.js';
import { hostileStarter } from './hostile.js';

/** A raw HTTP/1.1 request whose body never finishes: resolves with what the relay wrote once it closed the connection. */
function slowRequest(origin: string, path: string, headers: Record<string, string> = {}, method = 'POST'): { socket: Socket; closed: Promise<string> } {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  const fields = { host: `${hostname}:${port}`, 'content-type': 'application/json', 'content-length': '1000', ...headers };
  const lines = [`${method} ${path} HTTP/1.1`, ...Object.entries(fields).map(([k, v]) => `${k}: ${v}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n${fields['content-length'] === '0' ? '' : '{'}`);
  let received = '';
  socket.on('data', (chunk) => (received += String(chunk)));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  socket.on('error', () => undefined);
  return { socket, closed };
}

describe('relay: bounds against slow and hostile visitors', () => {
  const start = hostileStarter();

  it('answers a request body that takes longer than bodyTimeoutMs with 408, and closes the connection (Node)', async () => {
    const { relay, cloud } = await start({ bodyTimeoutMs: 200 });
    const submission = slowRequest(relay.origin, `/api/graphcloud/api/prompt`);
    const upload = slowRequest(relay.origin, `/api/graphcloud/api/upload/image`);
    // A refused route answers at once; its unread body must not keep the connection either.
    const refused = slowRequest(relay.origin, `/api/graphcloud/api/interrupt`);
    const [a, b, c] = await Promise.all([submission.closed, upload.closed, refused.closed]);
    for (const answer of [a, b]) {
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(answer).toContain('"error":"body_timeout"');
    }
    expect(c).toMatch(/^HTTP\/1\.1 403/);
    expect(cloud.seen.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('bounds the body read on any runtime: the web-standard handler answers 408 to a stream that never ends', async () => {
    const relay = createRelay({ cloudUrl: 'http://127.0.0.1:2', secret: SECRET, dangerouslyAllowAnyone: true, bodyTimeoutMs: 100 });
    try {
      const never = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('{')) });
      const request = new Request('http://relay.test/api/prompt', { method: 'POST', headers: { 'content-type': 'application/json' }, body: never, duplex: 'half' } as RequestInit);
      const response = await relay(request);
      expect(response.status).toBe(408);
      expect(await response.json()).toMatchObject({ error: 'body_timeout' });
    } finally {
      await relay.close();
    }
  });

  it('takes a page as same-site only when scheme, host and port all match', async () => {
    const { relay } = await start();
    const port = new URL(relay.origin).port;
    for (const origin of [`https://127.0.0.1:${port}`, `http://127.0.0.1:${Number(port) + 1}`, 'http://127.0.0.1', `ws://127.0.0.1:${port}`, 'null']) {
      const response = await fetch(`${relay.url}/api/object_info`, { headers: { origin } });
      expect(response.status, origin).toBe(403);
      expect(await response.json()).toMatchObject({ error: 'origin_not_allowed' });
    }
    await expect(openSocket(relay.url, { origin: `https://127.0.0.1:${port}` })).rejects.toThrow('upgrade refused: 403');
    expect((await fetch(`${relay.url}/api/object_info`, { headers: { origin: relay.origin } })).status).not.toBe(403);
    // Behind a proxy that ends TLS, the site's https origin is listed.
    const behind = await start({ allowedOrigins: [`https://127.0.0.1:${port}`] });
    expect((await fetch(`${behind.relay.url}/api/object_info`, { headers: { origin: `https://127.0.0.1:${new URL(behind.relay.origin).port}` } })).status).toBe(403);
    expect((await fetch(`${behind.relay.url}/api/object_info`, { headers: { origin: `https://127.0.0.1:${port}` } })).status).not.toBe(403);
  });

  it('answers a submission nested 30,000 levels deep with 400 body_too_deep, and the handler never rejects', async () => {
    const deep = `{"prompt":{"1":{"class_type":"X","inputs":{"v":${'['.repeat(30_000)}${']'.repeat(30_000)}}}}}`;
    const { relay, cloud } = await start();
    const response = await fetch(`${relay.url}/api/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'body_too_deep' });
    expect(cloud.seen.filter((r) => r.method === 'POST')).toEqual([]);
    // A hook that makes an unsendable body: the plain handler answers, it does not reject.
    const errors: Error[] = [];
    const hooked = createRelay({ cloudUrl: cloud.url, secret: SECRET, dangerouslyAllowAnyone: true, onError: (error) => errors.push(error), onSubmit: () => ({ prompt: JSON.parse(deep.slice(10, -1)) as Record<string, unknown> }) });
    try {
      const request = () => new Request('http://relay.test/api/prompt', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":{}}' });
      const answer = await hooked(request());
      expect(answer.status).toBe(500);
      expect(await answer.json()).toMatchObject({ error: 'relay_failed' });
      expect(errors).toHaveLength(1);
      expect((await hooked(new Request('http://relay.test/api/prompt', { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep }))).status).toBe(400);
    } finally {
      await hooked.close();
    }
    expect(cloud.seen.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('refuses a raw path with a dot segment before the URL parser resolves it (Node)', async () => {
    const { relay, cloud } = await start();
    for (const path of ['/api/graphcloud/api/interrupt/../object_info', '/api/graphcloud/api/x/%2e%2E/object_info', '/api/graphcloud/./api/object_info', '/api/graphcloud/api/object_info/.']) {
      const request = slowRequest(relay.origin, path, { 'content-length': '0', connection: 'close' }, 'GET');
      const answer = await request.closed;
      expect(answer, path).toMatch(/^HTTP\/1\.1 400/);
      expect(answer, path).toContain('"error":"bad_path"');
    }
    expect(cloud.seen.filter((r) => r.path === '/api/object_info')).toEqual([]);
  });
});
