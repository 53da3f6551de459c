import { randomBytes, randomUUID } from 'node:crypto';
import { queryBoolean } from '../server/request.js';
import type { RouteModule } from '../server/router.js';
import { sendEmpty, sendJson } from '../server/send.js';
import { access, errorBody, pick, type RegistryDeps } from './access.js';
import { nodeView } from './data.js';

const PUBLISHER_FIELDS = ['name', 'description', 'website', 'support', 'source_code_repo', 'logo'];

/**
 * The registry's publisher routes: publishers, the caller's, availability, a publisher's nodes and
 * permissions, and personal access tokens (a secret answered once, at creation).
 *
 * @example
 * createAreaServer({ ...common, area: 'registry', routes: [mount(publisherRoutes, deps)] });
 */
export const publisherRoutes: RouteModule<RegistryDeps> = (router, deps) => {
  const { data } = deps;
  const { authed, owner, isOwner, userOf, body } = access(deps);
  const memberOf = (publisher: Record<string, unknown>, userId: string) =>
    Array.isArray(publisher.members) && (publisher.members as { user?: { id?: string } }[]).some((m) => m.user?.id === userId);

  router.add('GET', '/publishers', ({ res }) => sendJson(res, 200, [...data.publishers.values()]));
  router.add('POST', '/publishers', authed(async (ctx, user) => {
    const fields = await body(ctx);
    if (!fields) return;
    const id = fields.id;
    if (typeof id !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(id)) return errorBody(ctx.res, 400, 'publisher id must be lowercase letters, digits and dashes');
    if (data.publishers.has(id)) return errorBody(ctx.res, 400, `publisher ${id} already exists`);
    const created = { ...pick(fields, PUBLISHER_FIELDS), id, createdAt: new Date().toISOString(), status: 'PublisherStatusActive', members: [{ id: `${user.id}-membership`, role: 'owner', user: { ...user } }] };
    data.publishers.set(id, created);
    return sendJson(ctx.res, 201, created);
  }));
  // Fixed paths come before /publishers/:publisherId.
  router.add('GET', '/publishers/validate', ({ res, url }) => {
    const username = url.searchParams.get('username');
    if (!username) return errorBody(res, 400, 'username is required');
    return sendJson(res, 200, { isAvailable: !data.publishers.has(username) });
  });
  router.add('GET', '/users/publishers/', authed(({ res }, user) => sendJson(res, 200, [...data.publishers.values()].filter((p) => memberOf(p, user.id)))));
  router.add('GET', '/publishers/:publisherId', ({ res, params }) => {
    const found = data.publishers.get(params.publisherId ?? '');
    return found ? sendJson(res, 200, found) : errorBody(res, 404, 'Publisher not found');
  });
  router.add('PUT', '/publishers/:publisherId', owner(async (ctx, _user, publisherId) => {
    const fields = await body(ctx);
    if (!fields) return;
    const publisher = data.publishers.get(publisherId)!;
    Object.assign(publisher, pick(fields, PUBLISHER_FIELDS));
    return sendJson(ctx.res, 200, publisher);
  }));
  router.add('DELETE', '/publishers/:publisherId', owner((ctx, _user, publisherId) => {
    data.publishers.delete(publisherId);
    data.tokens.delete(publisherId);
    return sendEmpty(ctx.res, 204);
  }));
  router.add('GET', '/publishers/:publisherId/nodes', ({ res, params, url }) => {
    const publisherId = params.publisherId ?? '';
    if (!data.publishers.has(publisherId)) return errorBody(res, 404, 'Publisher not found');
    const banned = queryBoolean(url.searchParams.get('include_banned')) === true;
    const nodes = [...data.nodes.values()].filter((n) => n.publisher_id === publisherId && (banned || n.status !== 'NodeStatusBanned'));
    return sendJson(res, 200, nodes.map((n) => nodeView(data, n, false)));
  });
  router.add('GET', '/publishers/:publisherId/permissions', (ctx) => {
    const publisherId = ctx.params.publisherId ?? '';
    if (!data.publishers.has(publisherId)) return errorBody(ctx.res, 404, 'Publisher not found');
    return sendJson(ctx.res, 200, { canEdit: isOwner(publisherId, userOf(ctx)) });
  });

  router.add('POST', '/publishers/:publisherId/tokens', owner(async (ctx, _user, publisherId) => {
    const fields = await body(ctx);
    if (!fields) return;
    if (typeof fields.name !== 'string' || fields.name.trim() === '') return errorBody(ctx.res, 400, 'name is required');
    const record = {
      id: randomUUID(),
      name: fields.name,
      description: typeof fields.description === 'string' ? fields.description : '',
      createdAt: new Date().toISOString(),
      secret: `pat_${randomBytes(24).toString('hex')}`,
    };
    let tokens = data.tokens.get(publisherId);
    if (!tokens) data.tokens.set(publisherId, (tokens = new Map()));
    tokens.set(record.id, record);
    return sendJson(ctx.res, 201, { token: record.secret });
  }));
  router.add('GET', '/publishers/:publisherId/tokens', owner((ctx, _user, publisherId) => {
    const tokens = [...(data.tokens.get(publisherId)?.values() ?? [])];
    return sendJson(ctx.res, 200, tokens.map(({ secret: _secret, ...listed }) => listed));
  }));
  router.add('DELETE', '/publishers/:publisherId/tokens/:tokenId', owner((ctx, _user, publisherId) => {
    const tokens = data.tokens.get(publisherId);
    if (!tokens?.delete(ctx.params.tokenId ?? '')) return errorBody(ctx.res, 404, 'Token not found');
    return sendEmpty(ctx.res, 204);
  }));
};
