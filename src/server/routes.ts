import { isDotSegment } from '../core/index.js';

/**
 * Which upstream a route goes to: the cloud (or a local runtime), the media proxy, the registry.
 *
 * @example
 * ```ts
 * const upstream: UpstreamName = 'cloud';
 * ```
 */
export type UpstreamName = 'cloud' | 'proxy' | 'registry';

/**
 * What a route needs besides the caller's authorization: nothing (`open`), the token of the job or
 * task its `:id` names, or the relay's own handling (a submission signs a token; `view` checks that
 * the file belongs to the token's job).
 *
 * @example
 * ```ts
 * RELAY_ROUTES.status.scope; // 'job': the request needs the job's token
 * ```
 */
export type RouteScope = 'open' | 'job' | 'task' | 'submit' | 'task-submit' | 'view' | 'cancel' | 'socket';

/**
 * One method and path of a route group. `:name` matches one segment, a final `*` the rest.
 *
 * @example
 * ```ts
 * const pattern: RoutePattern = { method: 'GET', path: '/api/jobs/:id' };
 * ```
 */
export interface RoutePattern {
  /** The HTTP method the route answers. */
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** The path below the relay's base path, the same as upstream: `:name` matches one segment, a final `*` one or more. */
  path: string;
}

/**
 * A group of routes the relay can forward, by name (an entry of `RELAY_ROUTES`).
 *
 * @example
 * ```ts
 * const { upstream, scope, patterns } = RELAY_ROUTES.submit; // 'cloud', 'submit', [{ method: 'POST', path: '/api/prompt' }]
 * ```
 */
export interface RouteGroup {
  /** Where the group's requests are forwarded. */
  upstream: UpstreamName;
  /** What a request needs besides the caller's authorization. */
  scope: RouteScope;
  /** The methods and paths of the group. */
  patterns: readonly RoutePattern[];
  /** Query names passed on; `all` passes the query as it came. @default none */
  query?: readonly string[] | 'all';
  /** Forward the request's body. @default true for POST, PUT and PATCH */
  body?: boolean;
}

const proxyTasks = (method: 'GET' | 'POST', paths: readonly string[]): RoutePattern[] => paths.map((path) => ({ method, path }));

/**
 * Every route group the relay knows, by name. `RELAY_DEFAULT_ROUTES` lists those served when the
 * `routes` option is not given: what a running page needs. The others (account-wide listings,
 * interrupt, the registry) are served only when listed: on a shared account they would show or
 * stop every visitor's jobs. Routes are those of docs/wire-protocol.md.
 *
 * @example
 * ```ts
 * createRelay({ ...options, routes: [...RELAY_DEFAULT_ROUTES, 'registryRead'] });
 * ```
 */
