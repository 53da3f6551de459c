import { http, HttpResponse } from 'msw';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  ResponseValidationError,
  ValidationError,
} from '../../src/core/index.js';
import { RegistryClient } from '../../src/registry/client.js';
import type { Node, NodeVersion } from '../../src/registry/types.js';
import { useMsw } from '../helpers/msw.js';
import { BASE, node, publisher, TOKEN, version } from './fixtures.js';

const { server, seen } = useMsw();
const registry = new RegistryClient({ baseUrl: BASE, token: TOKEN, retry: false });

function only() {
  expect(seen).toHaveLength(1);
  const request = seen[0]!;
  return { ...request, path: request.url.pathname, json: request.body ? (JSON.parse(request.body) as unknown) : undefined };
}

describe('registry.nodes', () => {
  it('create() POSTs the node under the publisher with the bearer token', async () => {
    server.use(http.post(`${BASE}/publishers/:publisherId/nodes`, () => HttpResponse.json(node)));
    const created = await registry.nodes.create('acme', { id: 'acme-upscale', name: 'Acme Upscale', tags: ['image'] });
    const request = only();
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/publishers/acme/nodes');
    expect(request.json).toEqual({ id: 'acme-upscale', name: 'Acme Upscale', tags: ['image'] });
    expect(request.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(created.id).toBe('acme-upscale');
    expect(created.server_added_field).toEqual({ kept: true });
  });

  it('update() PUTs the body to the node path', async () => {
    server.use(http.put(`${BASE}/publishers/acme/nodes/acme-upscale`, () => HttpResponse.json({ ...node, description: 'Faster' })));
    const updated = await registry.nodes.update('acme', 'acme-upscale', { description: 'Faster', status: 'NodeStatusActive' });
    expect(only()).toMatchObject({ method: 'PUT', path: '/publishers/acme/nodes/acme-upscale', json: { description: 'Faster', status: 'NodeStatusActive' } });
    expect(updated.description).toBe('Faster');
  });

  it('delete() sends DELETE and resolves on 204', async () => {
    server.use(http.delete(`${BASE}/publishers/acme/nodes/acme-upscale`, () => new HttpResponse(null, { status: 204 })));
    await expect(registry.nodes.delete('acme', 'acme-upscale')).resolves.toBeUndefined();
    expect(only()).toMatchObject({ method: 'DELETE', path: '/publishers/acme/nodes/acme-upscale', body: '' });
  });

  it('get() reads a node with include_translations', async () => {
    server.use(http.get(`${BASE}/nodes/acme-upscale`, () => HttpResponse.json({ ...node, translations: { fr: { name: 'Acme Agrandir' } } })));
    const got = await registry.nodes.get('acme-upscale', { includeTranslations: true });
    const request = only();
    expect(request.method).toBe('GET');
    expect(request.url.searchParams.get('include_translations')).toBe('true');
    expect(got.translations).toEqual({ fr: { name: 'Acme Agrandir' } });
    expect(got.latest_version?.version).toBe('1.0.3');
  });

  it('get() sends no query when includeTranslations is not given', async () => {
    server.use(http.get(`${BASE}/nodes/acme-upscale`, () => HttpResponse.json(node)));
    await registry.nodes.get('acme-upscale');
    expect(only().url.search).toBe('');
  });

  it('get() follows a 302 to the canonical id', async () => {
    server.use(
      http.get(`${BASE}/nodes/old-name`, () => new HttpResponse(null, { status: 302, headers: { location: `${BASE}/nodes/acme-upscale` } })),
      http.get(`${BASE}/nodes/acme-upscale`, () => HttpResponse.json(node)),
    );
    expect((await registry.nodes.get('old-name')).id).toBe('acme-upscale');
    expect(seen.map((r) => r.headers.get('authorization'))).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });

  it('URL-encodes path segments', async () => {
    server.use(http.get(`${BASE}/nodes/:id`, () => HttpResponse.json(node)));
    await registry.nodes.get('a/b c?d');
    expect(only().url.pathname).toBe('/nodes/a%2Fb%20c%3Fd');
  });

  it('review() sends the stars as the star query with no body and returns the rated node', async () => {
    server.use(http.post(`${BASE}/nodes/acme-upscale/reviews`, () => HttpResponse.json({ ...node, rating: 4.6 })));
    const rated = await registry.nodes.review('acme-upscale', 5);
    const request = only();
    expect(request.url.searchParams.getAll('star')).toEqual(['5']);
    expect(request.body).toBe('');
    expect(rated.rating).toBe(4.6);
  });

  it.each([0, 6, 2.5, Number.NaN, '5' as unknown as number])('review() refuses %s stars and sends nothing', async (stars) => {
    const error = await registry.nodes.review('acme-upscale', stars).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]).toMatchObject({ path: 'stars', rule: 'an integer from 1 to 5' });
    expect(seen).toHaveLength(0);
  });

  it.each([
    ['get', () => registry.nodes.get('')],
    ['update', () => registry.nodes.update('acme', ' ', {})],
    ['delete', () => registry.nodes.delete('', 'x')],
    ['create', () => registry.nodes.create('acme', { id: '' })],
  ])('%s() refuses empty ids and sends nothing', async (_name, call) => {
    await expect(call()).rejects.toBeInstanceOf(ValidationError);
    expect(seen).toHaveLength(0);
  });

  it('types category as deprecated and keeps wire names', () => {
    expectTypeOf<Node['category']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<NodeVersion['createdAt']>().toEqualTypeOf<string | null | undefined>();
  });
});

