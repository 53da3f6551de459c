import type { RelayConfig } from './config.js';

const ALLOWED_HEADERS = 'content-type, x-graphcloud-job-token, x-graphcloud-task-token';
const EXPOSED_HEADERS = 'x-graphcloud-view, retry-after, x-request-id, content-disposition';

/** The request's `Origin` when it is another origin listed in `allowedOrigins`, else `undefined`. */
function allowedCrossOrigin(config: RelayConfig, request: Request): string | undefined {
  const origin = request.headers.get('origin');
  if (origin === null || !config.allowedOrigins.has(origin)) return undefined;
  return new URL(request.url).origin === origin ? undefined : origin;
}

/**
 * The answer to a CORS preflight (`OPTIONS`) from a page of an origin in `allowedOrigins`: a
 * preflight carries no cookie, so it is answered before `authorize`. `undefined` for any other
 * request.
 *
 * @example
 * ```ts
 * const early = preflight(config, request);
 * if (early) return early;
 * ```
 */
export function preflight(config: RelayConfig, request: Request): Response | undefined {
  if (request.method.toUpperCase() !== 'OPTIONS') return undefined;
  const origin = allowedCrossOrigin(config, request);
  if (origin === undefined) return undefined;
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET, POST, PUT, DELETE, PATCH',
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-max-age': '600',
      vary: 'origin',
    },
  });
}

/**
 * The answer with the CORS headers a page of an allowed other origin needs to read it (its
 * cookies included); any other answer unchanged.
 *
 * @example
 * ```ts
 * return withCors(config, request, await dispatch(ctx, call));
 * ```
 */
export function withCors(config: RelayConfig, request: Request, response: Response): Response {
  const origin = allowedCrossOrigin(config, request);
  if (origin === undefined) return response;
  // A copy: the headers of a Response made elsewhere (Response.redirect()) may be immutable.
  const copy = new Response(response.body, response);
  copy.headers.set('access-control-allow-origin', origin);
  copy.headers.set('access-control-allow-credentials', 'true');
  copy.headers.set('access-control-expose-headers', EXPOSED_HEADERS);
  copy.headers.append('vary', 'origin');
  return copy;
}
