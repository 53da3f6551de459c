import { callSafely } from '../core/index.js';
import { refuse } from './answers.js';
import { cancelJob } from './cancel.js';
import { preflight, withCors } from './cors.js';
import { resolveRelayConfig, type RelayConfig } from './config.js';
import type { RelayCall, RelayContext } from './context.js';
import { checkGrant, forward } from './forward.js';
import type { RelayOptions } from './options.js';
import { OutputIndex } from './output-index.js';
import { SocketRelay, type RelayPeer, type RelaySocket, type RelaySocketStats } from './socket-relay.js';
import { submitJob, submitTask } from './submit.js';
import { TokenSigner } from './tokens.js';
import { UpstreamClient, UpstreamFailure } from './upstream.js';
import { view } from './view.js';
import { ViewHosts } from './view-hosts.js';

/**
 * What `relay.upgrade(request)` decided about a browser's socket: a `response` to answer the
 * upgrade with (refused), or `open`, to call once the runtime has accepted the socket.
 *
 * @example
 * ```ts
 * const decision = await relay.upgrade(request);
 * if (decision.response) return decision.response;
 * ```
 */
export type RelayUpgrade =
  | {
      /** The answer to the refused upgrade (`401`, `403`, `503`...). */
      response: Response;
      /** Absent: the upgrade was refused. */
      open?: undefined;
    }
  | {
      /** Absent: the upgrade was accepted. */
      response?: undefined;
      /** Call once the runtime accepted the socket, with its `send`/`close`; feed the returned socket the browser's messages. */
      open(peer: RelayPeer): RelaySocket;
    };

/**
 * A relay: a web-standard handler `(request) => Promise<Response>` (mount it in any framework),
 * plus the socket side for the runtime adapters, counters, and `close()`.
 *
 * @example
 * ```ts
 * const relay = createRelay({ cloudUrl, apiKey, secret, authorize });
 * export { relay as GET, relay as POST }; // a Next.js route handler
 * ```
 */
export interface Relay {
  (request: Request): Promise<Response>;
  /** The same handler, for runtimes that call `fetch` (`export default relay` in Bun or Deno). */
  fetch(request: Request): Promise<Response>;
  /**
   * Decides about a browser's WebSocket upgrade on `<basePath>/ws`: the origin, `authorize`, and
   * an open upstream socket. Called by the runtime adapters.
   */
  upgrade(request: Request): Promise<RelayUpgrade>;
  /** Counters of the sockets. */
  stats(): RelaySocketStats;
  /** Closes the sockets and ends the requests in flight; later requests are answered `503`. */
  close(): Promise<void>;
  /** The path the relay is mounted at. */
  readonly basePath: string;
}

/**
 * Creates the relay that lets a browser app use the cloud without ever holding the platform key:
 * an allow-list of routes forwarded with the key added on the server, job- and task-scoped routes
 * opened by signed, expiring tokens (stateless: instances sharing `secret` trust each other's),
 * output files followed and streamed on the server, and a socket relay that gives each browser
 * only the messages of its own jobs. See docs/browser.md.
 *
 * @throws `ValidationError` for a bad option, or without `authorize` (nor `dangerouslyAllowAnyone`).
 * @example
 * ```ts
 * import { createRelay } from 'graphcloud/server';
 * const relay = createRelay({
 *   cloudUrl: 'https://cloud.example.com',
 *   apiKey: process.env.CLOUD_API_KEY,
 *   secret: process.env.RELAY_SECRET,
 *   basePath: '/api/graphcloud',
 *   authorize: async (request) => (await getSession(request)) !== null,
 * });
 * ```
 */
