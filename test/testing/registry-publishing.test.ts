import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, PermissionDeniedError } from '../../src/core/index.js';
import { RegistryClient } from '../../src/registry/client.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';

// The registry routes beyond the interface, against the simulator through the SDK: listing,
// search, publishers, tokens, publishing and unpublishing.
let sim: Simulator;
let owner: RegistryClient;
let dir = '';
let zip = '';
beforeAll(async () => {
  sim = await startSimulator();
  owner = new RegistryClient({ baseUrl: sim.registryUrl, token: sim.token });
  dir = await mkdtemp(join(tmpdir(), 'graphcloud-publish-'));
  zip = join(dir, 'demo-node.zip');
  // A real zip header followed by filler: the simulator stores what it receives.
  await writeFile(zip, new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new Array<number>(4096).fill(7)]));
});
afterAll(async () => {
  await owner.close();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe('simulator registry: listing and search', () => {
  it('lists nodes page by page and searches by text, repository and graph node', async () => {
    const first = await owner.nodes.list({ limit: 2 });
    expect(first).toMatchObject({ page: 1, limit: 2, total: 5, totalPages: 3 });
    const all: string[] = [];
    for await (const node of owner.nodes.listAll({ limit: 2 })) all.push(String(node.id));
    expect(all).toEqual(['demo-node', 'image-tools', 'video-kit', 'mask-utils', 'legacy-pack']);
    expect((await owner.nodes.search({ search: 'video' })).nodes.map((n) => n.id)).toEqual(['video-kit']);
    expect((await owner.nodes.search({ repositoryUrlSearch: 'other-publisher/mask' })).nodes.map((n) => n.id)).toEqual(['mask-utils']);
    expect((await owner.nodes.list({ nodeIds: ['legacy-pack', 'demo-node'] })).nodes.map((n) => n.id)).toEqual(['demo-node', 'legacy-pack']);
  });
});

describe('simulator registry: publishers and tokens', () => {
  it('answers the caller\'s publishers, availability, permissions and a publisher\'s nodes', async () => {
    expect((await owner.publishers.mine()).map((p) => p.id)).toEqual(['demo-publisher']);
    expect(await owner.publishers.isAvailable('demo-publisher')).toBe(false);
    expect(await owner.publishers.isAvailable('brand-new')).toBe(true);
    expect(await owner.publishers.permissions('demo-publisher')).toEqual({ canEdit: true });
    expect(await new RegistryClient({ baseUrl: sim.registryUrl, token: sim.memberToken }).publishers.permissions('demo-publisher')).toEqual({ canEdit: false });
    expect((await owner.publishers.nodes('demo-publisher')).map((n) => n.id)).toEqual(['demo-node', 'image-tools']);
  });

  it('creates a token whose secret is answered once, lists it without the secret, and deletes it', async () => {
    const { token } = await owner.publishers.createToken('demo-publisher', { name: 'ci', description: 'release job' });
    expect(token).toMatch(/^pat_/);
    const listed = await owner.publishers.listTokens('demo-publisher');
    const mine = listed.find((t) => t.name === 'ci');
    expect(mine).toMatchObject({ name: 'ci', description: 'release job' });
    expect(JSON.stringify(listed)).not.toContain(token);
    await owner.publishers.deleteToken('demo-publisher', String(mine!.id));
    expect((await owner.publishers.listTokens('demo-publisher')).some((t) => t.name === 'ci')).toBe(false);
  });

  it('refuses a member who is not an owner', async () => {
    const member = new RegistryClient({ baseUrl: sim.registryUrl, token: sim.memberToken });
    await expect(member.publishers.createToken('demo-publisher', { name: 'x' })).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});

describe('simulator registry: publishing a version', () => {
  it('publishes, shows the version, serves the package, and unpublishes it', async () => {
    const { token } = await owner.publishers.createToken('demo-publisher', { name: 'publish' });
    sim.state.clearRequests();
    const version = await owner.versions.publish('demo-publisher', 'demo-node', {
      node: { description: 'Published by a test' },
      version: { version: '9.0.0', changelog: 'From the test' },
      package: zip,
      personalAccessToken: token,
    });
    expect(version).toMatchObject({ version: '9.0.0', node_id: 'demo-node' });
    const upload = sim.state.requests.find((r) => r.area === 'files' && r.method === 'PUT');
    expect(upload).toMatchObject({ status: 200 });
    expect(upload?.headers.authorization).toBeUndefined();
    expect(sim.state.filesOriginSawCredentials()).toBe(false);
    expect((await owner.nodes.versions('demo-node')).some((v) => v.version === '9.0.0')).toBe(true);
    const installed = await owner.nodes.install('demo-node', { version: '9.0.0' });
    const bytes = new Uint8Array(await (await fetch(String(installed.downloadUrl))).arrayBuffer());
    expect(bytes.length).toBe(4100);
    const { id } = await owner.nodes.version('demo-node', '9.0.0');
    await owner.versions.delete('demo-publisher', 'demo-node', String(id));
    await expect(owner.nodes.version('demo-node', '9.0.0')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a wrong personal access token, and the token it echoes never reaches the error', async () => {
    const error = await owner.versions
      .publish('demo-publisher', 'demo-node', { node: {}, version: { version: '9.1.0' }, package: zip, personalAccessToken: 'pat_wrong_but_secret_123' })
      .catch((e: unknown) => e);
    expect(String(error)).toContain('Invalid personal access token');
    expect(JSON.stringify(error)).not.toContain('pat_wrong_but_secret_123');
  });

  it('refuses an upload that carries a credential (the signed URL is the only authorisation)', async () => {
    const { token } = await owner.publishers.createToken('demo-publisher', { name: 'signed' });
    const answer = await fetch(`${sim.registryUrl}/publishers/demo-publisher/nodes/demo-node/versions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ personal_access_token: token, node: {}, node_version: { version: '9.2.0' } }),
    });
    const { signedUrl } = (await answer.json()) as { signedUrl: string };
    const withKey = await fetch(signedUrl, { method: 'PUT', headers: { 'content-type': 'application/zip', authorization: `Bearer ${sim.token}` }, body: 'PK' });
    expect(withKey.status).toBe(400);
    const forged = await fetch(signedUrl.replace(/sig=[^&]+/, 'sig=00'), { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: 'PK' });
    expect(forged.status).toBe(403);
  });
});
