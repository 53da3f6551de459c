import { createHmac, timingSafeEqual } from 'node:crypto';
import type { StoredFile } from './store.js';

/**
 * What signing needs: the secret, the lifetime of a URL, the clock and the origin's base URL.
 *
 * @example
 * const signer = urlSigner({ secret, ttlMs: 300_000, now: Date.now, baseUrl: () => filesUrl });
 */
export interface UrlSignerDeps {
  secret: string;
  ttlMs: number;
  now: () => number;
  baseUrl: () => string;
}

/**
 * Why a signed URL was refused, if it was.
 *
 * @example
 * const check: SignatureCheck = 'expired';
 */
export type SignatureCheck = 'valid' | 'forged' | 'expired';

/**
 * Signs and checks the short-lived URLs of the files origin (the cloud's `/api/view` redirects
 * to one; see docs/wire-protocol.md#cloud-outputs-files-and-uploads).
 *
 * @example
 * const signer = urlSigner(deps);
 * signer.sign(file); // "http://127.0.0.1:4567/signed/view?filename=...&expires=...&sig=..."
 */
export interface UrlSigner {
  /** A signed, expiring URL of a stored file on the files origin. */
  sign(file: StoredFile): string;
  /** Checks the `filename`, `subfolder`, `type`, `expires` and `sig` of a signed URL's query. */
  check(query: URLSearchParams): SignatureCheck;
}

/**
 * Builds the signer of the files origin.
 *
 * @example
 * const signer = urlSigner({ secret, ttlMs: 300_000, now: Date.now, baseUrl: () => filesUrl });
 */
export function urlSigner(deps: UrlSignerDeps): UrlSigner {
  const signature = (type: string, subfolder: string, filename: string, expires: string): string =>
    createHmac('sha256', deps.secret).update(`${type}\n${subfolder}\n${filename}\n${expires}`).digest('hex');
  return {
    sign: (file) => {
      const expires = String(Math.floor((deps.now() + deps.ttlMs) / 1000));
      const query = new URLSearchParams({ filename: file.name, subfolder: file.subfolder, type: file.type, expires });
      query.set('sig', signature(file.type, file.subfolder, file.name, expires));
      return `${deps.baseUrl()}/signed/view?${query.toString()}`;
    },
    check: (query) => {
      const [filename, subfolder, type, expires, sig] = ['filename', 'subfolder', 'type', 'expires', 'sig'].map((name) => query.get(name) ?? '');
      const expected = Buffer.from(signature(type ?? '', subfolder ?? '', filename ?? '', expires ?? ''));
      const given = Buffer.from(sig ?? '');
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'forged';
      if (Number(expires) * 1000 < deps.now()) return 'expired';
      return 'valid';
    },
  };
}
