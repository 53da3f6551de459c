import { ValidationError } from './errors/validation-error.js';

/**
 * A credential: the secret itself, or a function returning it (sync or async), called
 * before every request so rotated tokens are picked up.
 *
 * @example
 * ```ts
 * new RegistryClient({ baseUrl, token: async () => (await vault.read('registry')).token });
 * ```
 */
export type Credential = string | (() => string | Promise<string>);

/** How a credential travels: `X-API-Key: <key>` (cloud) or `Authorization: Bearer <token>` (registry, proxy). */
export type AuthScheme = 'api-key' | 'bearer';

/** A resolved credential header; the value never leaves the core unredacted. */
export interface AuthHeader {
  name: 'X-API-Key' | 'Authorization';
  value: string;
  /** The raw secret, so error text can be scrubbed of it. */
  secret: string;
}

/** Resolves the credential for one request, validating that it is a non-empty string. */
export async function resolveAuth(scheme: AuthScheme, credential: Credential): Promise<AuthHeader> {
  const secret = typeof credential === 'function' ? await credential() : credential;
  if (typeof secret !== 'string' || secret.trim() === '') {
    throw new ValidationError([{ path: 'credential', rule: 'a non-empty string (the API key or token)', received: typeof secret === 'string' ? '(empty string)' : typeof secret }]);
  }
  return scheme === 'bearer'
    ? { name: 'Authorization', value: `Bearer ${secret}`, secret }
    : { name: 'X-API-Key', value: secret, secret };
}
