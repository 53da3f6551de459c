import { randomUUID } from 'node:crypto';
import type { RouteModule } from '../server/router.js';
import { sendEmpty, sendJson } from '../server/send.js';
import { access, detailsBody, errorBody, pick, type RegistryDeps } from './access.js';
import { versionView } from './data.js';
import { NODE_FIELDS, nodeProblems } from './routes.js';

const VERSION_FIELDS = ['changelog', 'dependencies', 'supported_os', 'supported_accelerators', 'supported_host_version', 'supported_host_frontend_version', 'tags'];
const SEMVER = /^\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$/;

/**
 * Publishing and unpublishing versions. `POST .../versions` takes the personal access token in its
 * body (not a header), creates or updates the node, creates the version and answers a signed
 * upload URL on the files origin; `DELETE .../versions/{versionId}` removes a version. See
 * docs/wire-protocol.md#registry-routes-parameters-and-answers.
 *
 * @example
 * createAreaServer({ ...common, area: 'registry', routes: [mount(publishRoutes, deps)] });
 */
export const publishRoutes: RouteModule<RegistryDeps> = (router, deps) => {
  const { data, packages } = deps;
  const { owner, body } = access(deps);

  router.add('POST', '/publishers/:publisherId/nodes/:nodeId/versions', async (ctx) => {
    const publisherId = ctx.params.publisherId ?? '';
    const nodeId = ctx.params.nodeId ?? '';
    const fields = await body(ctx);
    if (!fields) return;
    if (!data.publishers.has(publisherId)) return errorBody(ctx.res, 404, 'Publisher not found');
    const pat = fields.personal_access_token;
    const valid = typeof pat === 'string' && [...(data.tokens.get(publisherId)?.values() ?? [])].some((t) => t.secret === pat);
    // A real registry has been seen to echo the request body in an error answer, token included.
    if (!valid) return sendJson(ctx.res, 400, { error: 'invalid_token', message: 'Invalid personal access token', request: fields });
    const node = typeof fields.node === 'object' && fields.node !== null ? (fields.node as Record<string, unknown>) : {};
    const version = typeof fields.node_version === 'object' && fields.node_version !== null ? (fields.node_version as Record<string, unknown>) : {};
    const problems = nodeProblems(node);
    if (typeof version.version !== 'string' || !SEMVER.test(version.version)) problems.push('node_version.version must be a semantic version');
    if (problems.length > 0) return detailsBody(ctx.res, problems);
    const existing = data.nodes.get(nodeId);
    if (existing && existing.publisher_id !== publisherId) return errorBody(ctx.res, 403, 'Permission denied');
    if ([...data.versions.values()].some((v) => v.node_id === nodeId && v.version === version.version)) return errorBody(ctx.res, 400, `version ${String(version.version)} already exists`);
    if (existing) Object.assign(existing, pick(node, NODE_FIELDS));
    else {
      data.nodes.set(nodeId, { status: 'NodeStatusActive', tags: [], ...pick(node, NODE_FIELDS), id: nodeId, publisher_id: publisherId, created_at: new Date().toISOString(), downloads: 0, github_stars: 0, search_ranking: 100 });
      data.reviews.set(nodeId, []);
    }
    const id = randomUUID();
    const key = `${nodeId}/${String(version.version)}/${id}.zip`;
    // Published versions are active at once here; a real registry scans them first (pending).
    const created = {
      ...pick(version, VERSION_FIELDS), id, node_id: nodeId, version: version.version, status: 'NodeVersionStatusActive',
      status_reason: '', deprecated: false, createdAt: new Date().toISOString(), downloadUrl: packages.downloadUrl(key), node_extract_status: 'pending',
    };
    data.versions.set(id, created);
    return sendJson(ctx.res, 201, { signedUrl: packages.uploadUrl(key), node_version: versionView(created, true) });
  });

  router.add('DELETE', '/publishers/:publisherId/nodes/:nodeId/versions/:versionId', owner((ctx, _user, publisherId) => {
    const node = data.nodes.get(ctx.params.nodeId ?? '');
    const version = data.versions.get(ctx.params.versionId ?? '');
    if (!node || node.publisher_id !== publisherId || !version || version.node_id !== node.id) return errorBody(ctx.res, 404, 'Node version not found');
    data.versions.delete(String(version.id));
    return sendEmpty(ctx.res, 204);
  }));
};