describe('registry.versions', () => {
  const page = (n: number, totalPages: number, items: NodeVersion[]) => ({ page: n, pageSize: items.length, total: totalPages * items.length, totalPages, versions: items });

  it('list() maps every param to its wire name, repeating statuses', async () => {
    server.use(http.get(`${BASE}/versions`, () => HttpResponse.json(page(2, 3, [version(1)]))));
    const result = await registry.versions.list({
      nodeId: 'acme-upscale',
      statuses: ['NodeVersionStatusActive', 'NodeVersionStatusFlagged'],
      page: 2,
      pageSize: 100,
      statusReason: 'Malware',
      includeStatusReason: true,
    });
    const query = only().url.searchParams;
    expect(query.get('nodeId')).toBe('acme-upscale');
    expect(query.getAll('statuses')).toEqual(['NodeVersionStatusActive', 'NodeVersionStatusFlagged']);
    expect(query.get('page')).toBe('2');
    expect(query.get('pageSize')).toBe('100');
    expect(query.get('status_reason')).toBe('Malware');
    expect(query.get('include_status_reason')).toBe('true');
    expect(result).toMatchObject({ page: 2, totalPages: 3, total: 3 });
    expect(result.versions[0]?.downloadUrl).toContain('1.0.1');
  });

  it.each([
    [{ pageSize: 101 }, 'pageSize'],
    [{ pageSize: 0 }, 'pageSize'],
    [{ page: 0 }, 'page'],
    [{ page: 1.5 }, 'page'],
  ])('list(%o) throws ValidationError naming %s and sends nothing', async (params, field) => {
    const error = (await registry.versions.list(params).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i) => i.path)).toEqual([`params.${field}`]);
    expect(seen).toHaveLength(0);
  });

  it('listAll() walks every page lazily', async () => {
    server.use(
      http.get(`${BASE}/versions`, ({ request }) => {
        const n = Number(new URL(request.url).searchParams.get('page'));
        return HttpResponse.json(page(n, 3, [version(n * 10), version(n * 10 + 1)]));
      }),
    );
    const iterator = registry.versions.listAll({ pageSize: 2 })[Symbol.asyncIterator]();
    expect(seen).toHaveLength(0);
    await iterator.next();
    await iterator.next();
    expect(seen).toHaveLength(1);
    const rest: string[] = [];
    for (let item = await iterator.next(); !item.done; item = await iterator.next()) rest.push(item.value.version ?? '');
    expect(rest).toEqual(['1.0.20', '1.0.21', '1.0.30', '1.0.31']);
    expect(seen.map((r) => r.url.searchParams.get('page'))).toEqual(['1', '2', '3']);
    expect(seen.every((r) => r.url.searchParams.get('pageSize') === '2')).toBe(true);
  });

  it('listAll() fetches no further page after break', async () => {
    server.use(http.get(`${BASE}/versions`, () => HttpResponse.json(page(1, 50, [version(1), version(2)]))));
    for await (const v of registry.versions.listAll()) if (v.version === '1.0.1') break;
    expect(seen).toHaveLength(1);
  });

  it('listAll() stops at totalPages even when the server echoes a wrong page number', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/versions`, () => {
        calls += 1;
        if (calls > 5) return HttpResponse.json({ message: 'runaway' }, { status: 400 });
        return HttpResponse.json(page(1, 3, [version(calls)]));
      }),
    );
    const versions: string[] = [];
    for await (const v of registry.versions.listAll()) versions.push(v.version ?? '');
    expect(versions).toEqual(['1.0.1', '1.0.2', '1.0.3']);
    expect(calls).toBe(3);
  });

  it('update() PUTs changelog and deprecated by version id', async () => {
    const v = version(7);
    server.use(http.put(`${BASE}/publishers/acme/nodes/acme-upscale/versions/:versionId`, () => HttpResponse.json({ ...v, deprecated: true })));
    const updated = await registry.versions.update('acme', 'acme-upscale', v.id!, { changelog: 'Fix', deprecated: true });
    expect(only()).toMatchObject({ method: 'PUT', path: `/publishers/acme/nodes/acme-upscale/versions/${v.id}`, json: { changelog: 'Fix', deprecated: true } });
    expect(updated.deprecated).toBe(true);
  });

  it('rejects a page whose fields the SDK reads are wrong, naming the field and keeping the body', async () => {
    const body = { page: 1, pageSize: 10, total: 1, totalPages: '1', versions: [] };
    server.use(http.get(`${BASE}/versions`, () => HttpResponse.json(body)));
    const error = (await registry.versions.list().catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.field).toBe('totalPages');
    expect(error.body).toEqual(body);
  });

  it('names a nested field of a bad version', async () => {
    server.use(http.get(`${BASE}/versions`, () => HttpResponse.json(page(1, 1, [version(1), { ...version(2), deprecated: 'yes' as unknown as boolean }]))));
    const error = (await registry.versions.list().catch((e: unknown) => e)) as ResponseValidationError;
    expect(error.field).toBe('versions[1].deprecated');
  });

  it('accepts null for empty optional fields and unknown enum values', async () => {
    server.use(http.get(`${BASE}/versions`, () => HttpResponse.json(page(1, 1, [version(1, { tags: null, status: 'NodeVersionStatusArchived', dependencies: null })]))));
    const result = await registry.versions.list();
    expect(result.versions[0]?.status).toBe('NodeVersionStatusArchived');
  });
});

describe('registry.graphNodes and registry.publishers', () => {
  it('graphNodes.update() PUTs the body and returns graph_node_name', async () => {
    server.use(http.put(`${BASE}/nodes/acme-upscale/versions/1.2.0/graph-nodes/AcmeUpscale`, async ({ request }) => HttpResponse.json({ ...((await request.json()) as object), graph_node_name: 'AcmeUpscale' })));
    const graphNode = await registry.graphNodes.update('acme-upscale', '1.2.0', 'AcmeUpscale', { category: 'image/upscale', policy: 'GraphNodePolicyLocalOnly', output_is_list: [false] });
    expect(only()).toMatchObject({ method: 'PUT', json: { category: 'image/upscale', policy: 'GraphNodePolicyLocalOnly', output_is_list: [false] } });
    expect(graphNode.graph_node_name).toBe('AcmeUpscale');
  });

  it('publishers.create() POSTs the publisher', async () => {
    server.use(http.post(`${BASE}/publishers`, () => HttpResponse.json(publisher)));
    const created = await registry.publishers.create({ id: 'acme', name: 'Acme', website: 'https://acme.test' });
    expect(only()).toMatchObject({ method: 'POST', path: '/publishers', json: { id: 'acme', name: 'Acme', website: 'https://acme.test' } });
    expect(created.members?.[0]?.role).toBe('owner');
  });

  it('publishers.deleteToken() sends DELETE to the token path', async () => {
    server.use(http.delete(`${BASE}/publishers/acme/tokens/tok_1`, () => new HttpResponse(null, { status: 204 })));
    await registry.publishers.deleteToken('acme', 'tok_1');
    expect(only()).toMatchObject({ method: 'DELETE', path: '/publishers/acme/tokens/tok_1' });
    expect(only().headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
  });
});

describe('registry error shapes', () => {
  it.each([
    [403, { error: '', message: 'Permission denied' }, PermissionDeniedError, 'Permission denied'],
    [401, { message: 'Unauthorized' }, AuthenticationError, 'Unauthorized'],
    [400, { error: 'already_exists', message: 'version already exists' }, BadRequestError, 'already exists'],
    [500, { error: 'internal', message: 'duplicate key value' }, InternalServerError, 'duplicate key'],
    [404, undefined, NotFoundError, '404'],
  ])('a %i answer becomes its class', async (status, body, ErrorClass, text) => {
    server.use(http.post(`${BASE}/publishers/acme/nodes`, () => (body ? HttpResponse.json(body, { status }) : new HttpResponse(null, { status }))));
    const error = (await registry.nodes.create('acme', { id: 'x' }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error.message).toContain(text);
  });

  it('reads work without a token and send no Authorization header', async () => {
    server.use(http.get(`${BASE}/versions`, () => HttpResponse.json({ page: 1, pageSize: 10, total: 0, totalPages: 0, versions: [] })));
    await new RegistryClient({ baseUrl: BASE }).versions.list();
    expect(only().headers.get('authorization')).toBeNull();
  });
});

describe('registry answers as the published schema allows them (every field optional)', () => {
  it('parses a node, version, publisher and graph node without their ids', async () => {
    const { id: _n, ...nodeWithoutId } = node;
    server.use(
      http.get(`${BASE}/nodes/:id`, () => HttpResponse.json({ ...nodeWithoutId, latest_version: { version: '1.0.0' }, publisher: { name: 'Acme' } })),
      http.put(`${BASE}/nodes/:n/versions/:v/graph-nodes/:g`, () => HttpResponse.json({ category: 'image' })),
      http.post(`${BASE}/publishers`, () => HttpResponse.json({ name: 'Acme' })),
    );
    await expect(registry.nodes.get('acme-upscale')).resolves.toMatchObject({ name: node.name, latest_version: { version: '1.0.0' } });
    await expect(registry.graphNodes.update('n', '1.0.0', 'G', {})).resolves.toEqual({ category: 'image' });
    await expect(registry.publishers.create({ id: 'acme' })).resolves.toEqual({ name: 'Acme' });
  });

  it('lists a page without its paging fields, and walks pages until a short one when totalPages is missing', async () => {
    server.use(
      http.get(`${BASE}/versions`, ({ request }) => {
        const n = Number(new URL(request.url).searchParams.get('page'));
        return HttpResponse.json({ versions: n < 3 ? [version(n * 10), version(n * 10 + 1)] : [version(n * 10)] });
      }),
    );
    await expect(registry.versions.list({ page: 1 })).resolves.toMatchObject({ versions: [{ version: '1.0.10' }, { version: '1.0.11' }] });
    const all: string[] = [];
    for await (const v of registry.versions.listAll({ pageSize: 2 })) all.push(v.version ?? '');
    expect(all).toEqual(['1.0.10', '1.0.11', '1.0.20', '1.0.21', '1.0.30']);
  });

  it('reads an answer with no versions list as an empty page', async () => {
    server.use(http.get(`${BASE}/versions`, () => HttpResponse.json({ page: 1 })));
    await expect(registry.versions.list()).resolves.toEqual({ page: 1, versions: [] });
    const all: unknown[] = [];
    for await (const v of registry.versions.listAll()) all.push(v);
    expect(all).toEqual([]);
  });
});
