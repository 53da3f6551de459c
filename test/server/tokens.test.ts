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
    // The first character always carries six bits of the signature, so changing it always
    // changes the bytes (changing the last two, as this test once did, kept them 1 time in 1,024).
    const other = signature[0] === 'A' ? 'B' : 'A';
    expect(await signer.verify(`${payload}.${other}${signature.slice(1)}`, 'job')).toBeUndefined();
    for (const bad of ['', '.', 'a.b.c', `${payload}.`, `${payload}.${signature}!`, 'x'.repeat(5000), 42, null, undefined]) {
      expect(await signer.verify(bad, 'job')).toBeUndefined();
    }
  });

  it('accepts only the signature it wrote, not another spelling of the same bytes', async () => {
    // 32 bytes are 43 base64url characters; the last carries 4 bits and 2 unused ones, so four
    // spellings decode to the same bytes. Only the canonical one is a token.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const signer = new TokenSigner([SECRET], 60_000);
    for (let i = 0; i < 20; i++) {
      const token = await signer.sign('job', `p-${i}`);
      expect(await signer.verify(token, 'job')).toBe(`p-${i}`);
      const last = alphabet.indexOf(token.at(-1) as string);
      for (const unused of [1, 2, 3]) {
        const respelled = `${token.slice(0, -1)}${alphabet[last ^ unused]}`;
        expect(await signer.verify(respelled, 'job')).toBeUndefined();
      }
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
