import type { ServerResponse } from 'node:http';
import { bearerToken, header, isObject, queryBoolean, readJson } from '../server/request.js';
import type { RouteModule, SimContext } from '../server/router.js';
import { sendEmpty, sendJson } from '../server/send.js';
import { nodeView, VERSION_STATUSES, versionView, type RegistryData, type RegistryUser } from './data.js';

/**
 * Page size limits of `GET /versions`; see docs/wire-protocol.md#registry-routes-parameters-and-answers.
 *
 * @example
 * VERSIONS_PAGING.maxPageSize; // 100
 */
export const VERSIONS_PAGING = Object.freeze({ defaultPageSize: 10, maxPageSize: 100 });

const NODE_STATUSES = ['NodeStatusActive', 'NodeStatusDeleted', 'NodeStatusBanned'];
const POLICIES = ['GraphNodePolicyActive', 'GraphNodePolicyBanned', 'GraphNodePolicyLocalOnly'];
const NODE_FIELDS = [
  'author', 'banner_url', 'category', 'description', 'icon', 'license', 'name', 'repository', 'status', 'status_detail',
  'supported_host_frontend_version', 'supported_host_version', 'tags', 'tags_admin', 'supported_os',
  'supported_accelerators', 'preempted_graph_node_names', 'translations',
];
const PUBLISHER_FIELDS = ['name', 'description', 'website', 'support', 'source_code_repo', 'logo'];
const GRAPH_FIELDS = ['category', 'deprecated', 'description', 'experimental', 'function', 'input_types', 'output_is_list', 'policy', 'return_names', 'return_types'];

// Error bodies vary by layer: {error, message} (error often ""), {message} alone, {message, details};
// see docs/wire-protocol.md#error-bodies.
const errorBody = (res: ServerResponse, status: number, message: string): void => sendJson(res, status, { error: '', message });
const detailsBody = (res: ServerResponse, details: string[]): void => sendJson(res, 400, { message: 'Invalid request body', details });

/**
 * Dependencies of the registry routes: the seeded data (with the users of its Bearer tokens) and
 * the cloud API keys the registry also accepts as `X-API-Key`.
 *
 * @example
 * const deps: RegistryDeps = { data: seedRegistry(DEMO_USERS, random, base), apiKeys: new Map([[apiKey, DEMO_USERS.owner]]) };
 */
export interface RegistryDeps {
  data: RegistryData;
  apiKeys: ReadonlyMap<string, RegistryUser>;
}

/**
 * The node registry's routes: nodes, reviews, versions, publishers, tokens and graph nodes.
 *
 * @example
 * createAreaServer({ ...common, area: 'registry', routes: [mount(registryRoutes, registry), mount(proxyRoutes, proxy)] });
 */
