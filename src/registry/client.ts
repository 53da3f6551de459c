/// <reference lib="esnext.disposable" preserve="true" />
import { Checker, checkOptions, CLIENT_RULES, credentialRule, HttpClient, redactUrl, type ClientOptions, type Credential } from '../core/index.js';
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
 * for await (const v of registry.versions.listAll({ nodeId: 'acme-upscale' })) console.log(v.version);
 * ```
 */
export class RegistryClient {
  /** The API's base URL without its trailing slashes (a path such as `/api/graphcloud` resolved against the page). */
  readonly baseUrl: string;
  /** Nodes: `create()`, `update()`, `delete()`, `get()`, `review()`, `list()`, `search()`, `versions()`, `version()`, `install()`. */
  readonly nodes: NodesResource;
  /** Node versions: `list()`, `update()`, `delete()`, `publish()`, `uploadPackage()`. */
  readonly versions: VersionsResource;
  /** Per-version metadata of graph nodes: `update()`. */
  readonly graphNodes: GraphNodesResource;
  /** Publishers and their tokens: `create()`, `list()`, `mine()`, `get()`, `update()`, `delete()`, `isAvailable()`, `nodes()`, `permissions()`, `createToken()`, `listTokens()`, `deleteToken()`. */
  readonly publishers: PublishersResource;
  readonly #http: HttpClient;

  constructor(options: RegistryClientOptions) {
    const check = new Checker();
    if (checkOptions(check, 'options', options, { ...CLIENT_RULES, token: credentialRule })) {
      if (options.baseUrl === undefined) check.fail('options.baseUrl', 'required: an absolute http(s) URL such as https://api.example.com', undefined);
    } else if (options === undefined) {
      check.fail('options', 'required: { baseUrl, token? }', options);
    }
    check.throwIfInvalid('new RegistryClient()');
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
  /** A custom node in the registry. */
  export type Node = import('./types.js').Node;
  /** A published node version. */
  export type NodeVersion = import('./types.js').NodeVersion;
  /** A publisher of nodes. */
  export type Publisher = import('./types.js').Publisher;
  /** A member of a publisher. */
  export type PublisherMember = import('./types.js').PublisherMember;
  /** Per-version metadata of one graph node. */
  export type GraphNode = import('./types.js').GraphNode;
  /** One page of `registry.nodes.list()` or `search()`. */
  export type NodePage = import('./types.js').NodePage;
  /** One page of `registry.versions.list()`. */
  export type VersionPage = import('./types.js').VersionPage;
  /** The writable fields of a node. */
  export type NodeParams = import('./types.js').NodeParams;
  /** The writable fields of a publisher. */
  export type PublisherParams = import('./types.js').PublisherParams;
  /** The writable fields of a graph node. */
  export type GraphNodeParams = import('./types.js').GraphNodeParams;
  /** Body of `registry.versions.update()`. */
  export type VersionUpdateParams = import('./types.js').VersionUpdateParams;
  /** Filters of `registry.nodes.list()`. */
  export type ListNodesParams = import('./types.js').ListNodesParams;
  /** Filters of `registry.nodes.search()`. */
  export type SearchNodesParams = import('./types.js').SearchNodesParams;
  /** Filters of `registry.versions.list()`. */
  export type ListVersionsParams = import('./types.js').ListVersionsParams;
  /** Filters of `registry.nodes.versions()`. */
  export type NodeVersionsParams = import('./types.js').NodeVersionsParams;
  /** What the caller may do with a publisher. */
  export type PublisherPermissions = import('./types.js').PublisherPermissions;
  /** A personal access token as listed (without its secret). */
  export type PersonalAccessToken = import('./types.js').PersonalAccessToken;
  /** Body of `registry.publishers.createToken()`. */
  export type CreateTokenParams = import('./types.js').CreateTokenParams;
  /** A token just created: its secret, shown once. */
  export type CreatedToken = import('./types.js').CreatedToken;
  /** What `registry.versions.publish()` sends. */
  export type PublishVersionParams = import('./types.js').PublishVersionParams;
  /** A node's status. */
  export type NodeStatus = import('./types.js').NodeStatus;
  /** A node version's status. */
  export type NodeVersionStatus = import('./types.js').NodeVersionStatus;
  /** A publisher's status. */
  export type PublisherStatus = import('./types.js').PublisherStatus;
  /** A graph node's policy. */
  export type GraphNodePolicy = import('./types.js').GraphNodePolicy;
  /** Options of `registry.nodes.get()`. */
  export type GetNodeOptions = import('./nodes.js').GetNodeOptions;
}
