// What a request is made of: its URL (the base URL, ids as one path segment each, the query) and
// its credential header, resolved per request.
import { ResponseValidationError, ValidationError } from './errors.js';

/** Query values: arrays repeat the key once per value (`statuses=A&statuses=B`); `undefined` is left out. */
export type QueryValue = string | number | boolean | readonly (string | number | boolean)[] | undefined | null;

/**
 * Tagged template that URL-encodes every interpolated path segment.
 *
 * @example
 * ```ts
 * path`/publishers/${publisherId}/nodes/${nodeId}` // "/publishers/a%2Fb/nodes/x"
 * ```
 */
export function path(strings: TemplateStringsArray, ...segments: (string | number)[]): string {
  return strings.reduce((out, part, i) => out + part + (i < segments.length ? encodeURIComponent(String(segments[i])) : ''), '');
}

/**
 * A client's `baseUrl` made absolute: an absolute http(s) URL as given; in a browser page (a
 * global `location`), also a path such as `/api/graphcloud` (the relay of `graphcloud/server` on
 * the page's own server), resolved against the page. `undefined` for anything else.
 *
 * @example
 * ```ts
 * resolveBaseUrl('/api/graphcloud'); // 'https://app.example.com/api/graphcloud' on a page of app.example.com
 * ```
 */
export function resolveBaseUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (/^https?:\/\//i.test(value)) return URL.canParse(value) ? value : undefined;
  const page = (globalThis as { location?: { href?: unknown } }).location?.href;
  if (!value.startsWith('/') || value.startsWith('//') || typeof page !== 'string' || !/^https?:/i.test(page) || !URL.canParse(value, page)) return undefined;
  return new URL(value, page).toString();
}

/** Joins a base URL (with or without a path) and a path, then appends the query. */
export function buildUrl(baseUrl: string, pathname: string, query?: Record<string, QueryValue>): URL {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  const url = new URL(base + (pathname.startsWith('/') ? pathname : `/${pathname}`));
  return appendQuery(url, query);
}

/**
 * Appends query values to a URL (arrays repeat the key; `undefined` and `null` are left out). The
 * URL's own query is kept byte for byte: re-encoding it would break a signed URL.
 */
export function appendQuery(url: URL, query?: Record<string, QueryValue>): URL {
  const extra = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    // An array repeats the key once per item; `undefined` and `null` add nothing.
    for (const item of [value ?? []].flat()) extra.append(name, String(item));
  }
  const added = extra.toString();
  if (added) url.search = url.search.length > 1 ? `${url.search}&${added}` : added;
  return url;
}

// Half of a surrogate pair with no other half: `encodeURIComponent` throws a URIError on it.
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Refuses the id a submission's answer named its job or task with, when no URL can carry it as one
 * path segment (blank, `.` or `..` also percent-encoded, or malformed text): the work may exist,
 * but it cannot be followed, and it is not sent again.
 *
 * @example
 * ```ts
 * checkAnsweredId(answer.prompt_id, { field: 'prompt_id', work: 'job', body: answer, method: 'POST', url });
 * ```
 */
export function checkAnsweredId(id: string, init: { field: string; work: 'job' | 'task'; body: unknown; method: string; url: string }): void {
  if (id.trim() !== '' && !isDotSegment(id) && !LONE_SURROGATE.test(id)) return;
  const problem = `${init.field}: not an id a URL can carry (blank, "." or "..", or malformed text): the ${init.work} may have been ${init.work === 'job' ? 'created' : 'accepted'} (and billed), but it cannot be followed; it was not submitted again`;
  throw new ResponseValidationError({ field: init.field, problems: [problem], body: init.body, method: init.method, url: init.url });
}

/** True for `.`, `..` and any percent-encoding of them, decoded up to three times. */
export function isDotSegment(value: string): boolean {
  try {
    for (let i = 0, current = value; i < 4; i++) {
      if (current === '.' || current === '..') return true;
      const decoded = decodeURIComponent(current);
      if (decoded === current) return false;
      current = decoded;
    }
  } catch {
    // Malformed percent-encoding (a URIError): no decoding makes it a dot segment.
  }
  return false;
}

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
