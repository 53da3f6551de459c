import { callSafely, GraphcloudError } from '../core/index.js';
import { jsonAnswer, refuse } from './answers.js';
import type { RelayCall, RelayContext } from './context.js';
import { checkGrant } from './forward.js';
import { scrubbedAnswer } from './scrub-body.js';
import { holdsInUrl } from './scrub-forms.js';

const MAX_HOPS = 5;
// The query names the view route reads; each may appear once.
const VIEW_QUERY = ['filename', 'subfolder', 'type', 'preview', 'channel', 'job'];

/**
 * `GET /api/view`: an output file, for the holder of its job's token only. The file must be an
 * output of the token's job (`OutputIndex`); the cloud's answer is then followed on the server:
 * its `302` to a signed URL on another host is fetched WITHOUT the key
 * (docs/wire-protocol.md#redirects-and-credentials) and the bytes are streamed back, since browser
 * code cannot follow that redirect itself. With `viewMode: 'url'` the signed URL is answered
 * instead: `{url}` to a request that accepts JSON (the SDK), a `302` to any other (an `<img>`).
 *
 * @example
 * ```ts
 * return view(ctx, call);
 * ```
 */
export async function view(ctx: RelayContext, call: RelayCall): Promise<Response> {
  const promptId = await checkGrant(ctx, call, 'job', undefined);
  if (promptId instanceof Response) return promptId;
  const query = call.url.searchParams;
  // One value per name: an upstream that reads another value than the one checked here would
  // serve another job's file. What goes upstream is rebuilt from the checked values only.
  const repeated = VIEW_QUERY.find((name) => query.getAll(name).length > 1);
  if (repeated) return refuse(400, 'bad_request', `The view route takes one ${repeated} parameter, not several`);
  const filename = query.get('filename');
  if (!filename) return refuse(400, 'bad_request', 'The view route needs a filename (and the subfolder and type of the output)');
  const ref = { filename, subfolder: query.get('subfolder') ?? '', type: query.get('type') ?? 'output' };
  if (!(await ctx.outputs.has(promptId, ref))) {
    return refuse(404, 'file_not_in_job', 'The file is not an output of the job the token names (or the job has not finished)');
  }
  const sent = new URLSearchParams(ref);
  for (const name of ['preview', 'channel'] as const) {
    const value = query.get(name);
    if (value !== null) sent.set(name, value);
  }
  const signal = call.request.signal;
  let response = await ctx.upstream.send({ method: 'GET', upstream: 'cloud', path: `/api/view?${sent}`, signal });
  const view = new URL(`${ctx.config.upstreams.cloud?.url ?? ''}/api/view`);
  let at = view;
  for (let hop = 0; isRedirect(response.status); hop++) {
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    if (!location || hop >= MAX_HOPS || !URL.canParse(location, at)) return refuse(502, 'upstream_refused', 'The cloud answered the file with a redirect the relay cannot follow');
    const next = new URL(location, at);
    const refused = nextHop(ctx, view, at, next);
    if (refused) {
      callSafely(ctx.config.onError, new GraphcloudError(`The relay did not follow a redirect of /api/view: ${refused}`));
      return refuse(502, 'upstream_refused', `The relay did not follow the file's redirect: ${refused}`);
    }
    if (ctx.config.viewMode === 'url' && next.origin !== view.origin) return urlAnswer(call.request, next);
    // The key goes with the cloud's own /api/view only (nextHop refuses any other cloud path).
    response = await ctx.upstream.send({ method: 'GET', upstream: 'cloud', url: next.toString(), credential: next.origin === view.origin, signal });
    at = next;
  }
  // Output files are scrubbed too: a text, SVG or JSON output can hold the key (a hostile
  // node, a workflow that wrote its inputs), and the page can read every byte.
  const answer = await scrubbedAnswer(response, ctx.upstream.secrets, ctx.config.onError);
  // The URL carries a token for one visitor: caches shared between visitors must not keep it.
  if (answer.ok) answer.headers.set('cache-control', 'private, max-age=300');
  return answer;
}

/**
 * Why a redirect of /api/view is not followed, or `undefined`. The key travels only to the
 * cloud's own /api/view path, so a hop back to the cloud is followed only to that path and only
 * before the chain left the cloud (a chain cloud → elsewhere → cloud once fetched an off-list
 * cloud path with the key); another origin must be the storage host (`ViewHosts`).
 */
function nextHop(ctx: RelayContext, view: URL, at: URL, next: URL): string | undefined {
  if (next.protocol !== 'https:' && next.protocol !== 'http:') return 'it points to a URL that is not http(s)';
  // Neither the storage host nor the browser (url mode) may be handed the key inside a URL.
  if (holdsInUrl(next.toString(), ctx.upstream.secrets)) return 'it points to a URL holding the relay’s credential';
  if (next.origin === view.origin) {
    if (at.origin !== view.origin) return 'it leads back to the cloud from another host';
    return next.pathname === view.pathname ? undefined : `it points to ${next.pathname}, not the cloud's /api/view`;
  }
  return ctx.viewHosts.check(next);
}

function urlAnswer(request: Request, url: URL): Response {
  if (/\bapplication\/json\b/i.test(request.headers.get('accept') ?? '')) return jsonAnswer(200, { url: url.toString() }, { 'x-graphcloud-view': 'url' });
  return new Response(null, { status: 302, headers: { location: url.toString(), 'cache-control': 'no-store' } });
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}
