import { describe, expect, it } from 'vitest';
import { JOB_TOKEN_HEADER } from '../../src/server/index.js';
import { hostileStarter, KEY, startHostileCloud, tokenOf } from './hostile.js';

describe('relay: /api/view against a hostile upstream and visitor', () => {
  const start = hostileStarter();

  it('refuses a repeated query name, and forwards only the values it checked, rebuilt', async () => {
    const { cloud, relay } = await start();
    cloud.on('/api/view', (_req, res, url) => void res.writeHead(200, { 'content-type': 'image/png' }).end(url.searchParams.getAll('filename').at(-1)));
    const headers = { [JOB_TOKEN_HEADER]: await tokenOf('p-B') };
    for (const query of ['filename=p-B.png&filename=p-A.png&type=output', 'filename=p-B.png&subfolder=&subfolder=secret', 'filename=p-B.png&type=output&type=temp', 'filename=p-B.png&preview=a&preview=b']) {
      const response = await fetch(`${relay.url}/api/view?${query}`, { headers });
      expect(response.status, query).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'bad_request' });
    }
    expect(cloud.seen.filter((r) => r.path === '/api/view')).toEqual([]);
    const served = await fetch(`${relay.url}/api/view?type=output&channel=rgb&filename=p-B.png&junk=1&subfolder=`, { headers });
    expect(served.status).toBe(200);
    expect(cloud.seen.filter((r) => r.path === '/api/view').map((r) => r.query)).toEqual(['?filename=p-B.png&subfolder=&type=output&channel=rgb']);
    // The job= token of an <img src> may not repeat either: it is checked once.
    expect((await fetch(`${relay.url}/api/view?filename=p-B.png&job=${await tokenOf('p-B')}&job=${await tokenOf('p-A')}`)).status).toBe(400);
  });
});

describe('relay: /api/view redirect chains', () => {
  const start = hostileStarter();
  const view = (relayUrl: string, token: string) => fetch(`${relayUrl}/api/view?filename=p-A.png&type=output`, { headers: { [JOB_TOKEN_HEADER]: token } });

  it('never follows a chain back to the cloud, so the key never reaches an off-list cloud path', async () => {
    const { cloud, relay } = await start();
    cloud.on('/api/view', (_req, res) => void res.writeHead(302, { location: `${cloud.storage.url}/hop` }).end());
    cloud.storage.on('/hop', (_req, res) => void res.writeHead(302, { location: `${cloud.url}/api/steal` }).end());
    cloud.on('/api/steal', (req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(String(req.headers['x-api-key'])));
    const response = await view(relay.url, await tokenOf('p-A'));
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: 'upstream_refused' });
    expect(cloud.seen.filter((r) => r.path === '/api/steal')).toEqual([]);
    // A hop within the cloud goes to its /api/view only.
    cloud.on('/api/view', (_req, res) => void res.writeHead(302, { location: '/api/steal' }).end());
    expect((await view(relay.url, await tokenOf('p-A'))).status).toBe(502);
    expect(cloud.seen.filter((r) => r.path === '/api/steal')).toEqual([]);
    expect(cloud.storage.seen.every((r) => r.key === undefined)).toBe(true);
  });

  it('follows the storage host it learnt from the first redirect, and no other', async () => {
    const { cloud, relay } = await start();
    const other = await startHostileCloud();
    try {
      let target = `${cloud.storage.url}/signed/p-A.png`;
      cloud.on('/api/view', (_req, res) => void res.writeHead(302, { location: target }).end());
      for (const server of [cloud.storage, other]) server.on('/signed/p-A.png', (_req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end('png'));
      expect((await view(relay.url, await tokenOf('p-A'))).status).toBe(200);
      target = `${other.url}/signed/p-A.png`;
      const elsewhere = await view(relay.url, await tokenOf('p-A'));
      expect(elsewhere.status).toBe(502);
      expect(((await elsewhere.json()) as { message: string }).message).toContain('not the storage host');
      expect(other.seen).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('refuses loopback, private and link-local hosts for a cloud that is not on one, unless listed in viewOrigins', async () => {
    const cloud = await startHostileCloud();
    const attempts: string[] = [];
    // The cloud is https://cloud.test, served by the hostile cloud on 127.0.0.1; nothing else leaves loopback.
    const routed: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      attempts.push(url.origin);
      if (url.origin === 'https://cloud.test') return fetch(`${cloud.url}${url.pathname}${url.search}`, init);
      if (url.hostname === '127.0.0.1') return fetch(url, init);
      return Promise.reject(new TypeError('fetch failed'));
    };
    try {
      let target = 'http://169.254.169.254/latest/meta-data';
      cloud.on('/api/view', (_req, res) => void res.writeHead(302, { location: target }).end());
      cloud.storage.on('/signed', (_req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end('png'));
      const bare = await start({ cloudUrl: 'https://cloud.test', fetch: routed });
      for (const next of ['http://169.254.169.254/latest/meta-data', 'http://10.0.0.8/admin', 'http://[::1]:80/', 'http://localhost:2/', `${cloud.storage.url}/signed`]) {
        target = next;
        expect((await view(bare.relay.url, await tokenOf('p-A'))).status, next).toBe(502);
      }
      expect(attempts.filter((origin) => origin !== 'https://cloud.test')).toEqual([]);
      const listed = await start({ cloudUrl: 'https://cloud.test', fetch: routed, viewOrigins: [cloud.storage.url] });
      expect((await view(listed.relay.url, await tokenOf('p-A'))).status).toBe(200);
    } finally {
      await cloud.close();
    }
  });
});

describe('relay: redirects that hold the key', () => {
  const start = hostileStarter();
  const encoded = [...KEY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');

  it('never passes the key in a Location header, in any spelling', async () => {
    const { cloud, relay } = await start();
    let location = '';
    cloud.on('/api/object_info', (_req, res) => void res.writeHead(302, { location }).end());
    for (const target of [`${cloud.url}/api/object_info/X?key=${KEY}`, `https://elsewhere.example/${KEY}`, `https://elsewhere.example/?k=${encoded}`, `/api/object_info/${encodeURIComponent(encoded)}`]) {
      location = target;
      const response = await fetch(`${relay.url}/api/object_info`, { redirect: 'manual' });
      const text = `${response.headers.get('location') ?? ''} ${await response.text()}`;
      expect(text, target).not.toContain(KEY);
      expect(decodeURIComponent(decodeURIComponent(text)), target).not.toContain(KEY);
    }
    cloud.on('/api/object_info', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json', 'content-disposition': `attachment; filename*=UTF-8''${encoded}.json` }).end('{}'));
    const answer = await fetch(`${relay.url}/api/object_info`);
    expect(decodeURIComponent(JSON.stringify([...answer.headers]))).not.toContain(KEY);
  });

  it('never answers a signed URL that holds the key in url mode', async () => {
    const { cloud, relay } = await start({ viewMode: 'url' });
    cloud.on('/api/view', (_req, res) => void res.writeHead(302, { location: `${cloud.storage.url}/signed?k=${encoded}` }).end());
    const headers = { [JOB_TOKEN_HEADER]: await tokenOf('p-A') };
    for (const accept of ['application/json', 'image/*']) {
      const response = await fetch(`${relay.url}/api/view?filename=p-A.png`, { headers: { ...headers, accept }, redirect: 'manual' });
      const text = `${response.headers.get('location') ?? ''} ${await response.text()}`;
      expect(decodeURIComponent(text), accept).not.toContain(KEY);
      expect(response.status).toBe(502);
    }
  });
});
