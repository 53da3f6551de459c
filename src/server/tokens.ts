/**
 * What a relay token grants: following one job (`kind: 'job'`, its prompt id) or one media task
 * (`kind: 'task'`, its task id) until `exp` (Unix seconds).
 *
 * @example
 * ```ts
 * const grant: TokenGrant = { kind: 'job', id: promptId, exp: Math.floor(Date.now() / 1000) + 3600 };
 * ```
 */
export interface TokenGrant {
  kind: 'job' | 'task';
  id: string;
  exp: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
// A token is about 150 characters; anything much longer is not one of ours.
const MAX_TOKEN_LENGTH = 2_048;

/**
 * Signs and verifies the relay's stateless tokens: `base64url(JSON {kind, id, exp})` `.`
 * `base64url(HMAC-SHA256)`, with WebCrypto, so every runtime computes the same. The relay keeps
 * no record of who submitted what: any instance holding the secret verifies a token signed by any
 * other, which lets several instances run behind a load balancer.
 *
 * The first secret signs; every secret verifies (rotate by putting the new secret first, and
 * removing the old one after the tokens' lifetime).
 *
 * @example
 * ```ts
 * const signer = new TokenSigner(['a secret of at least 32 characters....'], 86_400_000);
 * const token = await signer.sign('job', promptId);
 * await signer.verify(token, 'job'); // promptId, or undefined
 * ```
 */
export class TokenSigner {
  readonly #keys: Promise<CryptoKey[]>;
  readonly #ttlMs: number;

  constructor(secrets: readonly string[], ttlMs: number) {
    this.#ttlMs = ttlMs;
    this.#keys = Promise.all(secrets.map((secret) => crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])));
    // Imported when used; a rejection here is seen by sign() and verify() then.
    this.#keys.catch(() => undefined);
  }

  /** A token for one job or task, valid for the signer's lifetime. */
  async sign(kind: TokenGrant['kind'], id: string): Promise<string> {
    const grant: TokenGrant = { kind, id, exp: Math.floor((Date.now() + this.#ttlMs) / 1000) };
    const payload = toBase64Url(encoder.encode(JSON.stringify(grant)));
    const [key] = await this.#keys;
    const signature = await crypto.subtle.sign('HMAC', key as CryptoKey, encoder.encode(payload));
    return `${payload}.${toBase64Url(new Uint8Array(signature))}`;
  }

  /**
   * The id a token grants for `kind`, or `undefined` when the token is malformed, forged, of the
   * other kind, or expired. The signature is checked by `crypto.subtle.verify` (constant time), and
   * only in the spelling `sign()` writes: another base64url spelling of the same bytes is refused.
   */
  async verify(token: unknown, kind: TokenGrant['kind']): Promise<string | undefined> {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return undefined;
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.')) return undefined;
    const payload = token.slice(0, dot);
    const signature = fromBase64Url(token.slice(dot + 1));
    if (!signature) return undefined;
    let valid = false;
    for (const key of await this.#keys) {
      if (await crypto.subtle.verify('HMAC', key, signature, encoder.encode(payload))) {
        valid = true;
        break;
      }
    }
    if (!valid) return undefined;
    const grant = readGrant(payload);
    if (!grant || grant.kind !== kind || grant.exp * 1000 <= Date.now()) return undefined;
    return grant.id;
  }
}

function readGrant(payload: string): TokenGrant | undefined {
  const bytes = fromBase64Url(payload);
  if (!bytes) return undefined;
  try {
    const value = JSON.parse(decoder.decode(bytes)) as Partial<TokenGrant> | null;
    if (!value || typeof value !== 'object') return undefined;
    if ((value.kind !== 'job' && value.kind !== 'task') || typeof value.id !== 'string' || value.id === '' || typeof value.exp !== 'number') return undefined;
    return { kind: value.kind, id: value.id, exp: value.exp };
  } catch {
    return undefined;
  }
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    // The last character can carry unused bits, so up to four spellings decode to the same bytes;
    // only the one sign() writes is accepted, so a token has exactly one spelling.
    return toBase64Url(bytes) === text ? bytes : undefined;
  } catch {
    return undefined;
  }
}
