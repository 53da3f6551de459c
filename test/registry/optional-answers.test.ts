import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ResponseValidationError } from '../../src/core/index.js';
import { RegistryClient } from '../../src/registry/client.js';
import { useMsw } from '../helpers/msw.js';

// Issue 19 item 5: every field of these two answers is optional in the registry's spec. A `{}`
// answer is parsed; where the missing field leaves the caller nothing to use (a created token
// without its secret), the error says what now exists on the server and how to remove it.
const BASE = 'https://registry.test';
const { server, seen } = useMsw();
const registry = new RegistryClient({ baseUrl: BASE, token: 'reg-optional-0a1b2c3d', retry: false });

describe('registry.publishers.isAvailable()', () => {
  it.each([
    [{}, false],
    [{ isAvailable: null }, false],
    [{ isAvailable: true }, true],
    [{ isAvailable: false }, false],
  ])('reads %j as %s: only an explicit true says the id is free', async (answer, expected) => {
    server.use(http.get(`${BASE}/publishers/validate`, () => HttpResponse.json(answer)));
    expect(await registry.publishers.isAvailable('acme')).toBe(expected);
  });
});

describe('registry.publishers.createToken()', () => {
  const SECRET = 'pat-optional-secret-4e5f6a7b';

  it.each([
    ['{}', {}, "registry.publishers.listTokens('acme')"],
    ['an empty token', { token: '' }, "registry.publishers.listTokens('acme')"],
    ['an id but no token', { id: 'tok-9' }, "registry.publishers.deleteToken('acme', 'tok-9')"],
    ['a token that is not a string', { token: [SECRET] }, "registry.publishers.listTokens('acme')"],
  ])('answered %s, rejects saying the token was created and how to revoke it', async (_name, answer, revoke) => {
    server.use(http.post(`${BASE}/publishers/acme/tokens`, () => HttpResponse.json(answer, { status: 201 })));
    const error = await registry.publishers.createToken('acme', { name: 'ci' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    const message = (error as Error).message;
    expect((error as ResponseValidationError).field).toBe('token');
    expect(message).toContain('token "ci" was created');
    expect(message).toContain(revoke);
    expect(`${inspect(error, { depth: 10 })} ${JSON.stringify(error)}`).not.toContain(SECRET);
    // Nothing was sent again: a second token would be a second secret to revoke.
    expect(seen.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});