export const RELAY_ROUTES: Readonly<Record<RouteName, RouteGroup>> = Object.freeze({
  objectInfo: { upstream: 'cloud', scope: 'open', patterns: [{ method: 'GET', path: '/api/object_info' }, { method: 'GET', path: '/api/object_info/:class' }] },
  upload: { upstream: 'cloud', scope: 'open', patterns: [{ method: 'POST', path: '/api/upload/image' }, { method: 'POST', path: '/api/upload/mask' }] },
  submit: { upstream: 'cloud', scope: 'submit', patterns: [{ method: 'POST', path: '/api/prompt' }] },
  status: {
    upstream: 'cloud',
    scope: 'job',
    // A local runtime has no status route: its jobs are read from /history (docs/wire-protocol.md#cloud-local-runtimes).
    patterns: [{ method: 'GET', path: '/api/job/:id/status' }, { method: 'GET', path: '/history/:id' }, { method: 'GET', path: '/api/history/:id' }, { method: 'GET', path: '/api/history_v2/:id' }],
  },
  job: { upstream: 'cloud', scope: 'job', patterns: [{ method: 'GET', path: '/api/jobs/:id' }] },
  view: { upstream: 'cloud', scope: 'view', patterns: [{ method: 'GET', path: '/api/view' }], query: ['filename', 'subfolder', 'type', 'preview', 'channel'] },
  cancel: { upstream: 'cloud', scope: 'cancel', patterns: [{ method: 'POST', path: '/api/jobs/:id/cancel' }], body: false },
  socket: { upstream: 'cloud', scope: 'socket', patterns: [{ method: 'GET', path: '/ws' }] },
  taskSubmit: {
    upstream: 'proxy',
    scope: 'task-submit',
    patterns: proxyTasks('POST', [
      '/proxy/imagevendor/v1/ai/image-relight',
      '/proxy/imagevendor/v1/ai/image-upscaler',
      '/proxy/imagevendor/v1/ai/image-style-transfer',
      '/proxy/imagevendor/v1/ai/skin-enhancer/creative',
      '/proxy/imagevendor/v1/ai/skin-enhancer/faithful',
      '/proxy/videovendor/reference2video',
      '/proxy/videovendor/extend',
      '/proxy/videovendor/multiframe',
    ]),
  },
  taskStatus: {
    upstream: 'proxy',
    scope: 'task',
    patterns: proxyTasks('GET', [
      '/proxy/imagevendor/v1/ai/image-relight/:id',
      '/proxy/imagevendor/v1/ai/image-upscaler/:id',
      '/proxy/imagevendor/v1/ai/image-style-transfer/:id',
      '/proxy/imagevendor/v1/ai/skin-enhancer/:id',
      '/proxy/videovendor/tasks/:id/creations',
    ]),
  },
  // Not served unless listed: account-wide, on a shared account they reach every visitor's jobs.
  listJobs: { upstream: 'cloud', scope: 'open', patterns: [{ method: 'GET', path: '/api/jobs' }], query: 'all' },
  queue: { upstream: 'cloud', scope: 'open', patterns: [{ method: 'GET', path: '/api/queue' }, { method: 'POST', path: '/api/queue' }] },
  interrupt: { upstream: 'cloud', scope: 'open', patterns: [{ method: 'POST', path: '/api/interrupt' }] },
  registryRead: {
    upstream: 'registry',
    scope: 'open',
    patterns: [{ method: 'GET', path: '/nodes' }, { method: 'GET', path: '/nodes/*' }, { method: 'GET', path: '/versions' }, { method: 'GET', path: '/publishers' }, { method: 'GET', path: '/publishers/*' }],
    query: 'all',
  },
  registryWrite: {
    upstream: 'registry',
    scope: 'open',
    patterns: [
      { method: 'POST', path: '/publishers' },
      ...(['POST', 'PUT', 'DELETE'] as const).flatMap((method) => [{ method, path: '/publishers/*' }, { method, path: '/nodes/*' }]),
    ],
    query: 'all',
  },
} satisfies Record<RouteName, RouteGroup>);

/**
 * The name of a route group of `RELAY_ROUTES`.
 *
 * @example
 * ```ts
 * const name: RouteName = 'registryRead';
 * ```
 */
export type RouteName =
  | 'objectInfo'
  | 'upload'
  | 'submit'
  | 'status'
  | 'job'
  | 'view'
  | 'cancel'
  | 'socket'
  | 'taskSubmit'
  | 'taskStatus'
  | 'listJobs'
  | 'queue'
  | 'interrupt'
  | 'registryRead'
  | 'registryWrite';

/**
 * The route groups served when the `routes` option is not given: what a running page needs
 * (node definitions, uploads, submit, a job's status, outputs and cancel, media tasks, the socket).
 *
 * @example
 * ```ts
 * createRelay({ ...options, routes: RELAY_DEFAULT_ROUTES.filter((name) => name !== 'upload') });
 * ```
 */
export const RELAY_DEFAULT_ROUTES: readonly RouteName[] = Object.freeze(['objectInfo', 'upload', 'submit', 'status', 'job', 'view', 'cancel', 'socket', 'taskSubmit', 'taskStatus'] as RouteName[]);

/**
 * A route of your own to forward, beside the named groups: `path` may hold `:name` segments and a
 * final `*`; the query is passed on as it came; no token is asked.
 *
 * @example
 * ```ts
 * const route: CustomRoute = { method: 'GET', path: '/api/userdata/:file', upstream: 'cloud' };
 * ```
 */
