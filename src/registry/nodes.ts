import { Checker, checkIds, paginate, path, REQUEST_RULES, rule, type HttpClient, type RequestOptions } from '../core/index.js';
import { body, checkParams, LIST_NODES_RULES, NODE_VERSIONS_RULES, SEARCH_NODES_RULES, toQuery, withOptions } from './checks.js';
import { NodePageSchema, NodeSchema, NodeVersionListSchema, NodeVersionSchema } from './schemas.js';
import type { ListNodesParams, Node, NodePage, NodeParams, NodeVersion, NodeVersionsParams, SearchNodesParams } from './types.js';

/**
 * Options of `nodes.get()`.
 * @example await registry.nodes.get('acme-upscale', { includeTranslations: true, timeout: 5_000 });
 */
export interface GetNodeOptions extends RequestOptions {
  /** Include `translations` of the node's metadata. */
  includeTranslations?: boolean | undefined;
}

const GET_RULES = { ...REQUEST_RULES, includeTranslations: rule.boolean };

/**
 * Nodes of the registry: `registry.nodes`.
 *
 * @example
 * ```ts
 * const node = await registry.nodes.get('comfy-image-tools');
 * ```
 */
export class NodesResource {
  readonly #http: HttpClient;

  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Creates a node under a publisher you own (`POST /publishers/{publisherId}/nodes`).
   *
   * @throws `ValidationError` when `publisherId` or `node.id` is not an id.
   * @example
   * ```ts
   * await registry.nodes.create('acme', { id: 'acme-upscale', name: 'Acme Upscale', tags: ['image'] });
   * ```
   */
  async create(publisherId: string, node: NodeParams & { id: string }, options?: RequestOptions): Promise<Node> {
    const check = body('node', node);
    check.id('node.id', node?.id);
    checkIds('registry.nodes.create()', { publisherId }, withOptions(check, options));
    return this.#http.request({ method: 'POST', path: path`/publishers/${publisherId}/nodes`, json: node, schema: NodeSchema, options });
  }

  /**
   * Replaces a node's fields (`PUT /publishers/{publisherId}/nodes/{nodeId}`).
   *
   * @example
   * ```ts
   * await registry.nodes.update('acme', 'acme-upscale', { description: 'Faster' });
   * ```
   */
  async update(publisherId: string, nodeId: string, node: NodeParams, options?: RequestOptions): Promise<Node> {
    checkIds('registry.nodes.update()', { publisherId, nodeId }, withOptions(body('node', node), options));
    return this.#http.request({ method: 'PUT', path: path`/publishers/${publisherId}/nodes/${nodeId}`, json: node, schema: NodeSchema, options });
  }

  /**
   * Deletes a node (`DELETE /publishers/{publisherId}/nodes/{nodeId}`, answered `204`).
   *
   * @example
   * ```ts
   * await registry.nodes.delete('acme', 'acme-upscale');
   * ```
   */
  async delete(publisherId: string, nodeId: string, options?: RequestOptions): Promise<void> {
    checkIds('registry.nodes.delete()', { publisherId, nodeId }, withOptions(new Checker(), options));
    await this.#http.request({ method: 'DELETE', path: path`/publishers/${publisherId}/nodes/${nodeId}`, options });
  }

  /**
   * Reads a node (`GET /nodes/{nodeId}`); a redirect to the node's canonical id is followed.
   *
   * @example
   * ```ts
   * const node = await registry.nodes.get('acme-upscale', { includeTranslations: true });
   * ```
   */
  async get(nodeId: string, options?: GetNodeOptions): Promise<Node> {
    checkIds('registry.nodes.get()', { nodeId }, withOptions(new Checker(), options, GET_RULES));
    const { includeTranslations, ...request } = options ?? {};
    return this.#http.request({ method: 'GET', path: path`/nodes/${nodeId}`, query: { include_translations: includeTranslations }, schema: NodeSchema, options: request });
  }

  /**
   * Rates a node with 1 to 5 stars (`POST /nodes/{nodeId}/reviews?star=N`); returns the node with
   * its updated `rating`.
   *
   * @throws `ValidationError` when `stars` is not an integer from 1 to 5.
   * @example
   * ```ts
   * const { rating } = await registry.nodes.review('acme-upscale', 5);
   * ```
   */
  async review(nodeId: string, stars: number, options?: RequestOptions): Promise<Node> {
    const check = withOptions(new Checker(), options);
    check.integer('stars', stars, { min: 1, max: 5, required: true });
    checkIds('registry.nodes.review()', { nodeId }, check);
    return this.#http.request({ method: 'POST', path: path`/nodes/${nodeId}/reviews`, query: { star: stars }, schema: NodeSchema, options });
  }

