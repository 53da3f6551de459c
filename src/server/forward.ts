import { refuse } from './answers.js';
import { readBounded } from './body.js';
import { scrubbedAnswer } from './scrub-body.js';
import { holdsInUrl } from './scrub-forms.js';
import { JOB_TOKEN_HEADER, TASK_TOKEN_HEADER, type RelayCall, type RelayContext } from './context.js';
import type { RouteGroup, UpstreamName } from './routes.js';

// The relay's own query names: the tokens of <img src> URLs, never sent upstream.
const OWN_QUERY = new Set(['job', 'task', 'as']);

/**
 * The upstream path of a matched route: its decoded segments encoded again one by one (so a
 * segment can never become two), and the query names the route passes on.
 *
 * @example
 * ```ts
 * upstreamPath(call); // '/api/job/p1/status'
 * ```
 */
export function upstreamPath(call: RelayCall): string {
  const path = `/${call.match.segments.map(encodeURIComponent).join('/')}`;
  return path + passedQuery(call.url, call.match.group);
}

function passedQuery(url: URL, group: RouteGroup): string {
  const names = group.query;
  if (names === undefined) return '';
  const out = new URLSearchParams();
  for (const [name, value] of url.searchParams) {
    if (names === 'all' ? !OWN_QUERY.has(name) : names.includes(name)) out.append(name, value);
  }
  const text = out.toString();
  return text ? `?${text}` : '';
}

/**
 * Checks the token a job- or task-scoped call carries (header, or the `job=` / `task=` query of an
 * `<img src>`): the id it grants, or the refusal to answer with. `expected` is the id the route
 * names, when it names one.
 *
 * @example
 * ```ts
 * const grant = await checkGrant(ctx, call, 'job', call.match.id);
 * if (grant instanceof Response) return grant;
 * ```
 */
export async function checkGrant(ctx: RelayContext, call: RelayCall, kind: 'job' | 'task', expected: string | undefined): Promise<string | Response> {
  const header = kind === 'job' ? JOB_TOKEN_HEADER : TASK_TOKEN_HEADER;
  if (call.url.searchParams.getAll(kind).length > 1) return refuse(400, 'bad_request', `A URL carries one ${kind}= token, not several`);
  const token = call.request.headers.get(header) ?? call.url.searchParams.get(kind);
  if (!token) {
    return refuse(403, `${kind}_token_required`, `This route is scoped to one ${kind}: send the relay_token of its submission answer as the ${header} header (or the ${kind}= query of a URL)`);
  }
  const id = await ctx.signer.verify(token, kind);
  if (id === undefined || (expected !== undefined && id !== expected)) {
    return refuse(403, `${kind}_token_invalid`, `The ${kind} token is malformed, expired, or for another ${kind}`);
  }
  return id;
}

/**
 * Forwards a call to its upstream as it came (bounded body, the credential added on the server,
 * no cookie or credential of the browser), and answers with the upstream's answer, scrubbed.
 *
 * @example
 * ```ts
 * return forward(ctx, call);
 * ```
 */
export async function forward(ctx: RelayContext, call: RelayCall): Promise<Response> {
  const { request, match } = call;
  const method = request.method.toUpperCase();
  const sendsBody = match.group.body ?? (method === 'POST' || method === 'PUT' || method === 'PATCH');
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (sendsBody) {
    const read = await readBounded(request, ctx.config.bodyLimits);
    if (read instanceof Response) return read;
    body = read;
  } else {
    await request.body?.cancel().catch(() => undefined);
  }
  // Only what describes the body travels: never the browser's cookie, authorization or tokens.
  const headers: Record<string, string> = {};
  if (body && body.byteLength > 0) headers['content-type'] = request.headers.get('content-type') ?? 'application/octet-stream';
  const response = await ctx.upstream.send({ method, upstream: match.group.upstream, path: upstreamPath(call), headers, body: body?.byteLength ? body : undefined, signal: request.signal });
  return relayAnswer(ctx, response, match.group.upstream);
}

/**
 * An upstream answer as the browser gets it: allow-listed headers, a body with no spelling of a
 * credential (`scrubbedAnswer`), a redirect within the upstream rewritten to the relay's own path.
 *
 * @example
 * ```ts
 * return relayAnswer(ctx, response, 'cloud');
 * ```
 */
export async function relayAnswer(ctx: RelayContext, response: Response, upstream: UpstreamName): Promise<Response> {
  const secrets = ctx.upstream.secrets;
  if (response.status >= 300 && response.status < 400) {
    void response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    if (!location || !URL.canParse(location, `${ctx.config.upstreams[upstream]?.url ?? ''}/`)) return refuse(502, 'upstream_refused', 'The upstream answered with a redirect the relay cannot read');
    const base = new URL(`${ctx.config.upstreams[upstream]?.url ?? ''}/`);
    const target = new URL(location, base);
    const prefix = base.pathname.slice(0, -1);
    // A hop within the upstream goes back through the relay, which adds the credential again.
    const within = target.origin === base.origin && target.pathname.startsWith(`${prefix}/`);
    const own = within ? `${ctx.config.basePath}${target.pathname.slice(prefix.length)}${target.search}` : target.toString();
    // The browser reads the Location (and a page can decode its escapes): one holding the key is not passed on.
    if (holdsInUrl(own, secrets)) return refuse(502, 'upstream_refused', 'The upstream redirected to a URL holding the relay’s credential: the redirect was not passed on');
    return new Response(null, { status: response.status, headers: { location: own, 'cache-control': 'no-store' } });
  }
  return scrubbedAnswer(response, secrets, ctx.config.onError);
}