export interface CustomRoute {
  /** The HTTP method the route answers. */
  method: RoutePattern['method'];
  /** The path below the relay's base path, the same as upstream: `:name` matches one segment, a final `*` one or more. */
  path: string;
  /** Where its requests are forwarded. */
  upstream: UpstreamName;
}

/** A request matched to a route: its group, the decoded segments to send, and the `:id` if any. */
export interface RouteMatch {
  name: string;
  group: RouteGroup;
  /** Decoded path segments of the upstream path. */
  segments: string[];
  id: string | undefined;
}

/** Why a path matched nothing: `bad` (a dot segment, an empty one, bad encoding) or `unknown`. */
export type RouteMiss = { miss: 'bad' | 'unknown' | 'method' };

/**
 * The routes a relay serves, compiled once; `match()` finds the route of a request.
 *
 * @example
 * ```ts
 * const table = new RouteTable([...RELAY_DEFAULT_ROUTES]);
 * table.match('GET', '/api/job/p1/status'); // { name: 'status', id: 'p1', ... }
 * ```
 */
export class RouteTable {
  readonly #entries: { name: string; group: RouteGroup; method: string; parts: string[] }[] = [];

  constructor(routes: readonly (RouteName | CustomRoute)[]) {
    for (const route of routes) {
      if (typeof route === 'string') {
        const group: RouteGroup = RELAY_ROUTES[route];
        for (const pattern of group.patterns) this.#entries.push({ name: route, group, method: pattern.method, parts: split(pattern.path) });
      } else {
        const group: RouteGroup = { upstream: route.upstream, scope: 'open', patterns: [route], query: 'all' };
        this.#entries.push({ name: `${route.method} ${route.path}`, group, method: route.method, parts: split(route.path) });
      }
    }
  }

  /** True when some route of the table goes to this upstream. */
  uses(upstream: UpstreamName): boolean {
    return this.#entries.some((entry) => entry.group.upstream === upstream);
  }

  /** The route of a method and a path (below the relay's base path), or why there is none. */
  match(method: string, pathname: string): RouteMatch | RouteMiss {
    const segments = decodeSegments(pathname);
    if (!segments) return { miss: 'bad' };
    let methodMiss = false;
    for (const entry of this.#entries) {
      const id = matchParts(entry.parts, segments);
      if (id === false) continue;
      if (entry.method !== method) {
        methodMiss = true;
        continue;
      }
      return { name: entry.name, group: entry.group, segments, id };
    }
    return { miss: methodMiss ? 'method' : 'unknown' };
  }
}

/**
 * True when a path as received holds a dot segment (`.`, `..`, also percent-encoded): a URL parser
 * resolves them before the relay sees the path, so an adapter that has the raw path checks it.
 *
 * @example
 * ```ts
 * hasDotSegment('/api/interrupt/../object_info'); // true
 * ```
 */
export function hasDotSegment(rawPath: string): boolean {
  return rawPath.split('/').some(isDotSegment);
}

function split(path: string): string[] {
  return path.split('/').slice(1);
}

/**
 * The decoded segments of a path, or `undefined` when one is empty, a dot segment (also encoded:
 * a URL parser upstream would resolve it to another route), holds an encoded slash, or is not
 * valid percent-encoding.
 */
function decodeSegments(pathname: string): string[] | undefined {
  if (!pathname.startsWith('/')) return undefined;
  const raw = pathname.slice(1).split('/');
  const out: string[] = [];
  for (const segment of raw) {
    if (segment === '' || isDotSegment(segment)) return undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    // A slash inside a segment would become a path separator on a server that decodes before routing.
    if (/[/\\\0]/.test(decoded)) return undefined;
    out.push(decoded);
  }
  return out;
}

/** `false` when the pattern does not match; else the `:id` segment (or `undefined`). */
function matchParts(parts: string[], segments: string[]): string | undefined | false {
  let id: string | undefined;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (part === '*' && i === parts.length - 1) return segments.length > i ? id : false;
    const segment = segments[i];
    if (segment === undefined) return false;
    if (part.startsWith(':')) {
      if (part === ':id') id = segment;
    } else if (part !== segment) return false;
  }
  return segments.length === parts.length ? id : false;
}
