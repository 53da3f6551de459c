import { assertOptions, CLIENT_RULES, credentialRule, HttpClient, redactUrl, type ClientOptions, type Credential } from '../core/index.js';
import { GraphNodesResource } from './graph-nodes.js';
import { NodesResource } from './nodes.js';
import { PublishersResource } from './publishers.js';
import { VersionsResource } from './versions.js';

/**
 * Options of `new RegistryClient()`.
 * @example new RegistryClient({ baseUrl: 'https://registry.example.com', token: () => vault.read('registry'), retry: { limit: 3 } });
 */
export interface RegistryClientOptions extends ClientOptions {
  /**
   * Bearer token (JWT) sent as `Authorization: Bearer <token>` to the registry's origin only;
   * a function is called before every request. Reads work without one.
   * @example token: process.env.GRAPHCLOUD_REGISTRY_TOKEN
   */
  token?: Credential | undefined;
}

/**
 * Client of the node registry API: publishers, nodes, versions, graph nodes, reviews, tokens,
 * grouped as resources.
 *
 * @example
 * ```ts
 * import { RegistryClient } from 'graphcloud';
 * await using registry = new RegistryClient({ baseUrl: 'https://registry.example.com', token });
 * const node = await registry.nodes.get('acme-upscale');
 * for await (const v of registry.versions.listAll({ nodeId: node.id })) console.log(v.version);
 * ```
 */
export class RegistryClient {
  readonly baseUrl: string;
  readonly nodes: NodesResource;
  readonly versions: VersionsResource;
  readonly graphNodes: GraphNodesResource;
  readonly publishers: PublishersResource;
  readonly #http: HttpClient;

  constructor(options: RegistryClientOptions) {
    assertOptions('new RegistryClient()', options, { ...CLIENT_RULES, token: credentialRule });
    const { token, ...rest } = options;
    const http = new HttpClient({ ...rest, clientName: 'RegistryClient', auth: token === undefined ? undefined : { scheme: 'bearer', credential: token } });
    this.#http = http;
    this.baseUrl = http.baseUrl;
    this.nodes = new NodesResource(http);
    this.versions = new VersionsResource(http);
    this.graphNodes = new GraphNodesResource(http);
    this.publishers = new PublishersResource(http);
  }

  /**
   * Closes the client: calls in flight reject with `ClientClosedError`, and so does every later call.
   *
   * @example
   * ```ts
   * await registry.close();
   * ```
   */
  async close(): Promise<void> {
    this.#http.close();
  }

  /** `await using registry = new RegistryClient(...)` closes it at the end of the block. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Shows the base URL only: no credential, no internals. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RegistryClient { baseUrl: '${redactUrl(this.baseUrl)}' }`;
  }
}
