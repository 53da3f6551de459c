import { Checker, paginate, path, type HttpClient, type RequestOptions } from '../core/index.js';
import { ids } from './nodes.js';
import { NodeVersionSchema, VersionPageSchema } from './schemas.js';
import type { ListVersionsParams, NodeVersion, VersionPage, VersionUpdateParams } from './types.js';

/**
 * Largest page size the registry accepts (wire-facts: `400` beyond).
 * @example await registry.versions.list({ pageSize: MAX_PAGE_SIZE });
 */
export const MAX_PAGE_SIZE = 100;

/**
 * Node versions of the registry: `registry.versions`.
 *
 * @example
 * ```ts
 * for await (const version of registry.versions.listAll({ nodeId: 'acme-upscale' })) console.log(version.version);
 * ```
 */
export class VersionsResource {
  readonly #http: HttpClient;

  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Reads one page of versions (`GET /versions`).
   *
   * @throws {ValidationError} for a page below 1 or a page size outside 1 to 100.
   * @example
   * ```ts
   * const { versions, totalPages } = await registry.versions.list({ statuses: ['NodeVersionStatusFlagged'], pageSize: 50 });
   * ```
   */
  async list(params: ListVersionsParams = {}, options?: RequestOptions): Promise<VersionPage> {
    const check = new Checker();
    check.integer('page', params.page, { min: 1 });
    check.integer('pageSize', params.pageSize, { min: 1, max: MAX_PAGE_SIZE });
    check.string('nodeId', params.nodeId);
    if (params.statuses !== undefined && !Array.isArray(params.statuses)) check.fail('statuses', 'an array of NodeVersion statuses', params.statuses);
    check.boolean('includeStatusReason', params.includeStatusReason);
    check.throwIfInvalid('registry.versions.list()');
    return this.#http.request({
      method: 'GET',
      path: '/versions',
      query: {
        nodeId: params.nodeId,
        statuses: params.statuses,
        page: params.page,
        pageSize: params.pageSize,
        status_reason: params.statusReason,
        include_status_reason: params.includeStatusReason,
      },
      schema: VersionPageSchema,
      options,
    });
  }

  /**
   * Every version of every page, fetched lazily: a page is requested when the loop reaches it.
   * Starts at `params.page` (default 1).
   *
   * @example
   * ```ts
   * for await (const v of registry.versions.listAll({ statuses: ['NodeVersionStatusPending'], pageSize: 100 })) {
   *   if (v.version === '1.0.0') break; // no further page is fetched
   * }
   * ```
   */
  listAll(params: ListVersionsParams = {}, options?: RequestOptions): AsyncIterable<NodeVersion> {
    return paginate((page) => this.list({ ...params, page }, options), (result) => result.versions, params.page ?? 1);
  }

  /**
   * Updates a version's changelog or deprecation (`PUT .../versions/{versionId}`). `versionId` is the
   * version's `id` (a UUID), not its semantic version.
   *
   * @example
   * ```ts
   * await registry.versions.update('acme', 'acme-upscale', version.id, { deprecated: true });
   * ```
   */
  async update(publisherId: string, nodeId: string, versionId: string, body: VersionUpdateParams, options?: RequestOptions): Promise<NodeVersion> {
    ids('registry.versions.update()', { publisherId, nodeId, versionId });
    const check = new Checker();
    check.string('changelog', body?.changelog, { allowEmpty: true });
    check.boolean('deprecated', body?.deprecated);
    check.throwIfInvalid('registry.versions.update()');
    return this.#http.request({
      method: 'PUT',
      path: path`/publishers/${publisherId}/nodes/${nodeId}/versions/${versionId}`,
      json: body,
      schema: NodeVersionSchema,
      options,
    });
  }
}
