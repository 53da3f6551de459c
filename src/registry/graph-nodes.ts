import { checkIds, path, type HttpClient, type RequestOptions } from '../core/index.js';
import { body, withOptions } from './checks.js';
import { GraphNodeSchema } from './schemas.js';
import type { GraphNode, GraphNodeParams } from './types.js';

/**
 * Graph-node metadata of node versions: `registry.graphNodes`.
 *
 * @example
 * ```ts
 * await registry.graphNodes.update('acme-upscale', '1.2.0', 'AcmeUpscale', { category: 'image/upscale' });
 * ```
 */
export class GraphNodesResource {
  readonly #http: HttpClient;

  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Sets the metadata of one graph node of a version
   * (`PUT /nodes/{nodeId}/versions/{version}/graph-nodes/{graphNodeName}`).
   *
   * @example
   * ```ts
   * const graphNode = await registry.graphNodes.update('acme-upscale', '1.2.0', 'AcmeUpscale', { policy: 'GraphNodePolicyActive' });
   * console.log(graphNode.graph_node_name);
   * ```
   */
  async update(nodeId: string, version: string, graphNodeName: string, params: GraphNodeParams, options?: RequestOptions): Promise<GraphNode> {
    checkIds('registry.graphNodes.update()', { nodeId, version, graphNodeName }, withOptions(body('params', params), options));
    return this.#http.request({
      method: 'PUT',
      path: path`/nodes/${nodeId}/versions/${version}/graph-nodes/${graphNodeName}`,
      json: params,
      schema: GraphNodeSchema,
      options,
    });
  }
}
