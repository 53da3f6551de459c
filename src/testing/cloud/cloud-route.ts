import { header } from '../server/request.js';
import type { Router, SimContext } from '../server/router.js';
import { sendJson } from '../server/send.js';
import { cloudUser } from './users.js';

/**
 * A cloud route handler, called with the user behind the request's key.
 *
 * @example
 * const handler: CloudHandler = ({ res }, userId) => sendJson(res, 200, { userId });
 */
export type CloudHandler = (ctx: SimContext, userId: string) => void | Promise<void>;

/**
 * Adds cloud routes: each under `/api` (and, on a local runtime, also without the prefix), behind
 * the key check (`401 {message}` without a known key; a local runtime takes any).
 *
 * @example
 * const route = cloudRouter(router, deps);
 * route('GET', '/queue', (ctx, userId) => sendJson(ctx.res, 200, queueOf(userId)));
 */
export function cloudRouter(router: Router, deps: { runtime: 'cloud' | 'local'; users: ReadonlyMap<string, string> }): (method: string, path: string, handler: CloudHandler) => void {
  const authed = (handler: CloudHandler) => (ctx: SimContext) => {
    const userId = cloudUser(deps.runtime, deps.users, header(ctx.req, 'x-api-key'));
    if (!userId) {
      sendJson(ctx.res, 401, { message: 'Invalid or missing API key' });
      return undefined;
    }
    return handler(ctx, userId);
  };
  return (method, path, handler) => {
    router.add(method, `/api${path}`, authed(handler));
    if (deps.runtime === 'local') router.add(method, path, authed(handler));
  };
}
