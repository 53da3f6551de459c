import type { ServerResponse } from 'node:http';
import { bearerToken, header, isObject, readJson } from '../server/request.js';
import type { SimContext } from '../server/router.js';
import { sendJson } from '../server/send.js';
import type { RegistryData, RegistryUser } from './data.js';

/**
 * Dependencies of the registry's route modules: the seeded data (with the users of its Bearer
 * tokens), the cloud API keys the registry also accepts as `X-API-Key`, and the package storage
 * publishing uploads to (on the files origin).
 *
 * @example
 * const deps: RegistryDeps = { data, apiKeys, packages };
 */
export interface RegistryDeps {
  data: RegistryData;
  apiKeys: ReadonlyMap<string, RegistryUser>;
  packages: { uploadUrl(key: string): string; downloadUrl(key: string): string };
}

/**
 * Error bodies vary by layer: `{error, message}` (error often ""), `{message}` alone,
 * `{message, details}`; see docs/wire-protocol.md#error-bodies.
 *
 * @example
 * errorBody(res, 404, 'Node not found');
 */
export const errorBody = (res: ServerResponse, status: number, message: string): void => sendJson(res, status, { error: '', message });

/**
 * A `400` listing what is wrong with the request body.
 *
 * @example
 * detailsBody(res, ['changelog must be a string']);
 */
export const detailsBody = (res: ServerResponse, details: string[]): void => sendJson(res, 400, { message: 'Invalid request body', details });

/**
 * The access rules every registry route module shares.
 *
 * @example
 * const { authed, owner, body } = access(deps);
 */
export function access({ data, apiKeys }: RegistryDeps) {
  const userOf = (ctx: SimContext): RegistryUser | undefined => {
    const token = bearerToken(ctx.req);
    if (token) return data.users.get(token);
    return apiKeys.get(header(ctx.req, 'x-api-key') ?? '');
  };
  const authed = (handler: (ctx: SimContext, user: RegistryUser) => void | Promise<void>) => (ctx: SimContext) => {
    const user = userOf(ctx);
    if (!user) return sendJson(ctx.res, 401, { message: 'Unauthorized' });
    return handler(ctx, user);
  };
  const isOwner = (publisherId: string, user: RegistryUser | undefined): boolean => {
    const found = data.publishers.get(publisherId);
    const members = Array.isArray(found?.members) ? (found.members as { role?: string; user?: { id?: string } }[]) : [];
    return user !== undefined && members.some((m) => m.role === 'owner' && m.user?.id === user.id);
  };
  /** Only owners may write; members and strangers get 403 "Permission denied" (docs/wire-protocol.md#registry-routes-parameters-and-answers). */
  const owner = (handler: (ctx: SimContext, user: RegistryUser, publisherId: string) => void | Promise<void>) =>
    authed((ctx, user) => {
      const publisherId = ctx.params.publisherId ?? '';
      if (!data.publishers.has(publisherId)) return errorBody(ctx.res, 404, 'Publisher not found');
      if (!isOwner(publisherId, user)) return errorBody(ctx.res, 403, 'Permission denied');
      return handler(ctx, user, publisherId);
    });
  const body = async (ctx: SimContext): Promise<Record<string, unknown> | undefined> => {
    try {
      const parsed = await readJson(ctx.req);
      if (isObject(parsed)) return parsed;
    } catch {
      // answered below
    }
    detailsBody(ctx.res, ['request body must be a JSON object']);
    return undefined;
  };
  return { userOf, authed, owner, isOwner, body };
}

/**
 * The fields of `source` named in `keys` (a request may carry fields the registry ignores).
 *
 * @example
 * pick({ name: 'a', evil: 1 }, ['name']); // { name: 'a' }
 */
export function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => source[key] !== undefined).map((key) => [key, source[key]]));
}

/**
 * A page of a listing, with the paging fields of `GET /nodes` and `GET /nodes/search`.
 *
 * @example
 * const page = pageOf(items, 2, 10); // { total, page: 2, limit: 10, totalPages, items }
 */
export function pageOf<T>(items: readonly T[], page: number, limit: number): { total: number; page: number; limit: number; totalPages: number; items: T[] } {
  return { total: items.length, page, limit, totalPages: Math.ceil(items.length / limit), items: items.slice((page - 1) * limit, page * limit) };
}

/**
 * Reads the `page` and `limit` query of a listing; `undefined` when one is not a positive integer.
 *
 * @example
 * const paging = paging(url.searchParams); // { page: 1, limit: 10 }
 */
export function paging(query: URLSearchParams): { page: number; limit: number } | undefined {
  const page = query.has('page') ? Number(query.get('page')) : 1;
  const limit = query.has('limit') ? Number(query.get('limit')) : 10;
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(limit) || limit < 1) return undefined;
  return { page, limit };
}
