import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/core/index.js';
import { RegistryClient } from '../../src/registry/client.js';
import { useMsw } from '../helpers/msw.js';

const BASE = 'https://api.test';
const SECRETS = ['sk-scan-bearer-0a1b2c3d4e', 'sk-scan-apikey-5f6a7b8c9d'];
const { server } = useMsw();

/** Every way an error or payload can be printed, including its cause chain and stack. */
function renderings(value: unknown): string {
  const parts = [inspect(value, { depth: 20, showHidden: true }), JSON.stringify(value) ?? ''];
  for (let current: unknown = value; current instanceof Error; current = current.cause) parts.push(String(current), current.stack ?? '');
  return parts.join('\n');
}

describe('secret scan', () => {
  it('no credential appears in any error or hook payload, whatever fails', async () => {
    server.use(
      // The server echoes whatever credential it received, as a careless backend might.
      http.all(`${BASE}/status/:code`, ({ params, request }) =>
        HttpResponse.json({ error: 'e', message: `echo ${request.headers.get('authorization') ?? request.headers.get('x-api-key')}` }, { status: Number(params.code) }),
      ),
      http.get(`${BASE}/drop`, () => HttpResponse.error()),
      http.get(`${BASE}/html`, ({ request }) => new HttpResponse(`<h1>502</h1> key=${request.headers.get('x-api-key')}`, { status: 502 })),
      http.get(`${BASE}/bad-shape`, ({ request }) => HttpResponse.json({ page: request.headers.get('x-api-key') ?? request.headers.get('authorization') })),
      http.get(`${BASE}/hang`, () => new Promise<Response>(() => {})),
      http.get(`${BASE}/redirect`, () => new HttpResponse(null, { status: 302, headers: { location: `https://other.test/x?token=${SECRETS[1]}` } })),
      http.get('https://other.test/x', () => new HttpResponse(null, { status: 403 })),
    );
    const payloads: unknown[] = [];
    const hooks = { onRequest: (e: unknown) => payloads.push(e), onResponse: (e: unknown) => payloads.push(e) };
    const clients = [
      new HttpClient({ baseUrl: BASE, auth: { scheme: 'bearer', credential: SECRETS[0]! }, retry: { limit: 1, minDelayMs: 1, maxDelayMs: 1 }, timeout: 50, ...hooks }),
      new HttpClient({ baseUrl: BASE, auth: { scheme: 'api-key', credential: async () => SECRETS[1]! }, retry: false, timeout: 50, ...hooks }),
    ];
    const { z } = { z: await import('zod/mini') };
    const schema = z.object({ page: z.number() });
    const errors: unknown[] = [];
    for (const client of clients) {
      for (const code of [400, 401, 402, 403, 404, 409, 422, 429, 500, 503]) {
        errors.push(await client.request({ method: 'GET', path: `/status/${code}`, query: { token: SECRETS[0] }, options: { retry: false } }).catch((e: unknown) => e));
        errors.push(await client.request({ method: 'POST', path: `/status/${code}`, json: { key: 'x' } }).catch((e: unknown) => e));
      }
      for (const path of ['/drop', '/html', '/hang', '/redirect']) errors.push(await client.request({ method: 'GET', path }).catch((e: unknown) => e));
      errors.push(await client.request({ method: 'GET', path: '/bad-shape', schema }).catch((e: unknown) => e));
    }
    const registry = new RegistryClient({ baseUrl: BASE, token: SECRETS[0]!, ...hooks });
    errors.push(await registry.nodes.review('x', 9).catch((e: unknown) => e));
    errors.push(await registry.versions.list({ pageSize: 1000 }).catch((e: unknown) => e));
    expect(errors.every((e) => e instanceof Error)).toBe(true);
    expect(payloads.length).toBeGreaterThan(40);
    const everything = [...errors, ...payloads, registry, ...clients].map(renderings).join('\n');
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });
});

describe('secret scan: echoes the 0.1.0 scrubber missed', () => {
  const KEY = 'sk-echo-apikey-1a2b3c4d5e';
  const PARTNER = 'sk-echo-partner-9z8y7x6w';

  function deep(levels: number, leaf: string): Record<string, unknown> | string {
    let value: Record<string, unknown> | string = leaf;
    for (let i = 0; i < levels; i++) value = { nested: value };
    return value;
  }

  it('scrubs every credential the request carried (header and declared body fields), at any depth, in keys and in the request id', async () => {
    server.use(
      http.post(`${BASE}/echo/:kind`, async ({ params, request }) => {
        const sent = (await request.json()) as { partner: string };
        const key = request.headers.get('x-api-key') ?? '';
        const headers = { 'x-request-id': `req-${key}` };
        if (params.kind === 'deep') return HttpResponse.json(deep(40, `key ${key} partner ${sent.partner}`), { status: 500, headers });
        if (params.kind === 'keys') return HttpResponse.json({ [key]: 'as a key', nested: { [sent.partner]: true } }, { status: 400, headers });
        return HttpResponse.json({ message: `you sent ${sent.partner}`, echo: sent }, { status: 400, headers });
      }),
    );
    const payloads: unknown[] = [];
    const client = new HttpClient({ baseUrl: BASE, auth: { scheme: 'api-key', credential: KEY }, retry: false, onResponse: (e) => payloads.push(e) });
    const errors: unknown[] = [];
    for (const kind of ['deep', 'keys', 'body']) {
      errors.push(await client.request({ method: 'POST', path: `/echo/${kind}`, json: { partner: PARTNER }, secrets: [PARTNER] }).catch((e: unknown) => e));
    }
    expect(errors.every((e) => e instanceof Error)).toBe(true);
    const everything = [...errors, ...payloads].map(renderings).join('\n');
    expect(everything).toContain('[REDACTED]');
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(PARTNER);
  });
});