  /**
   * One page of nodes (`GET /nodes`).
   *
   * @throws `ValidationError` for a `page` below 1, a `limit` that is not a positive integer, or an unknown filter.
   * @example
   * ```ts
   * const { nodes, totalPages } = await registry.nodes.list({ supportedOs: 'linux', limit: 50 });
   * ```
   */
  async list(params: ListNodesParams = {}, options?: RequestOptions): Promise<NodePage> {
    checkParams('registry.nodes.list()', params, LIST_NODES_RULES, options);
    return this.#page('/nodes', toQuery(params ?? {}, LIST_NODES_RULES), options);
  }

  /**
   * Every node of every page, fetched lazily (the next page when the loop reaches it).
   *
   * @example
   * ```ts
   * for await (const node of registry.nodes.listAll({ limit: 100 })) console.log(node.id);
   * ```
   */
  listAll(params: ListNodesParams = {}, options?: RequestOptions): AsyncIterable<Node> {
    checkParams('registry.nodes.listAll()', params, LIST_NODES_RULES, options);
    return paginate((page) => this.list({ ...params, page }, options), (result) => result.nodes, params.page ?? 1, params.limit);
  }

  /**
   * One page of a node search (`GET /nodes/search`).
   *
   * @example
   * ```ts
   * const { nodes } = await registry.nodes.search({ search: 'upscale', limit: 20 });
   * ```
   */
  async search(params: SearchNodesParams, options?: RequestOptions): Promise<NodePage> {
    checkParams('registry.nodes.search()', params, SEARCH_NODES_RULES, options);
    return this.#page('/nodes/search', toQuery(params, SEARCH_NODES_RULES), options);
  }

  /**
   * Every node a search finds, page after page, fetched lazily.
   *
   * @example
   * ```ts
   * for await (const node of registry.nodes.searchAll({ search: 'video' })) console.log(node.name);
   * ```
   */
  searchAll(params: SearchNodesParams, options?: RequestOptions): AsyncIterable<Node> {
    checkParams('registry.nodes.searchAll()', params, SEARCH_NODES_RULES, options);
    return paginate((page) => this.search({ ...params, page }, options), (result) => result.nodes, params.page ?? 1, params.limit);
  }

  /**
   * Every version of one node (`GET /nodes/{nodeId}/versions`, one plain list).
   *
   * @example
   * ```ts
   * const versions = await registry.nodes.versions('acme-upscale', { statuses: ['NodeVersionStatusActive'] });
   * ```
   */
  async versions(nodeId: string, params: NodeVersionsParams = {}, options?: RequestOptions): Promise<NodeVersion[]> {
    const check = new Checker();
    check.id('nodeId', nodeId);
    checkParams('registry.nodes.versions()', params, NODE_VERSIONS_RULES, options, check);
    const query = toQuery(params, NODE_VERSIONS_RULES);
    return this.#http.request({ method: 'GET', path: path`/nodes/${nodeId}/versions`, query, schema: NodeVersionListSchema, options });
  }

  /**
   * One version of a node, by its semantic version (`GET /nodes/{nodeId}/versions/{version}`):
   * the way to find the version's `id`, which `versions.update()` and `versions.delete()` take.
   *
   * @example
   * ```ts
   * const { id } = await registry.nodes.version('acme-upscale', '1.2.0');
   * ```
   */
  async version(nodeId: string, version: string, options?: RequestOptions): Promise<NodeVersion> {
    checkIds('registry.nodes.version()', { nodeId, version }, withOptions(new Checker(), options));
    return this.#http.request({ method: 'GET', path: path`/nodes/${nodeId}/versions/${version}`, schema: NodeVersionSchema, options });
  }

  /**
   * The version to install (`GET /nodes/{nodeId}/install`): the latest one, or the given
   * semantic version, with its `downloadUrl`.
   *
   * @example
   * ```ts
   * const { downloadUrl } = await registry.nodes.install('acme-upscale', { version: '1.2.0' });
   * ```
   */
  async install(nodeId: string, options: RequestOptions & { version?: string | undefined } = {}): Promise<NodeVersion> {
    const check = withOptions(new Checker(), options, { ...REQUEST_RULES, version: rule.string });
    checkIds('registry.nodes.install()', { nodeId }, check);
    const { version, ...request } = options ?? {};
    return this.#http.request({ method: 'GET', path: path`/nodes/${nodeId}/install`, query: { version }, schema: NodeVersionSchema, options: request });
  }

  async #page(route: string, query: ReturnType<typeof toQuery>, options: RequestOptions | undefined): Promise<NodePage> {
    const page = await this.#http.request({ method: 'GET', path: route, query, schema: NodePageSchema, options });
    return { ...page, nodes: page.nodes ?? [] };
  }
}
