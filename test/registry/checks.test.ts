import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ClientClosedError, ValidationError } from '../../src/core/index.js';
import { RegistryClient } from '../../src/registry/client.js';
import { useMsw } from '../helpers/msw.js';
import { BASE, node, TOKEN } from './fixtures.js';

const { server, seen } = useMsw();
const registry = new RegistryClient({ baseUrl: BASE, token: TOKEN, retry: false });

async function refused(call: () => Promise<unknown>): Promise<string[]> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect(seen).toHaveLength(0);
  return (error as ValidationError).issues.map((i) => `${i.path}: ${i.rule}`);
}

describe('RegistryClient: every argument is checked before the first request', () => {
  it('refuses bad constructor options, naming each, and never echoes the token', () => {
    const make = (options: unknown) => () => new RegistryClient(options as never);
    expect(make({ baseUrl: 'registry.test' })).toThrow(/options\.baseUrl/);
    expect(make({ baseUrl: BASE, timeout: -1 })).toThrow(/options\.timeout/);
    expect(make({ baseUrl: BASE, retry: { limit: Number.NaN } })).toThrow(/options\.retry\.limit/);
    expect(make({ baseUrl: BASE, onRequest: 'log' })).toThrow(/options\.onRequest: expected a function/);
    expect(make({ baseUrl: BASE, tokn: TOKEN })).toThrow(/did you mean "token"/);
    expect(make(null)).toThrow(ValidationError);
    let message = '';
    try {
      new RegistryClient({ baseUrl: BASE, token: 42 as never });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('options.token');
  });

  it.each([
    ['nodes.get(id, null)', () => registry.nodes.get('acme-upscale', null as never), 'options: an options object (or nothing)'],
    ['nodes.get with a misspelled option', () => registry.nodes.get('acme-upscale', { includeTranslation: true } as never), 'options.includeTranslation: a known option (did you mean "includeTranslations"?)'],
    ['versions.list(null)', () => registry.versions.list(null as never), 'params: an options object (or nothing)'],
    ['statuses: [{}]', () => registry.versions.list({ statuses: [{}] as never }), 'params.statuses[0]: one of: NodeVersionStatusActive, NodeVersionStatusDeleted, NodeVersionStatusBanned, NodeVersionStatusPending, NodeVersionStatusFlagged'],
    ['a timeout of -1', () => registry.nodes.get('x', { timeout: -1 }), 'options.timeout: a number of milliseconds above 0 and at most 2147483647'],
    ['nodes.update(p, n, null)', () => registry.nodes.update('acme', 'acme-upscale', null as never), 'node: an object of the fields to send'],
    ['versions.update with a string body', () => registry.versions.update('acme', 'n', 'v', 'deprecated' as never), 'params: an object of the fields to send'],
  ])('refuses %s', async (_name, call, issue) => {
    expect(await refused(call)).toContain(issue);
  });

  it.each(['', '.', '..', '%2e%2e'])('refuses the id %j, which would address another route', async (id) => {
    expect(await refused(() => registry.nodes.delete('acme', id))).toEqual([expect.stringMatching(/^nodeId: /)]);
    expect(await refused(() => registry.nodes.get(id))).toHaveLength(1);
    expect(await refused(() => registry.versions.update('acme', 'n', id, { deprecated: true }))).toHaveLength(1);
    expect(await refused(() => registry.publishers.deleteToken(id, 't'))).toHaveLength(1);
  });

  it('refuses a bad filter of listAll() where the loop is written, not later', () => {
    expect(() => registry.versions.listAll({ pageSize: 500 })).toThrow(ValidationError);
  });
});

describe('registry.close()', () => {
  it('rejects every later call with ClientClosedError, and works with await using', async () => {
    server.use(http.get(`${BASE}/nodes/:id`, () => HttpResponse.json(node)));
    let kept: RegistryClient | undefined;
    {
      await using client = new RegistryClient({ baseUrl: BASE });
      kept = client;
      await expect(client.nodes.get('acme-upscale')).resolves.toMatchObject({ id: 'acme-upscale' });
    }
    await expect(kept.nodes.get('acme-upscale')).rejects.toBeInstanceOf(ClientClosedError);
    expect(seen).toHaveLength(1);
  });
});
