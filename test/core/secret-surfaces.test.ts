import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ProxyClient } from '../../src/proxy/client.js';
import { RegistryClient } from '../../src/registry/client.js';
import { createRelay } from '../../src/server/index.js';
import { useMsw } from '../helpers/msw.js';

// Issue 19 item 1, beyond the cloud: a secret a client was given is scrubbed from what it reports
// later too, and from the success answers that reach the caller whole.
const { server } = useMsw();
const rendered = (value: unknown) => {
  const parts = [inspect(value, { depth: 20, showHidden: true }), JSON.stringify(value) ?? '', String(value)];
  for (let c: unknown = value; c instanceof Error; c = c.cause) parts.push(c.stack ?? '', c.message);
  return parts.join('\n');
};

describe('registry: the personal access token and the registry token', () => {
  const BASE = 'https://registry.test';
  const TOKEN = 'reg-token-surfaces-0a1b2c3d';
  const PAT = 'pat-surfaces-4e5f6a7b8c9d';

  it('scrubs the personal access token from the published version, and from a later error that echoes it', async () => {
    let echoed = '';
    server.use(
      http.post(`${BASE}/publishers/acme/nodes/up/versions`, async ({ request }) => {
        const body = (await request.json()) as { personal_access_token: string };
        echoed = body.personal_access_token;
        // No signedUrl: the registry took the package some other way; the version is the answer.
        return HttpResponse.json({ node_version: { id: 'v1', version: '1.0.0', changelog: `published with ${echoed}` }, signedUrl: `https://bucket.test/up.zip?sig=x` });
      }),
      http.put('https://bucket.test/up.zip', () => new HttpResponse(null, { status: 200 })),
      http.get(`${BASE}/nodes/up`, ({ request }) => HttpResponse.json({ message: `last publish by ${echoed}, auth ${request.headers.get('authorization')}` }, { status: 500 })),
    );
    const registry = new RegistryClient({ baseUrl: BASE, token: TOKEN, retry: false });
    const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4]);
    const version = await registry.versions.publish('acme', 'up', { node: { name: 'Up' }, version: { version: '1.0.0' }, package: zip, personalAccessToken: PAT });
    const later = await registry.nodes.get('up').catch((e: unknown) => e);
    expect(later).toBeInstanceOf(Error);
    const everything = [version, later].map(rendered).join('\n');
    expect(everything).toContain('[REDACTED]');
    expect(everything).not.toContain(PAT);
    expect(everything).not.toContain(TOKEN);
  });
});

describe('proxy: the proxy token', () => {
  const TOKEN = 'proxy-token-surfaces-5e6f7a8b';

  it('is scrubbed from the submission, every status update, the result and a later error that echo it', async () => {
    // Answers from the client's own fetch: the vendor echoes the bearer token everywhere it can.
    const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const token = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
      const url = new URL(request.url);
      if (url.pathname.endsWith('/missing')) return new Response(JSON.stringify({ message: `no task for ${token}` }), { status: 404 });
      const body = request.method === 'POST' ? { data: { task_id: 't-1', status: 'CREATED', note: token } } : { data: { task_id: 't-1', status: 'COMPLETED', generated: [`https://cdn.test/${token}.png`] } };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof globalThis.fetch;
    const proxy = new ProxyClient({ baseUrl: 'https://proxy.test', token: TOKEN, fetch, retry: false, wait: { poll: { minDelayMs: 100, maxDelayMs: 100 } } });
    const updates: unknown[] = [];
    const result = await proxy.image.upscale({ image: 'https://cdn.test/a.png', scale_factor: '2x' }, { wait: { onUpdate: (u) => updates.push(u) } });
    const later = await proxy.waitForTask({ kind: 'upscale', taskId: 'missing' }, { waitTimeout: 300 }).catch((e: unknown) => e);
    await proxy.close();
    expect(later).toBeInstanceOf(Error);
    const everything = [result, later, ...updates].map(rendered).join('\n');
    expect(everything).toContain('[REDACTED]');
    expect(everything).not.toContain(TOKEN);
  });
});

describe('graphcloud/server: the relay secret and the upstream credentials', () => {
  const SECRET = 'relay-signing-secret-of-32-characters-at-least';
  const KEY = 'sk-relay-surfaces-0a1b2c3d';

  it('scrubs the relay secret, as it scrubs the platform key, from an upstream answer', async () => {
    // An upstream that echoes what it can see of the deployment (a debug page, a misconfiguration).
    const fetch = (async (_url: string | URL | Request, init?: RequestInit) => {
      const key = new Headers(init?.headers).get('x-api-key');
      return new Response(JSON.stringify({ LoadImage: { description: `key ${key} secret ${SECRET}` } }), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof globalThis.fetch;
    const relay = createRelay({ cloudUrl: 'https://cloud.test', apiKey: KEY, secret: SECRET, dangerouslyAllowAnyone: true, basePath: '/gc', fetch });
    try {
      const response = await relay.fetch(new Request('http://app.test/gc/api/object_info'));
      const text = await response.text();
      expect(text).toContain('[REDACTED]');
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(SECRET);
    } finally {
      await relay.close();
    }
  });
});
