import { Checker, checkIds, path, REQUEST_RULES, rule, type HttpClient, type RequestOptions } from '../core/index.js';
import { body, withOptions } from './checks.js';
import { NodeSchema } from './schemas.js';
import type { Node, NodeParams } from './types.js';

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
   * @throws {ValidationError} when `publisherId` or `node.id` is not an id.
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
   * @throws {ValidationError} when `stars` is not an integer from 1 to 5.
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
}
