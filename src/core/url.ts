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
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) extra.append(name, String(item));
    else extra.append(name, String(value));
  }
  const added = extra.toString();
  if (added) url.search = url.search.length > 1 ? `${url.search}&${added}` : added;
  return url;
}
