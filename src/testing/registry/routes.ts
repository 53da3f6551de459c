import { queryBoolean } from '../server/request.js';
import type { RouteModule } from '../server/router.js';
import { sendEmpty, sendJson } from '../server/send.js';
import { access, detailsBody, errorBody, pageOf, paging, pick, type RegistryDeps } from './access.js';
import { nodeView, VERSION_STATUSES, versionView, type RegistryData } from './data.js';

/**
 * Page size limits of `GET /versions`; see docs/wire-protocol.md#registry-routes-parameters-and-answers.
 *
 * @example
 * VERSIONS_PAGING.maxPageSize; // 100
 */
export const VERSIONS_PAGING = Object.freeze({ defaultPageSize: 10, maxPageSize: 100 });

const NODE_STATUSES = ['NodeStatusActive', 'NodeStatusDeleted', 'NodeStatusBanned'];
const POLICIES = ['GraphNodePolicyActive', 'GraphNodePolicyBanned', 'GraphNodePolicyLocalOnly'];
/** Node fields a publisher may write. */
export const NODE_FIELDS = [
  'author', 'banner_url', 'category', 'description', 'icon', 'license', 'name', 'repository', 'status', 'status_detail',
  'supported_host_frontend_version', 'supported_host_version', 'tags', 'tags_admin', 'supported_os',
  'supported_accelerators', 'preempted_graph_node_names', 'translations',
];
const GRAPH_FIELDS = ['category', 'deprecated', 'description', 'experimental', 'function', 'input_types', 'output_is_list', 'policy', 'return_names', 'return_types'];

/**
 * The node registry's routes of nodes: listing and search, reads, reviews, versions, graph nodes,
 * and the publisher's node writes. Publishers and tokens are in `publisher-routes.ts`, publishing
 * in `publish-routes.ts`.
 *
 * @example
 * createAreaServer({ ...common, area: 'registry', routes: [mount(registryRoutes, deps), mount(publisherRoutes, deps), mount(publishRoutes, deps)] });
 */
export const registryRoutes: RouteModule<RegistryDeps> = (router, deps) => {
  const { data } = deps;
  const { owner, body } = access(deps);

  // Listing and search come before /nodes/:nodeId, which would take "search" for a node id.
  router.add('GET', '/nodes', ({ res, url }) => {
    const q = url.searchParams;
    const page = paging(q);
    if (!page) return errorBody(res, 400, 'page and limit must be positive integers');
    const ids = q.getAll('node_id');
    const found = listable(data, q).filter((node) => ids.length === 0 || ids.includes(String(node.id)));
    const { items, ...rest } = pageOf(found, page.page, page.limit);
    return sendJson(res, 200, { ...rest, nodes: items.map((node) => nodeView(data, node, false)) });
  });
  router.add('GET', '/nodes/search', ({ res, url }) => {
    const q = url.searchParams;
    const page = paging(q);
    if (!page) return errorBody(res, 400, 'page and limit must be positive integers');
    const text = q.get('search')?.toLowerCase();
    const repo = q.get('repository_url_search')?.toLowerCase();
    const graph = q.get('comfy_node_search')?.toLowerCase();
    const found = listable(data, q).filter((node) => {
      if (text && !`${String(node.id)} ${String(node.name)} ${String(node.description)}`.toLowerCase().includes(text)) return false;
      if (repo && !String(node.repository).toLowerCase().includes(repo)) return false;
      if (graph && ![...data.graphNodes.keys()].some((key) => key.startsWith(`${String(node.id)}@`) && key.toLowerCase().includes(graph))) return false;
      return true;
    });
    const { items, ...rest } = pageOf(found, page.page, page.limit);
    return sendJson(res, 200, { ...rest, nodes: items.map((node) => nodeView(data, node, false)) });
  });

  router.add('GET', '/nodes/:nodeId/versions', ({ res, params, url }) => {
    const node = data.nodes.get(params.nodeId ?? '');
    if (!node) return errorBody(res, 404, 'Node not found');
    const statuses = url.searchParams.getAll('statuses');
    const withReason = queryBoolean(url.searchParams.get('include_status_reason')) === true;
    const versions = versionsOf(data, String(node.id)).filter((v) => statuses.length === 0 || statuses.includes(String(v.status)));
    return sendJson(res, 200, versions.map((v) => versionView(v, withReason)));
  });
  // By its semantic version, not its id (docs/wire-protocol.md#registry-routes-parameters-and-answers).
  router.add('GET', '/nodes/:nodeId/versions/:version', ({ res, params }) => {
    const found = versionsOf(data, params.nodeId ?? '').find((v) => v.version === params.version);
    return found ? sendJson(res, 200, versionView(found, true)) : errorBody(res, 404, 'Node version not found');
  });
  router.add('GET', '/nodes/:nodeId/install', ({ res, params, url }) => {
    const wanted = url.searchParams.get('version');
    const versions = versionsOf(data, params.nodeId ?? '').filter((v) => (wanted ? v.version === wanted : v.status === 'NodeVersionStatusActive'));
    const found = versions[0];
    if (!found) return errorBody(res, 404, wanted ? `Version ${wanted} not found` : 'No installable version');
    return sendJson(res, 200, versionView(found, false));
  });

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

// Nodes a listing may show: banned ones only when asked, filtered by OS and accelerator.
function listable(data: RegistryData, q: URLSearchParams): Record<string, unknown>[] {
  const os = q.get('supported_os');
  const accelerator = q.get('supported_accelerator');
  const banned = queryBoolean(q.get('include_banned')) === true;
  return [...data.nodes.values()]
    .filter((node) => banned || node.status !== 'NodeStatusBanned')
    .filter((node) => !os || (Array.isArray(node.supported_os) && node.supported_os.includes(os)))
    .filter((node) => !accelerator || (Array.isArray(node.supported_accelerators) && node.supported_accelerators.includes(accelerator)))
    .sort((a, b) => Number(a.search_ranking ?? 0) - Number(b.search_ranking ?? 0));
}

/**
 * The versions of one node, newest first.
 *
 * @example
 * versionsOf(data, 'demo-node')[0]?.version;
 */
export function versionsOf(data: RegistryData, nodeId: string): Record<string, unknown>[] {
  return [...data.versions.values()].filter((v) => v.node_id === nodeId).sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)));
}

/** What is wrong with the node fields of a request body (empty when nothing). */
export function nodeProblems(fields: Record<string, unknown>): string[] {
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
