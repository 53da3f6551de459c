import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import { createRelay, RELAY_DEFAULT_ROUTES, type RelayOptions } from '../../src/server/index.js';
import { SECRET } from './helpers.js';

const base = { cloudUrl: 'http://127.0.0.1:1', apiKey: 'sk-the-platform-key-0001', secret: SECRET };

function refusal(options: unknown): ValidationError {
  try {
    createRelay(options as RelayOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('createRelay() accepted the options');
}

describe('createRelay() options', () => {
  it('refuses to start without authorize, naming the loud opt-out', () => {
    const error = refusal(base);
    expect(error.issues.map((i) => i.path)).toEqual(['options.authorize']);
    expect(error.message).toContain('dangerouslyAllowAnyone');
  });

  it('starts with authorize, or with the explicit opt-out', async () => {
    await createRelay({ ...base, authorize: () => true }).close();
    await createRelay({ ...base, dangerouslyAllowAnyone: true }).close();
  });

  it('refuses authorize and the opt-out together', () => {
    expect(refusal({ ...base, authorize: () => true, dangerouslyAllowAnyone: true }).issues.map((i) => i.path)).toEqual(['options.dangerouslyAllowAnyone']);
  });

  it('refuses a short secret without echoing it, and a missing one', () => {
    const error = refusal({ ...base, secret: 'short-secret', authorize: () => true });
    expect(error.issues[0]).toMatchObject({ path: 'options.secret', received: '12 characters' });
    expect(error.message).not.toContain('short-secret');
    const { secret: _secret, ...noSecret } = base;
    expect(refusal({ ...noSecret, authorize: () => true }).issues.map((i) => i.path)).toEqual(['options.secret']);
  });

  it('checks every option before starting, and never echoes the key', () => {
    const error = refusal({
      ...base,
      apiKey: '',
      authorize: 'yes',
      cloudUrl: 'cloud.example.com',
      basePath: 'api/graphcloud/',
      routes: ['submit', 'everything', { method: 'GET', path: '/x/../y', upstream: 'cloud' }],
      maxBodyBytes: -1,
      timeout: 0,
      tokenTtlMs: Number.NaN,
      viewMode: 'redirect',
      allowedOrigins: ['https://app.example.com/page'],
      socket: { maxSubscriptions: 0, hold: { maxAgeMs: -5 }, reconect: {} },
      onSubmit: 5,
      timout: 5,
    });
    expect(error.issues.map((i) => i.path).sort()).toEqual(
      [
        'options.apiKey',
        'options.authorize',
        'options.cloudUrl',
        'options.basePath',
        'options.routes[1]',
        'options.routes[2].path',
        'options.maxBodyBytes',
        'options.timeout',
        'options.tokenTtlMs',
        'options.viewMode',
        'options.allowedOrigins[0]',
        'options.socket.maxSubscriptions',
        'options.socket.hold.maxAgeMs',
        'options.socket.reconect',
        'options.onSubmit',
        'options.timout',
      ].sort(),
    );
    expect(error.issues.find((i) => i.path === 'options.timout')?.rule).toContain('did you mean "timeout"');
    expect(error.message).not.toContain(base.apiKey);
  });

  it('asks for the upstream of a listed route', () => {
    expect(refusal({ ...base, authorize: () => true, routes: [...RELAY_DEFAULT_ROUTES, 'registryWrite'] }).issues.map((i) => i.path)).toEqual(['options.proxyUrl', 'options.registryUrl']);
  });

  it('refuses null, and no options at all', () => {
    expect(refusal(null).issues[0]?.path).toBe('options');
    expect(refusal(undefined).issues[0]?.path).toBe('options');
  });
});
