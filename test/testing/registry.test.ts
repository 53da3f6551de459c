import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const get = (path: string, init: RequestInit = {}): Promise<Response> => fetch(`${sim.registryUrl}${path}`, { redirect: 'manual', ...init });
const send = (method: string, path: string, token: string | undefined, body?: unknown): Promise<Response> =>
  fetch(`${sim.registryUrl}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

interface VersionsPage {
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
  versions: { id: string; node_id: string; status: string; status_reason?: string; version: string }[];
}

describe('GET /versions', () => {
  it('pages 1-based with a default page size of 10 over 250 seeded versions', async () => {
    const first = (await (await get('/versions')).json()) as VersionsPage;
    expect(first).toMatchObject({ page: 1, pageSize: 10, total: 250, totalPages: 25 });
    expect(first.versions).toHaveLength(10);
    expect(first.versions[0]).not.toHaveProperty('status_reason');
    const last = (await (await get('/versions?page=3&pageSize=100')).json()) as VersionsPage;
    expect(last.versions).toHaveLength(50);
    const beyond = (await (await get('/versions?page=4&pageSize=100')).json()) as VersionsPage;
    expect(beyond.versions).toEqual([]);
  });

  it('filters by repeated statuses, nodeId and a case-insensitive status_reason search', async () => {
    const both = (await (await get('/versions?statuses=NodeVersionStatusBanned&statuses=NodeVersionStatusFlagged&pageSize=100&include_status_reason=true')).json()) as VersionsPage;
    expect(new Set(both.versions.map((v) => v.status))).toEqual(new Set(['NodeVersionStatusBanned', 'NodeVersionStatusFlagged']));
    const node = (await (await get('/versions?nodeId=demo-node&pageSize=100')).json()) as VersionsPage;
    expect(node.total).toBe(50);
    expect(node.versions.every((v) => v.node_id === 'demo-node')).toBe(true);
    const search = (await (await get('/versions?status_reason=malware&include_status_reason=true&pageSize=100')).json()) as VersionsPage;
    expect(search.total).toBeGreaterThan(0);
    expect(search.versions.every((v) => v.status_reason?.includes('MALWARE'))).toBe(true);
  });

  it('answers 400 for a page size beyond 100 and for an unknown status', async () => {
    const tooBig = await get('/versions?pageSize=101');
    expect(tooBig.status).toBe(400);
    expect(await tooBig.json()).toEqual({ error: '', message: expect.any(String) });
    expect((await get('/versions?statuses=Nope')).status).toBe(400);
  });
});

describe('nodes', () => {
  it('gets a node with translations only when asked and redirects an alias to the canonical id', async () => {
    const plain = (await (await get('/nodes/demo-node')).json()) as Record<string, unknown>;
    expect(plain).toMatchObject({ id: 'demo-node', publisher: { id: 'demo-publisher' }, latest_version: { node_id: 'demo-node' } });
    expect(plain).not.toHaveProperty('translations');
    const translated = (await (await get('/nodes/demo-node?include_translations=true')).json()) as Record<string, unknown>;
    expect(translated.translations).toHaveProperty('fr');
    const alias = await get('/nodes/demo-node-alias?include_translations=true');
    expect(alias.status).toBe(302);
    expect(alias.headers.get('location')).toBe('/nodes/demo-node?include_translations=true');
    expect(await (await get('/nodes/none')).json()).toEqual({ error: '', message: 'Node not found' });
  });

  it('creates, updates and deletes a node as the owner', async () => {
    expect((await send('POST', '/publishers/demo-publisher/nodes', undefined, { id: 'x' })).status).toBe(401);
    const created = await send('POST', '/publishers/demo-publisher/nodes', sim.token, { id: 'new-node', name: 'New', tags: ['a'] });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ id: 'new-node', name: 'New', publisher: { id: 'demo-publisher' } });
    const duplicate = await send('POST', '/publishers/demo-publisher/nodes', sim.token, { id: 'new-node' });
    expect(duplicate.status).toBe(500);
    const updated = await send('PUT', '/publishers/demo-publisher/nodes/new-node', sim.token, { description: 'changed' });
    expect(await updated.json()).toMatchObject({ id: 'new-node', description: 'changed' });
    const invalid = await send('PUT', '/publishers/demo-publisher/nodes/new-node', sim.token, { status: 'Weird' });
    expect(await invalid.json()).toEqual({ message: expect.any(String), details: [expect.stringContaining('status')] });
    const deleted = await send('DELETE', '/publishers/demo-publisher/nodes/new-node', sim.token);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect((await get('/nodes/new-node')).status).toBe(404);
  });

  it('refuses writes by a member with 403 Permission denied and missing auth with 401 {message}', async () => {
    const member = await send('POST', '/publishers/demo-publisher/nodes', sim.memberToken, { id: 'member-node' });
    expect(member.status).toBe(403);
    expect(await member.json()).toEqual({ error: '', message: 'Permission denied' });
    const stranger = await send('DELETE', '/publishers/other-publisher/nodes/video-kit', sim.token);
    expect(stranger.status).toBe(403);
    const anonymous = await send('DELETE', '/publishers/demo-publisher/tokens/token-1', undefined);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ message: expect.any(String) });
  });

  it('records reviews through the star query parameter and averages the rating', async () => {
    expect((await send('POST', '/nodes/image-tools/reviews?star=6', undefined)).status).toBe(400);
    expect((await send('POST', '/nodes/image-tools/reviews', undefined)).status).toBe(400);
    await send('POST', '/nodes/image-tools/reviews?star=5', undefined);
    const node = (await (await send('POST', '/nodes/image-tools/reviews?star=2', undefined)).json()) as { rating: number };
    expect(node.rating).toBe(3.5);
  });
});

describe('versions, graph nodes, publishers and tokens', () => {
  it('updates a version by its UUID, not its semantic version', async () => {
    const page = (await (await get('/versions?nodeId=demo-node&pageSize=1')).json()) as VersionsPage;
    const version = page.versions[0]!;
    const updated = await send('PUT', `/publishers/demo-publisher/nodes/demo-node/versions/${version.id}`, sim.token, { changelog: 'new notes', deprecated: true });
    expect(await updated.json()).toMatchObject({ id: version.id, changelog: 'new notes', deprecated: true });
    const bySemver = await send('PUT', `/publishers/demo-publisher/nodes/demo-node/versions/${version.version}`, sim.token, { changelog: 'x' });
    expect(bySemver.status).toBe(404);
  });

  it('saves a graph node and answers it with graph_node_name', async () => {
    const page = (await (await get('/versions?nodeId=demo-node&pageSize=1')).json()) as VersionsPage;
    const path = `/nodes/demo-node/versions/${page.versions[0]!.version}/graph-nodes/MyNode`;
    const saved = await send('PUT', path, undefined, { category: 'image', policy: 'GraphNodePolicyLocalOnly', output_is_list: [false] });
    expect(await saved.json()).toEqual({ category: 'image', policy: 'GraphNodePolicyLocalOnly', output_is_list: [false], graph_node_name: 'MyNode' });
    expect((await send('PUT', path, undefined, { policy: 'Nope' })).status).toBe(400);
    expect((await send('PUT', '/nodes/demo-node/versions/9.9.9/graph-nodes/MyNode', undefined, {})).status).toBe(404);
  });

  it('creates a publisher owned by the caller and deletes a token with 204', async () => {
    const created = await send('POST', '/publishers', sim.token, { id: 'fresh-pub', name: 'Fresh' });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ id: 'fresh-pub', status: 'PublisherStatusActive', members: [{ role: 'owner', user: { id: 'demo-user' } }] });
    expect((await send('POST', '/publishers', sim.token, { id: 'fresh-pub' })).status).toBe(400);
    expect((await send('DELETE', '/publishers/demo-publisher/tokens/token-1', sim.memberToken)).status).toBe(403);
    expect((await send('DELETE', '/publishers/demo-publisher/tokens/token-1', sim.token)).status).toBe(204);
    expect((await send('DELETE', '/publishers/demo-publisher/tokens/token-1', sim.token)).status).toBe(404);
  });
});
