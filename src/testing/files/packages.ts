import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Node packages published to the registry: uploaded with `PUT` to a signed, expiring URL of the
 * files origin (no credential allowed), then served at their download URL.
 *
 * @example
 * const packages = new PackageStore({ secret, ttlMs: 300_000, now: Date.now, baseUrl: () => filesUrl });
 * packages.uploadUrl('demo-node/1.0.0/x.zip');
 */
export class PackageStore {
  readonly #deps: { secret: string; ttlMs: number; now: () => number; baseUrl: () => string };
  readonly #stored = new Map<string, Uint8Array>();

  constructor(deps: { secret: string; ttlMs: number; now: () => number; baseUrl: () => string }) {
    this.#deps = deps;
  }

  /** The signed URL a package is `PUT` to. */
  uploadUrl(key: string): string {
    const expires = String(Math.floor((this.#deps.now() + this.#deps.ttlMs) / 1000));
    const query = new URLSearchParams({ key, expires, sig: this.#sign(key, expires) });
    return `${this.#deps.baseUrl()}/signed/upload?${query.toString()}`;
  }

  /** Where a published package is downloaded from. */
  downloadUrl(key: string): string {
    return `${this.#deps.baseUrl()}/packages/${encodeURIComponent(key)}`;
  }

  /** Checks a signed upload URL's query. */
  check(query: URLSearchParams): 'valid' | 'forged' | 'expired' {
    const key = query.get('key') ?? '';
    const expires = query.get('expires') ?? '';
    const expected = Buffer.from(this.#sign(key, expires));
    const given = Buffer.from(query.get('sig') ?? '');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'forged';
    return Number(expires) * 1000 < this.#deps.now() ? 'expired' : 'valid';
  }

  put(key: string, bytes: Uint8Array): void {
    this.#stored.set(key, bytes);
  }

  get(key: string): Uint8Array | undefined {
    return this.#stored.get(key);
  }

  #sign(key: string, expires: string): string {
    return createHmac('sha256', this.#deps.secret).update(`package\n${key}\n${expires}`).digest('hex');
  }
}