export function createRelay(options: RelayOptions): Relay {
  const config = resolveRelayConfig(options);
  const life = new AbortController();
  const upstream = new UpstreamClient(config, life.signal);
  const signer = new TokenSigner(config.secrets, config.tokenTtlMs);
  const ctx: RelayContext = { config, upstream, signer, outputs: new OutputIndex(config, upstream), viewHosts: new ViewHosts(config.viewOrigins, config.upstreams.cloud?.url ?? '') };
  const sockets = new SocketRelay(config, signer, upstream);

  // The handler never rejects: a framework would answer its own error page, or crash.
  const handle = async (request: Request): Promise<Response> => withCors(config, request, await answer(request).catch(failed));
  const failed = (error: unknown): Response => {
    callSafely(config.onError, error instanceof Error ? error : new Error(String(error)));
    return refuse(500, 'relay_failed', 'The relay failed to handle the request');
  };
  const answer = async (request: Request): Promise<Response> => {
    if (life.signal.aborted) return refuse(503, 'relay_closed', 'The relay is closed');
    const early = preflight(config, request);
    if (early) return early;
    const admitted = await admit(config, request);
    if (admitted instanceof Response) return admitted;
    try {
      return await dispatch(ctx, admitted);
    } catch (error) {
      if (error instanceof UpstreamFailure) {
        callSafely(config.onError, error);
        const sent = admitted.match.group.scope === 'submit' || admitted.match.group.scope === 'task-submit';
        return refuse(error.status, error.code, sent ? `${error.message}; the submission may have been accepted: do not send it again before checking` : error.message);
      }
      throw error;
    }
  };

  const relay = handle as Relay;
  Object.defineProperties(relay, {
    fetch: { value: handle },
    basePath: { value: config.basePath, enumerable: true },
    stats: { value: () => sockets.stats() },
    upgrade: {
      value: (request: Request): Promise<RelayUpgrade> => upgrade(request).catch((error: unknown) => ({ response: failed(error) })),
    },
    close: {
      value: async () => {
        life.abort();
        sockets.close();
        ctx.outputs.clear();
      },
    },
  });
  return relay;

  async function upgrade(request: Request): Promise<RelayUpgrade> {
    if (life.signal.aborted) return { response: refuse(503, 'relay_closed', 'The relay is closed') };
    const admitted = await admit(config, request);
    if (admitted instanceof Response) return { response: admitted };
    if (admitted.match.group.scope !== 'socket') return { response: refuse(404, 'not_found', 'WebSocket upgrades are served at <basePath>/ws only') };
    if (!(await sockets.ready(request.signal))) {
      return { response: refuse(503, 'socket_unavailable', 'The relay could not open its upstream socket; try again shortly', { 'retry-after': '1' }) };
    }
    return { open: (peer: RelayPeer) => sockets.open(peer) };
  }
}

/** The checks every request passes first: the path, the origin, the route list, `authorize`. */
async function admit(config: RelayConfig, request: Request): Promise<RelayCall | Response> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return refuse(400, 'bad_request', 'The request URL could not be read');
  }
  const base = config.basePath;
  if (url.pathname !== base && !url.pathname.startsWith(`${base}/`)) return refuse(404, 'not_found', `Not a relay path (the relay is mounted at ${base || '/'})`);
  const origin = request.headers.get('origin');
  // A page of another site must not spend the account with the visitor's cookies (CSRF, and
  // cross-site WebSocket hijacking): browsers send Origin on every such request.
  if (origin !== null && !sameSite(origin, url) && !config.allowedOrigins.has(origin)) {
    return refuse(403, 'origin_not_allowed', `Requests from ${origin} are not allowed (the allowedOrigins option)`);
  }
  const method = request.method.toUpperCase();
  const match = config.routes.match(method, url.pathname.slice(base.length) || '/');
  if ('miss' in match) {
    if (match.miss === 'bad') return refuse(400, 'bad_path', 'The path holds an empty, dot or encoded-slash segment');
    return refuse(403, 'route_not_allowed', `The relay does not forward ${method} ${url.pathname.slice(base.length) || '/'}: it is not on its list of routes (the routes option; see docs/browser.md)`);
  }
  const decided = await authorized(config, request, match.name);
  if (decided !== true) return decided;
  return { request, url, match };
}

async function authorized(config: RelayConfig, request: Request, route: string): Promise<true | Response> {
  if (!config.authorize) return true;
  let verdict: boolean | Response;
  try {
    verdict = await config.authorize(request, { route });
  } catch (error) {
    callSafely(config.onError, error instanceof Error ? error : new Error(String(error)));
    return refuse(500, 'authorize_failed', 'The relay could not decide whether this request is allowed');
  }
  if (verdict instanceof Response) return verdict;
  return verdict === true ? true : refuse(401, 'unauthorized', 'Sign in to use this app (the relay’s authorize refused the request)');
}

async function dispatch(ctx: RelayContext, call: RelayCall): Promise<Response> {
  switch (call.match.group.scope) {
    case 'open':
      return forward(ctx, call);
    case 'job':
    case 'task': {
      const grant = await checkGrant(ctx, call, call.match.group.scope, call.match.id);
      return grant instanceof Response ? grant : forward(ctx, call);
    }
    case 'cancel': {
      const grant = await checkGrant(ctx, call, 'job', call.match.id);
      return grant instanceof Response ? grant : cancelJob(ctx, call, grant);
    }
    case 'submit':
      return submitJob(ctx, call);
    case 'task-submit':
      return submitTask(ctx, call);
    case 'view':
      return view(ctx, call);
    case 'socket':
      return refuse(426, 'upgrade_required', 'This is the relay’s WebSocket: connect with a WebSocket client', { upgrade: 'websocket' });
  }
}

/** The page is the relay's own origin: scheme, host and port (an https page is another origin than the http relay). */
function sameSite(origin: string, url: URL): boolean {
  try {
    return new URL(origin).origin === url.origin;
  } catch {
    return false;
  }
}
