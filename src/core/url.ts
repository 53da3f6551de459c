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

/** Joins a base URL (with or without a path) and a path, then appends the query. */
export function buildUrl(baseUrl: string, pathname: string, query?: Record<string, QueryValue>): URL {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  const url = new URL(base + (pathname.startsWith('/') ? pathname : `/${pathname}`));
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, String(item));
    else url.searchParams.append(name, String(value));
  }
  return url;
}
