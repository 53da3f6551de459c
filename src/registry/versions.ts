import { Checker, checkIds, checkOptions, paginate, path, rule, type HttpClient, type OptionRules, type RequestOptions } from '../core/index.js';
import { body, withOptions } from './checks.js';
import { NodeVersionSchema, VersionPageSchema } from './schemas.js';
import type { ListVersionsParams, NodeVersion, VersionPage, VersionUpdateParams } from './types.js';

/**
 * Largest page size the registry accepts (`400` beyond; docs/wire-protocol.md#registry-routes-parameters-and-answers).
 * @example await registry.versions.list({ pageSize: MAX_PAGE_SIZE });
 */
export const MAX_PAGE_SIZE = 100;

const LIST_RULES: OptionRules = {
  nodeId: rule.string,
  statuses: (check, path, value) => {
    if (value === undefined) return;
    if (!Array.isArray(value)) return check.fail(path, 'an array of NodeVersion statuses', value);
    value.forEach((status: unknown, i) => check.string(`${path}[${i}]`, status, { required: true }));
  },
  page: (check, path, value) => check.integer(path, value, { min: 1 }),
  pageSize: (check, path, value) => check.integer(path, value, { min: 1, max: MAX_PAGE_SIZE }),
  statusReason: rule.string,
  includeStatusReason: rule.boolean,
};

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
    const check = withOptions(new Checker(), options);
    // Filters are checked like options: a misspelled one must not silently list everything.
    checkOptions(check, 'params', params, LIST_RULES);
    check.throwIfInvalid('registry.versions.list()');
    const page = await this.#http.request({
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
    return { ...page, versions: page.versions ?? [] };
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
    // Checked now, not when the loop starts: a bad filter fails where it was written.
    const check = withOptions(new Checker(), options);
    checkOptions(check, 'params', params, LIST_RULES);
    check.throwIfInvalid('registry.versions.listAll()');
    return paginate((page) => this.list({ ...params, page }, options), (result) => result.versions, params.page ?? 1, params.pageSize);
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
  async update(publisherId: string, nodeId: string, versionId: string, params: VersionUpdateParams, options?: RequestOptions): Promise<NodeVersion> {
    const check = withOptions(body('params', params), options);
    check.string('params.changelog', params?.changelog, { allowEmpty: true });
    check.boolean('params.deprecated', params?.deprecated);
    checkIds('registry.versions.update()', { publisherId, nodeId, versionId }, check);
    return this.#http.request({
      method: 'PUT',
      path: path`/publishers/${publisherId}/nodes/${nodeId}/versions/${versionId}`,
      json: params,
      schema: NodeVersionSchema,
      options,
    });
  }
}