export const registryRoutes: RouteModule<RegistryDeps> = (router, { data, apiKeys }) => {
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
  /** Only owners may write; members and strangers get 403 "Permission denied" (docs/wire-protocol.md#registry-routes-parameters-and-answers). */
  const owner = (handler: (ctx: SimContext, user: RegistryUser, publisherId: string) => void | Promise<void>) =>
    authed((ctx, user) => {
      const publisherId = ctx.params.publisherId ?? '';
      const found = data.publishers.get(publisherId);
      if (!found) return errorBody(ctx.res, 404, 'Publisher not found');
      const members = Array.isArray(found.members) ? (found.members as { role?: string; user?: { id?: string } }[]) : [];
      if (!members.some((m) => m.role === 'owner' && m.user?.id === user.id)) return errorBody(ctx.res, 403, 'Permission denied');
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

  router.add('GET', '/nodes/:nodeId', ({ res, params, url }) => {
    const id = params.nodeId ?? '';
    const canonical = data.aliases.get(id);
    if (canonical) return sendEmpty(res, 302, { location: `/nodes/${encodeURIComponent(canonical)}${url.search}` });
    const node = data.nodes.get(id);
    if (!node) return errorBody(res, 404, 'Node not found');
    return sendJson(res, 200, nodeView(data, node, queryBoolean(url.searchParams.get('include_translations')) === true));
  });

  router.add('POST', '/nodes/:nodeId/reviews', ({ res, params, url }) => {
    const node = data.nodes.get(params.nodeId ?? '');
    const raw = url.searchParams.get('star');
    const star = raw === null ? Number.NaN : Number(raw);
    if (!Number.isInteger(star) || star < 1 || star > 5) return errorBody(res, 400, 'star must be an integer between 1 and 5');
    if (!node) return errorBody(res, 404, 'Node not found');
    data.reviews.get(String(node.id))?.push(star);
    return sendJson(res, 200, nodeView(data, node, false));
  });

  router.add('GET', '/versions', ({ res, url }) => {
    const query = url.searchParams;
    const statuses = query.getAll('statuses');
    const bad = statuses.find((status) => !(VERSION_STATUSES as readonly string[]).includes(status));
    if (bad) return errorBody(res, 400, `invalid status: ${bad}`);
    const page = query.has('page') ? Number(query.get('page')) : 1;
    const pageSize = query.has('pageSize') ? Number(query.get('pageSize')) : VERSIONS_PAGING.defaultPageSize;
    if (!Number.isInteger(page) || page < 1) return errorBody(res, 400, 'page must be a positive integer');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > VERSIONS_PAGING.maxPageSize) {
      return errorBody(res, 400, `pageSize must be between 1 and ${VERSIONS_PAGING.maxPageSize}`);
    }
    const nodeId = query.get('nodeId');
    const search = query.get('status_reason')?.toLowerCase();
    const matches = [...data.versions.values()]
      .filter((v) => (nodeId ? v.node_id === nodeId : true))
      .filter((v) => (statuses.length > 0 ? statuses.includes(String(v.status)) : true))
      .filter((v) => (search ? String(v.status_reason ?? '').toLowerCase().includes(search) : true))
      .sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)));
    const withReason = queryBoolean(query.get('include_status_reason')) === true;
    return sendJson(res, 200, {
      page, pageSize, total: matches.length, totalPages: Math.ceil(matches.length / pageSize),
      versions: matches.slice((page - 1) * pageSize, page * pageSize).map((v) => versionView(v, withReason)),
    });
  });

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
  router.add('GET', '/publishers/:publisherId', ({ res, params }) => {
    const found = data.publishers.get(params.publisherId ?? '');
    return found ? sendJson(res, 200, found) : errorBody(res, 404, 'Publisher not found');
  });

  router.add('POST', '/publishers/:publisherId/nodes', owner(async (ctx, _user, publisherId) => {
    const fields = await body(ctx);
    if (!fields) return;
    const problems = nodeProblems(fields);
    if (typeof fields.id !== 'string' || !/^[a-z0-9][a-z0-9._-]*$/i.test(fields.id)) problems.push('id is required (letters, digits, ".", "_", "-")');
    if (problems.length > 0) return detailsBody(ctx.res, problems);
    const id = String(fields.id);
    // A duplicate node id has been seen as 500 from the database layer; see docs/wire-protocol.md#error-bodies.
    if (data.nodes.has(id) || data.aliases.has(id)) return errorBody(ctx.res, 500, `Failed to create node: duplicate key value violates unique constraint "nodes_pkey" (${id})`);
    const created = { status: 'NodeStatusActive', tags: [], ...pick(fields, NODE_FIELDS), id, publisher_id: publisherId, created_at: new Date().toISOString(), downloads: 0, github_stars: 0, search_ranking: 0 };
    data.nodes.set(id, created);
    data.reviews.set(id, []);
    return sendJson(ctx.res, 201, nodeView(data, created, true));
  }));
  router.add('PUT', '/publishers/:publisherId/nodes/:nodeId', owner(async (ctx, _user, publisherId) => {
    const node = data.nodes.get(ctx.params.nodeId ?? '');
    if (!node || node.publisher_id !== publisherId) return errorBody(ctx.res, 404, 'Node not found');
    const fields = await body(ctx);
    if (!fields) return;
    const problems = nodeProblems(fields);
    if (problems.length > 0) return detailsBody(ctx.res, problems);
    Object.assign(node, pick(fields, NODE_FIELDS));
    return sendJson(ctx.res, 200, nodeView(data, node, true));
  }));
  router.add('DELETE', '/publishers/:publisherId/nodes/:nodeId', owner((ctx, _user, publisherId) => {
    const node = data.nodes.get(ctx.params.nodeId ?? '');
    if (!node || node.publisher_id !== publisherId) return errorBody(ctx.res, 404, 'Node not found');
    data.nodes.delete(String(node.id));
    return sendEmpty(ctx.res, 204);
  }));
  router.add('PUT', '/publishers/:publisherId/nodes/:nodeId/versions/:versionId', owner(async (ctx, _user, publisherId) => {
    const node = data.nodes.get(ctx.params.nodeId ?? '');
    const version = data.versions.get(ctx.params.versionId ?? '');
    if (!node || node.publisher_id !== publisherId || !version || version.node_id !== node.id) return errorBody(ctx.res, 404, 'Node version not found');
    const fields = await body(ctx);
    if (!fields) return;
    const problems: string[] = [];
    if (fields.changelog !== undefined && typeof fields.changelog !== 'string') problems.push('changelog must be a string');
    if (fields.deprecated !== undefined && typeof fields.deprecated !== 'boolean') problems.push('deprecated must be a boolean');
    if (problems.length > 0) return detailsBody(ctx.res, problems);
    Object.assign(version, pick(fields, ['changelog', 'deprecated']));
    return sendJson(ctx.res, 200, versionView(version, true));
  }));
  router.add('DELETE', '/publishers/:publisherId/tokens/:tokenId', owner((ctx, _user, publisherId) => {
    const tokens = data.tokens.get(publisherId);
    if (!tokens?.delete(ctx.params.tokenId ?? '')) return errorBody(ctx.res, 404, 'Token not found');
    return sendEmpty(ctx.res, 204);
  }));

  router.add('PUT', '/nodes/:nodeId/versions/:version/graph-nodes/:graphNodeName', async (ctx) => {
    const { nodeId = '', version = '', graphNodeName = '' } = ctx.params;
    if (!data.nodes.has(nodeId)) return errorBody(ctx.res, 404, 'Node not found');
    const exists = [...data.versions.values()].some((v) => v.node_id === nodeId && v.version === version);
    if (!exists) return errorBody(ctx.res, 404, 'Node version not found');
    const fields = await body(ctx);
    if (!fields) return;
    const problems: string[] = [];
    if (fields.policy !== undefined && !POLICIES.includes(String(fields.policy))) problems.push(`policy must be one of ${POLICIES.join(', ')}`);
    if (fields.output_is_list !== undefined && !(Array.isArray(fields.output_is_list) && fields.output_is_list.every((v) => typeof v === 'boolean'))) problems.push('output_is_list must be an array of booleans');
    for (const flag of ['deprecated', 'experimental']) if (fields[flag] !== undefined && typeof fields[flag] !== 'boolean') problems.push(`${flag} must be a boolean`);
    if (problems.length > 0) return detailsBody(ctx.res, problems);
    const saved = { ...pick(fields, GRAPH_FIELDS), graph_node_name: graphNodeName };
    data.graphNodes.set(`${nodeId}@${version}/${graphNodeName}`, saved);
    return sendJson(ctx.res, 200, saved);
  });
};

function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => source[key] !== undefined).map((key) => [key, source[key]]));
}

function nodeProblems(fields: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (fields.status !== undefined && !NODE_STATUSES.includes(String(fields.status))) problems.push(`status must be one of ${NODE_STATUSES.join(', ')}`);
  for (const key of ['tags', 'tags_admin', 'supported_os', 'supported_accelerators', 'preempted_graph_node_names']) {
    const value = fields[key];
    if (value !== undefined && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) problems.push(`${key} must be an array of strings`);
  }
  for (const key of ['name', 'description', 'author', 'repository', 'license', 'icon', 'banner_url']) {
    if (fields[key] !== undefined && typeof fields[key] !== 'string') problems.push(`${key} must be a string`);
  }
  return problems;
}
