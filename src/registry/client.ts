/// <reference lib="esnext.disposable" preserve="true" />
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

/**
 * The types of the registry client, as `RegistryClient.<Name>` (types only, nothing at run time).
 *
 * @example
 * ```ts
 * const node: RegistryClient.Node = await registry.nodes.get('acme-upscale');
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace RegistryClient {
  /** Options of `new RegistryClient()`. */
  export type Options = RegistryClientOptions;
  export type Node = import('./types.js').Node;
  export type NodeVersion = import('./types.js').NodeVersion;
  export type Publisher = import('./types.js').Publisher;
  export type PublisherMember = import('./types.js').PublisherMember;
  export type GraphNode = import('./types.js').GraphNode;
  export type NodePage = import('./types.js').NodePage;
  export type VersionPage = import('./types.js').VersionPage;
  export type NodeParams = import('./types.js').NodeParams;
  export type PublisherParams = import('./types.js').PublisherParams;
  export type GraphNodeParams = import('./types.js').GraphNodeParams;
  export type VersionUpdateParams = import('./types.js').VersionUpdateParams;
  export type ListNodesParams = import('./types.js').ListNodesParams;
  export type SearchNodesParams = import('./types.js').SearchNodesParams;
  export type ListVersionsParams = import('./types.js').ListVersionsParams;
  export type NodeVersionsParams = import('./types.js').NodeVersionsParams;
  export type PublisherPermissions = import('./types.js').PublisherPermissions;
  export type PersonalAccessToken = import('./types.js').PersonalAccessToken;
  export type CreateTokenParams = import('./types.js').CreateTokenParams;
  export type CreatedToken = import('./types.js').CreatedToken;
  export type PublishVersionParams = import('./types.js').PublishVersionParams;
  export type NodeStatus = import('./types.js').NodeStatus;
  export type NodeVersionStatus = import('./types.js').NodeVersionStatus;
  export type PublisherStatus = import('./types.js').PublisherStatus;
  export type GraphNodePolicy = import('./types.js').GraphNodePolicy;
  export type GetNodeOptions = import('./nodes.js').GetNodeOptions;
}
