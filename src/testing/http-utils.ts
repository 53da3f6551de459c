import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A parsed request handed to a simulator route handler.
 *
 * @example
 * const handler: RouteHandler = (ctx) => sendJson(ctx.res, 200, { id: ctx.params.id });
 */
export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
}

/**
 * A route handler; it writes the whole response itself.
 *
 * @example
 * const ping: RouteHandler = ({ res }) => sendJson(res, 200, { ok: true });
 */
export type RouteHandler<C extends RouteContext = RouteContext> = (ctx: C) => void | Promise<void>;

interface Route<C extends RouteContext> {
  method: string;
  segments: string[];
  handler: RouteHandler<C>;
}

/**
 * Result of {@link Router.match}: a handler with its path parameters, or the reason there is none.
 *
 * @example
 * const found = router.match('GET', '/nodes/a');
 * if (found.kind === 'found') await found.handler({ ...ctx, params: found.params });
 */
export type RouteMatch<C extends RouteContext> =
  | { kind: 'found'; handler: RouteHandler<C>; params: Record<string, string> }
  | { kind: 'method-not-allowed' }
  | { kind: 'not-found' };

/**
 * A tiny method + path router; `:name` segments capture one path segment.
 *
 * @example
 * const router = new Router();
 * router.add('GET', '/nodes/:nodeId', ({ res, params }) => sendJson(res, 200, { id: params.nodeId }));
 */
export class Router<C extends RouteContext = RouteContext> {
  readonly #routes: Route<C>[] = [];

  /** Registers a handler for a method and a path pattern. */
  add(method: string, pattern: string, handler: RouteHandler<C>): this {
    this.#routes.push({ method, segments: split(pattern), handler });
    return this;
  }

  /** Finds the handler of a request. */
  match(method: string, pathname: string): RouteMatch<C> {
    const parts = split(pathname);
    let pathMatched = false;
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      pathMatched = true;
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) {
        return { kind: 'found', handler: route.handler, params };
      }
    }
    return pathMatched ? { kind: 'method-not-allowed' } : { kind: 'not-found' };
  }
}

function split(path: string): string[] {
  return path.split('/').filter((part) => part !== '');
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of pattern.entries()) {
    const part = parts[index] ?? '';
    if (segment.startsWith(':')) {
      try {
        params[segment.slice(1)] = decodeURIComponent(part);
      } catch {
        return undefined;
      }
    } else if (segment !== part) {
      return undefined;
    }
  }
  return params;
}

/**
 * Writes a JSON body with the given status.
 *
 * @example
 * sendJson(res, 404, { message: 'Not Found' });
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Writes a response with no body (for 204, 404-without-body and redirects).
 *
 * @example
 * sendEmpty(res, 204);
 */
export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'content-length': 0 });
  res.end();
}

/**
 * Writes raw bytes with a content type.
 *
 * @example
 * sendBytes(res, 200, png, 'image/png');
 */
export function sendBytes(
  res: ServerResponse,
  status: number,
  bytes: Uint8Array,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': bytes.byteLength });
  res.end(bytes);
}

/**
 * Thrown by {@link readBody} when a body exceeds its limit.
 *
 * @example
 * try { await readBody(req, 10) } catch (error) { if (error instanceof BodyTooLargeError) sendEmpty(res, 413) }
 */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/**
 * Reads a whole request body, failing beyond `limit` bytes.
 *
 * @example
 * const bytes = await readBody(req, 1_000_000);
 */
export async function readBody(req: IncomingMessage, limit = 64 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > limit) throw new BodyTooLargeError(`body larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads a JSON body; resolves `undefined` when the body is empty and throws on malformed JSON.
 *
 * @example
 * const body = await readJson(req);
 */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const bytes = await readBody(req, 4 * 1024 * 1024);
  if (bytes.byteLength === 0) return undefined;
  return JSON.parse(bytes.toString('utf8')) as unknown;
}

/**
 * Narrows an unknown value to a plain JSON object.
 *
 * @example
 * if (isObject(body)) console.log(Object.keys(body));
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a boolean query value the way Go and Python servers do (`true`, `1`, `false`, `0`).
 *
 * @example
 * queryBoolean(url.searchParams.get('include_translations')); // true for "true" or "1"
 */
export function queryBoolean(value: string | null): boolean | undefined {
  if (value === null) return undefined;
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0' || lower === '') return false;
  return undefined;
}

/**
 * Waits `ms`, rejecting with the signal's reason when it aborts (the simulator's one sleep).
 *
 * @example
 * await sleep(10, controller.signal);
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A seedable pseudo-random generator (mulberry32), so fault ratios replay identically.
 *
 * @example
 * const random = seededRandom(42);
 * random(); // 0 <= x < 1, same sequence for the same seed
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Builds a UUID-shaped id from a seeded generator, so seeded data has stable ids.
 *
 * @example
 * const id = seededUuid(seededRandom(1));
 */
export function seededUuid(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
