import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RequestFaults } from '../faults/request-faults.js';
import type { Refusal } from './send.js';

/**
 * A parsed request handed to a route handler, with the faults decided for it.
 *
 * @example
 * const handler: RouteHandler = (ctx) => sendJson(ctx.res, 200, { id: ctx.params.id });
 */
export interface SimContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  /** This request's faults: the simulator's switches overridden by its `x-sim-fault` header. */
  faults: RequestFaults;
}

/**
 * A route handler; it writes the whole response itself.
 *
 * @example
 * const ping: RouteHandler = ({ res }) => sendJson(res, 200, { ok: true });
 */
export type RouteHandler = (ctx: SimContext) => void | Promise<void>;

/**
 * A WebSocket upgrade handed to an upgrade handler.
 *
 * @example
 * const handler: UpgradeHandler = (ctx) => ({ refuse: { status: 401, body: { message: ctx.url.pathname } } });
 */
export interface UpgradeContext {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  url: URL;
  /** This upgrade's faults (rules, the `x-sim-fault` header, refused sockets). */
  faults: RequestFaults;
}

/**
 * What an upgrade handler decided: refuse with an HTTP answer, or accept (the handler completes
 * the upgrade in `accept`).
 *
 * @example
 * const answer: UpgradeAnswer = { refuse: { status: 503, retryAfter: 1, body: { message: 'Service Unavailable' } } };
 */
export type UpgradeAnswer = { refuse: Refusal } | { accept: () => void };

/**
 * Handles the WebSocket upgrades of one path.
 *
 * @example
 * router.upgrade('/ws', (ctx) => ({ accept: () => hub.accept(ctx.req, ctx.socket, ctx.head, 'demo-user') }));
 */
export type UpgradeHandler = (ctx: UpgradeContext) => UpgradeAnswer;

/**
 * The one signature of every route module: it adds its routes to the router of the server it is
 * mounted on, given its dependencies. A server is composed of one or more modules.
 *
 * @example
 * export const pingRoutes: RouteModule<{ name: string }> = (router, deps) => {
 *   router.add('GET', '/ping', ({ res }) => sendJson(res, 200, { name: deps.name }));
 * };
 */
export type RouteModule<Deps> = (router: Router, deps: Deps) => void;

/**
 * A route module bound to its dependencies, ready to be added to a server's router.
 *
 * @example
 * const mounted: MountedRoutes = mount(registryRoutes, deps);
 */
export type MountedRoutes = (router: Router) => void;

/**
 * Binds a route module to its dependencies, for {@link createAreaServer}'s `routes`.
 *
 * @example
 * createAreaServer({ ...common, area: 'registry', routes: [mount(registryRoutes, registryDeps), mount(proxyRoutes, proxyDeps)] });
 */
export function mount<Deps>(module: RouteModule<Deps>, deps: Deps): MountedRoutes {
  return (router) => module(router, deps);
}

/**
 * Result of {@link Router.match}: a handler with its path parameters, or the reason there is none.
 *
 * @example
 * const found = router.match('GET', '/nodes/a');
 * if (found.kind === 'found') await found.handler({ ...ctx, params: found.params });
 */
export type RouteMatch =
  | { kind: 'found'; handler: RouteHandler; params: Record<string, string> }
  | { kind: 'method-not-allowed' }
  | { kind: 'not-found' };

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

/**
 * A tiny method + path router; `:name` segments capture one path segment. Upgrade handlers are
 * registered by exact path.
 *
 * @example
 * const router = new Router();
 * router.add('GET', '/nodes/:nodeId', ({ res, params }) => sendJson(res, 200, { id: params.nodeId }));
 */
export class Router {
  readonly #routes: Route[] = [];
  readonly #upgrades = new Map<string, UpgradeHandler>();

  /** Registers a handler for a method and a path pattern. */
  add(method: string, pattern: string, handler: RouteHandler): this {
    this.#routes.push({ method, segments: split(pattern), handler });
    return this;
  }

  /** Registers the WebSocket upgrade handler of a path. */
  upgrade(path: string, handler: UpgradeHandler): this {
    this.#upgrades.set(path, handler);
    return this;
  }

  /** True when some path accepts WebSocket upgrades. */
  get hasUpgrades(): boolean {
    return this.#upgrades.size > 0;
  }

  /** Finds the handler of a request. */
  match(method: string, pathname: string): RouteMatch {
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

  /** Finds the upgrade handler of a path. */
  matchUpgrade(pathname: string): UpgradeHandler | undefined {
    return this.#upgrades.get(pathname);
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
