import { afterEach, describe, expect, it, vi } from 'vitest';
import { TokenSigner } from '../../src/server/tokens.js';
import { SECRET } from './helpers.js';

const OTHER = 'another-secret-of-at-least-32-characters';

describe('relay tokens', () => {
  afterEach(() => vi.useRealTimers());

  it('verifies its own token on another instance holding the same secret', async () => {
    const token = await new TokenSigner([SECRET], 60_000).sign('job', 'p-1');
    expect(await new TokenSigner([SECRET], 60_000).verify(token, 'job')).toBe('p-1');
  });

  it('refuses a token of the other kind, another secret, a changed payload or signature', async () => {
    const signer = new TokenSigner([SECRET], 60_000);
    const token = await signer.sign('job', 'p-1');
    expect(await signer.verify(token, 'task')).toBeUndefined();
    expect(await new TokenSigner([OTHER], 60_000).verify(token, 'job')).toBeUndefined();
    const [payload, signature] = token.split('.') as [string, string];
    const forged = btoa(JSON.stringify({ kind: 'job', id: 'p-2', exp: 9_999_999_999 })).replaceAll('=', '');
    expect(await signer.verify(`${forged}.${signature}`, 'job')).toBeUndefined();
    expect(await signer.verify(`${payload}.${signature.slice(0, -2)}AA`, 'job')).toBeUndefined();
    for (const bad of ['', '.', 'a.b.c', `${payload}.`, `${payload}.${signature}!`, 'x'.repeat(5000), 42, null, undefined]) {
      expect(await signer.verify(bad, 'job')).toBeUndefined();
    }
  });

  it('expires after its lifetime', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const signer = new TokenSigner([SECRET], 24 * 60 * 60 * 1000);
    const token = await signer.sign('task', 't-1');
    vi.setSystemTime(Date.now() + 23 * 60 * 60 * 1000);
    expect(await signer.verify(token, 'task')).toBe('t-1');
    vi.setSystemTime(Date.now() + 2 * 60 * 60 * 1000);
    expect(await signer.verify(token, 'task')).toBeUndefined();
  });

  it('rotates: the first secret signs, every secret verifies', async () => {
    const old = await new TokenSigner([OTHER], 60_000).sign('job', 'p-old');
    const rotated = new TokenSigner([SECRET, OTHER], 60_000);
    expect(await rotated.verify(old, 'job')).toBe('p-old');
    expect(await new TokenSigner([SECRET], 60_000).verify(await rotated.sign('job', 'p-new'), 'job')).toBe('p-new');
  });
});
