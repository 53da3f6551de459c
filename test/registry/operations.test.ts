import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseValidationError, ValidationError } from '../../src/core/index.js';
import { RegistryClient } from '../../src/registry/client.js';
import { PackageUploadError } from '../../src/registry/errors.js';
import { useMsw } from '../helpers/msw.js';
import { BASE, node, publisher, TOKEN, version } from './fixtures.js';

const { server, seen } = useMsw();
const registry = new RegistryClient({ baseUrl: BASE, token: TOKEN, retry: { limit: 2, minDelayMs: 1, maxDelayMs: 1 } });
const STORAGE = 'https://storage.test';
const PAT = 'pat-secret-0123456789abcdef';
// A minimal zip archive: the "end of central directory" record of an empty archive.
const ZIP = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)]);
let dir = '';
let zipPath = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'graphcloud-registry-'));
  zipPath = join(dir, 'node.zip');
  await writeFile(zipPath, ZIP);
  await writeFile(join(dir, 'not-a-zip.txt'), 'hello');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const requests = () => seen.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`);

describe('registry.nodes listing and search', () => {
  it('list() maps its filters to the wire names (repeated keys for lists)', async () => {
    server.use(http.get(`${BASE}/nodes`, () => HttpResponse.json({ total: 1, nodes: [node], page: 2, limit: 5, totalPages: 3 })));
    const page = await registry.nodes.list({ page: 2, limit: 5, supportedOs: 'linux', supportedAccelerator: 'cuda', includeBanned: false, latest: true, sort: 'downloads', nodeIds: ['a', 'b'] });
    expect(page).toMatchObject({ total: 1, page: 2, totalPages: 3, nodes: [{ id: node.id }] });
    expect(requests()).toEqual(['GET /nodes?page=2&limit=5&supported_os=linux&supported_accelerator=cuda&include_banned=false&latest=true&sort=downloads&node_id=a&node_id=b']);
  });

  it('listAll() and searchAll() fetch pages lazily until totalPages', async () => {
    server.use(
      http.get(`${BASE}/nodes`, ({ request }) => {
        const n = Number(new URL(request.url).searchParams.get('page'));
        return HttpResponse.json({ nodes: [{ ...node, id: `n${n}` }], page: n, totalPages: 2 });
      }),
      http.get(`${BASE}/nodes/search`, ({ request }) => {
        const url = new URL(request.url);
        const n = Number(url.searchParams.get('page'));
        return HttpResponse.json({ nodes: n <= 2 ? [{ ...node, id: `${url.searchParams.get('search')}${n}` }] : [], page: n });
      }),
    );
    const listed: unknown[] = [];
    for await (const n of registry.nodes.listAll()) listed.push(n.id);
    expect(listed).toEqual(['n1', 'n2']);
    const found: unknown[] = [];
    for await (const n of registry.nodes.searchAll({ search: 'up', repositoryUrlSearch: 'github.com/acme', graphNodeSearch: 'Upscale' })) found.push(n.id);
    expect(found).toEqual(['up1', 'up2']);
    expect(seen[2]!.url.search).toBe('?page=1&search=up&repository_url_search=github.com%2Facme&comfy_node_search=Upscale');
  });

  it.each([
    [{ limit: 0 }, 'params.limit'],
    [{ limit: 2.5 }, 'params.limit'],
    [{ page: 0 }, 'params.page'],
    [{ supportedOS: 'linux' }, 'params.supportedOS'],
    [{ nodeIds: 'a' }, 'params.nodeIds'],
  ])('list(%o) is refused before any request, naming %s', async (params, path) => {
    const error = (await registry.nodes.list(params as never).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i) => i.path)).toEqual([path]);
    expect(seen).toHaveLength(0);
  });

  it('versions(), version() and install() read the node version routes', async () => {
    server.use(
      http.get(`${BASE}/nodes/acme-upscale/versions`, () => HttpResponse.json([version(1), version(2)])),
      http.get(`${BASE}/nodes/acme-upscale/versions/1.0.2`, () => HttpResponse.json(version(2))),
      http.get(`${BASE}/nodes/acme-upscale/install`, () => HttpResponse.json(version(2))),
    );
    expect((await registry.nodes.versions('acme-upscale', { statuses: ['NodeVersionStatusActive', 'NodeVersionStatusFlagged'], includeStatusReason: true })).map((v) => v.version)).toEqual(['1.0.1', '1.0.2']);
    expect((await registry.nodes.version('acme-upscale', '1.0.2')).id).toBe(version(2).id);
    expect((await registry.nodes.install('acme-upscale', { version: '1.0.2' })).downloadUrl).toContain('1.0.2');
    expect(requests()).toEqual([
      'GET /nodes/acme-upscale/versions?statuses=NodeVersionStatusActive&statuses=NodeVersionStatusFlagged&include_status_reason=true',
      'GET /nodes/acme-upscale/versions/1.0.2',
      'GET /nodes/acme-upscale/install?version=1.0.2',
    ]);
  });
});

describe('registry.publishers', () => {
  it('reads, updates and deletes publishers on their routes', async () => {
    server.use(
      http.get(`${BASE}/publishers`, () => HttpResponse.json([publisher])),
      http.get(`${BASE}/users/publishers/`, () => HttpResponse.json([publisher])),
      http.get(`${BASE}/publishers/validate`, ({ request }) => HttpResponse.json({ isAvailable: new URL(request.url).searchParams.get('username') === 'free' })),
      http.get(`${BASE}/publishers/acme`, () => HttpResponse.json(publisher)),
      http.put(`${BASE}/publishers/acme`, async ({ request }) => HttpResponse.json({ ...publisher, ...((await request.json()) as object) })),
      http.delete(`${BASE}/publishers/acme`, () => new HttpResponse(null, { status: 204 })),
      http.get(`${BASE}/publishers/acme/nodes`, () => HttpResponse.json([node])),
      http.get(`${BASE}/publishers/acme/permissions`, () => HttpResponse.json({ canEdit: true })),
    );
    expect(await registry.publishers.list()).toHaveLength(1);
    expect(await registry.publishers.mine()).toHaveLength(1);
    expect(await registry.publishers.isAvailable('free')).toBe(true);
    expect(await registry.publishers.isAvailable('acme')).toBe(false);
    expect((await registry.publishers.get('acme')).name).toBe('Acme');
    expect((await registry.publishers.update('acme', { description: 'Image tools' })).description).toBe('Image tools');
    await registry.publishers.delete('acme');
    expect(await registry.publishers.nodes('acme', { includeBanned: true })).toHaveLength(1);
    expect(await registry.publishers.permissions('acme')).toEqual({ canEdit: true });
    expect(requests()).toEqual([
      'GET /publishers',
      'GET /users/publishers/',
      'GET /publishers/validate?username=free',
      'GET /publishers/validate?username=acme',
      'GET /publishers/acme',
      'PUT /publishers/acme',
      'DELETE /publishers/acme',
      'GET /publishers/acme/nodes?include_banned=true',
      'GET /publishers/acme/permissions',
    ]);
  });

  it('createToken() returns the secret once and keeps it out of every error; listTokens() drops secrets', async () => {
    const secret = 'pat-created-once-9f8e7d6c5b';
    server.use(
      http.post(`${BASE}/publishers/acme/tokens`, async ({ request }) => {
        const sent = (await request.json()) as { name: string };
        if (sent.name === 'broken') return HttpResponse.json({ token: [secret], note: 'a malformed answer' }, { status: 201 });
        if (sent.name === 'denied') return HttpResponse.json({ message: 'no', token: secret }, { status: 403 });
        return HttpResponse.json({ token: secret }, { status: 201 });
      }),
      http.get(`${BASE}/publishers/acme/tokens`, () => HttpResponse.json([{ id: 't1', name: 'ci', token: secret, createdAt: '2026-01-01T00:00:00Z' }])),
    );
    await expect(registry.publishers.createToken('acme', { name: 'ci', description: 'release job' })).resolves.toEqual({ token: secret });
    expect(JSON.parse(seen[0]!.body)).toEqual({ name: 'ci', description: 'release job' });
    const broken = await registry.publishers.createToken('acme', { name: 'broken' }).catch((e: unknown) => e);
    const denied = await registry.publishers.createToken('acme', { name: 'denied' }).catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(ResponseValidationError);
    for (const error of [broken, denied]) expect(`${inspect(error, { depth: 10 })} ${JSON.stringify(error)}`).not.toContain(secret);
    expect(await registry.publishers.listTokens('acme')).toEqual([{ id: 't1', name: 'ci', createdAt: '2026-01-01T00:00:00Z' }]);
  });
});

describe('registry.versions.delete() and the version id', () => {
  it('DELETEs by the version id', async () => {
    server.use(http.delete(`${BASE}/publishers/acme/nodes/acme-upscale/versions/:id`, () => new HttpResponse(null, { status: 204 })));
    await registry.versions.delete('acme', 'acme-upscale', version(3).id!);
    expect(requests()).toEqual([`DELETE /publishers/acme/nodes/acme-upscale/versions/${version(3).id}`]);
  });

  it.each(['1.2.0', 'v2.0.1', '1.0.0-beta.1'])('refuses the semantic version %j where the id is needed, saying how to find the id', async (semver) => {
    for (const call of [() => registry.versions.delete('acme', 'acme-upscale', semver), () => registry.versions.update('acme', 'acme-upscale', semver, { deprecated: true })]) {
      const error = (await call().catch((e: unknown) => e)) as ValidationError;
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toContain(`registry.nodes.version("acme-upscale", "${semver}")`);
    }
    expect(seen).toHaveLength(0);
  });
});

describe('registry.versions.publish()', () => {
  const params = () => ({ node: { name: 'Acme Upscale' }, version: { version: '1.3.0', changelog: 'Faster' }, package: zipPath, personalAccessToken: PAT });

  it('POSTs the token in the body, then PUTs the zip to the signed URL without any credential', async () => {
    server.use(
      http.post(`${BASE}/publishers/acme/nodes/acme-upscale/versions`, () => HttpResponse.json({ signedUrl: `${STORAGE}/upload/v1.zip?sig=abc`, node_version: version(9, { version: '1.3.0' }) }, { status: 201 })),
      http.put(`${STORAGE}/upload/v1.zip`, () => new HttpResponse(null, { status: 200 })),
    );
    const published = await registry.versions.publish('acme', 'acme-upscale', params());
    expect(published.version).toBe('1.3.0');
    expect(requests()).toEqual(['POST /publishers/acme/nodes/acme-upscale/versions', 'PUT /upload/v1.zip?sig=abc']);
    const [post, put] = seen;
    expect(JSON.parse(post!.body)).toEqual({ personal_access_token: PAT, node: { name: 'Acme Upscale', id: 'acme-upscale' }, node_version: { version: '1.3.0', changelog: 'Faster' } });
    expect(post!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(put!.headers.get('authorization')).toBeNull();
    expect(put!.headers.get('content-type')).toBe('application/zip');
    expect(new TextEncoder().encode(put!.body)).toHaveLength(ZIP.length);
  });

  it('scrubs the personal access token from an error answer that echoes the request body', async () => {
    server.use(http.post(`${BASE}/publishers/acme/nodes/acme-upscale/versions`, async ({ request }) => HttpResponse.json({ message: 'bad request', echo: await request.json() }, { status: 400 })));
    const error = await registry.versions.publish('acme', 'acme-upscale', params()).catch((e: unknown) => e);
    expect(`${inspect(error, { depth: 10 })} ${JSON.stringify(error)} ${String(error)}`).not.toContain(PAT);
  });

  it('carries the created version and the signed URL when the upload fails, so it is retried without publishing twice', async () => {
    let puts = 0;
    server.use(
      http.post(`${BASE}/publishers/acme/nodes/acme-upscale/versions`, () => HttpResponse.json({ signedUrl: `${STORAGE}/upload/v2.zip?sig=secret-sig`, node_version: version(10, { version: '1.3.0' }) }, { status: 201 })),
      http.put(`${STORAGE}/upload/v2.zip`, () => (++puts <= 3 ? new HttpResponse(null, { status: 503 }) : new HttpResponse(null, { status: 200 }))),
    );
    const error = (await registry.versions.publish('acme', 'acme-upscale', params()).catch((e: unknown) => e)) as PackageUploadError;
    expect(error).toBeInstanceOf(PackageUploadError);
    expect(error.version.version).toBe('1.3.0');
    expect(error.signedUrl).toBe(`${STORAGE}/upload/v2.zip?sig=secret-sig`);
    expect(`${JSON.stringify(error)} ${inspect(error)} ${error.message}`).not.toContain('secret-sig');
    await registry.versions.uploadPackage(error.signedUrl!, zipPath);
    expect(requests().filter((r) => r.startsWith('POST'))).toHaveLength(1);
    expect(puts).toBe(4);
  });

  it.each([
    ['a package path that does not exist', { package: '/nonexistent/node.zip' }, 'params.package'],
    ['a package that is not a zip', { package: 'NOT-A-ZIP' }, 'params.package'],
    ['an empty personal access token', { personalAccessToken: '' }, 'params.personalAccessToken'],
    ['no semantic version', { version: { changelog: 'x' } }, 'params.version.version'],
  ])('refuses %s before any request', async (_name, change, path) => {
    const input = { ...params(), ...change };
    if (input.package === 'NOT-A-ZIP') input.package = join(dir, 'not-a-zip.txt');
    const error = (await registry.versions.publish('acme', 'acme-upscale', input as never).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i) => i.path)).toContain(path);
    expect(seen).toHaveLength(0);
  });
});
