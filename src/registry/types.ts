import type { FileInput } from '../core/index.js';

/**
 * Documented `Node.status` values.
 * @example if (node.status && !NODE_STATUSES.includes(node.status as never)) console.log('new status', node.status);
 */
export const NODE_STATUSES = ['NodeStatusActive', 'NodeStatusDeleted', 'NodeStatusBanned'] as const;
/**
 * Documented `NodeVersion.status` values.
 * @example await registry.versions.list({ statuses: NODE_VERSION_STATUSES.filter((s) => s !== 'NodeVersionStatusDeleted') });
 */
export const NODE_VERSION_STATUSES = ['NodeVersionStatusActive', 'NodeVersionStatusDeleted', 'NodeVersionStatusBanned', 'NodeVersionStatusPending', 'NodeVersionStatusFlagged'] as const;
/**
 * Documented `Publisher.status` values.
 * @example PUBLISHER_STATUSES.includes('PublisherStatusBanned'); // true
 */
export const PUBLISHER_STATUSES = ['PublisherStatusActive', 'PublisherStatusBanned'] as const;
/**
 * Documented `GraphNode.policy` values.
 * @example await registry.graphNodes.update(nodeId, '1.0.0', 'MyNode', { policy: GRAPH_NODE_POLICIES[2] }); // LocalOnly
 */
export const GRAPH_NODE_POLICIES = ['GraphNodePolicyActive', 'GraphNodePolicyBanned', 'GraphNodePolicyLocalOnly'] as const;
/**
 * Publisher member roles in use (docs/wire-protocol.md#registry-routes-parameters-and-answers): only owners may write.
 * @example const owners = publisher.members?.filter((m) => m.role === PUBLISHER_ROLES[0]);
 */
export const PUBLISHER_ROLES = ['owner', 'member'] as const;

// Each of these is a documented value or a newer one the server added (kept, never rejected);
// `string & {}` keeps the documented values in editors' completions.
/**
 * A node's `status`: a documented value ({@link NODE_STATUSES}) or a newer one the server sends.
 * @example const status: NodeStatus = 'NodeStatusActive';
 */
export type NodeStatus = (typeof NODE_STATUSES)[number] | (string & {});
/**
 * A node version's `status`: a documented value ({@link NODE_VERSION_STATUSES}) or a newer one.
 * @example const statuses: NodeVersionStatus[] = ['NodeVersionStatusFlagged', 'NodeVersionStatusPending'];
 */
export type NodeVersionStatus = (typeof NODE_VERSION_STATUSES)[number] | (string & {});
/**
 * A publisher's `status`: a documented value ({@link PUBLISHER_STATUSES}) or a newer one.
 * @example const status: PublisherStatus = 'PublisherStatusActive';
 */
export type PublisherStatus = (typeof PUBLISHER_STATUSES)[number] | (string & {});
/**
 * A graph node's `policy`: a documented value ({@link GRAPH_NODE_POLICIES}) or a newer one.
 * @example const policy: GraphNodePolicy = 'GraphNodePolicyLocalOnly';
 */
export type GraphNodePolicy = (typeof GRAPH_NODE_POLICIES)[number] | (string & {});
/**
 * A publisher member's `role`: `owner`, `member`, or a newer one.
 * @example const canWrite = (role: PublisherRole | null | undefined) => role === 'owner';
 */
export type PublisherRole = (typeof PUBLISHER_ROLES)[number] | (string & {});

/**
 * What a node and a node version both declare: the hosts they support, and their tags.
 * @example const runsOnMac = node.supported_os?.includes('darwin') ?? true;
 */
export interface SupportAndTags {
  /** Accelerator kinds supported. */
  supported_accelerators?: string[] | null;
  /** Supported frontend versions. */
  supported_host_frontend_version?: string | null;
  /** Supported runtime versions. */
  supported_host_version?: string | null;
  /** Operating systems supported. */
  supported_os?: string[] | null;
  /** Free-form tags (`image`, `video`...). */
  tags?: string[] | null;
  /** Admin-only tags (security warnings, admin metadata). */
  tags_admin?: string[] | null;
}

/**
 * A published node version. Wire names are kept (`createdAt`, `downloadUrl` beside snake_case).
 * @example
 * ```ts
 * const { versions } = await registry.versions.list({ nodeId: 'acme-upscale' });
 * for (const v of versions) console.log(v.version, v.status, v.downloadUrl);
 * ```
 */
export interface NodeVersion extends SupportAndTags {
  /** The version's id (a UUID): what `versions.update()` takes. Optional in the published schema. */
  id?: string | null;
  /** Semantic version, unique per node. */
  version?: string | null;
  /** The id of the node this is a version of. */
  node_id?: string | null;
  /** Summary of changes in the version. */
  changelog?: string | null;
  /** Where the registry is in reading the package's graph nodes (a status text; `undefined` before it starts). */
  node_extract_status?: string | null;
  /** When the version was published, an ISO 8601 date-time. */
  createdAt?: string | null;
  /** The Python requirements the version installs (pip specifiers). */
  dependencies?: string[] | null;
  /** True when the author marked the version deprecated. */
  deprecated?: boolean | null;
  /** Output only: where to download the version. */
  downloadUrl?: string | null;
  /** The version's review status: `NodeVersionStatusActive`, `...Pending`, `...Flagged`, `...Banned`, `...Deleted`, or a newer value. */
  status?: NodeVersionStatus | null;
  /** Why the version has its status, when the registry says (`includeStatusReason`). */
  status_reason?: string | null;
  [field: string]: unknown;
}

/**
 * A member of a publisher.
 * @example const emails = publisher.members?.map((m) => m.user?.email) ?? [];
 */
export interface PublisherMember {
  /** The membership's id. */
  id?: string | null;
  /** `owner` (may write) or `member`, or a newer role. */
  role?: PublisherRole | null;
  /** The member's account. */
  user?: {
    /** The user's id. */
    id?: string | null;
    /** The user's name. */
    name?: string | null;
    /** The user's e-mail address. */
    email?: string | null;
    /** Any other field the registry sends, kept as it is. */
    [field: string]: unknown;
  } | null;
  [field: string]: unknown;
}

/**
 * A publisher of nodes.
 * @example
 * ```ts
 * const publisher: Publisher = await registry.publishers.create({ id: 'acme', name: 'Acme' });
 * ```
 */
export interface Publisher extends PublisherFields<null> {
  /** Unique, akin to a username; should be lowercase. Optional in the published schema. */
  id?: string | null;
  /** When the publisher was created, an ISO 8601 date-time. */
  createdAt?: string | null;
  /** The people who may act for the publisher, with their roles. */
  members?: PublisherMember[] | null;
  /** `PublisherStatusActive`, `PublisherStatusBanned`, or a newer value. */
  status?: PublisherStatus | null;
  [field: string]: unknown;
}

/**
 * The fields of a publisher that a caller writes ({@link PublisherParams}) and reads
 * ({@link Publisher}, where `Empty` is `null`: the registry sends `null` for an empty field).
 * @example const fields: PublisherFields = { name: 'Acme', website: 'https://acme.test' };
 */
export interface PublisherFields<Empty = never> {
  /** The display name. */
  name?: string | Empty;
  /** What the publisher is. */
  description?: string | Empty;
  /** URL of the logo. */
  logo?: string | Empty;
  /** URL of the publisher's source code (an organisation on a code host). */
  source_code_repo?: string | Empty;
  /** Where users get help: an e-mail address or a URL. */
  support?: string | Empty;
  /** URL of the publisher's website. */
  website?: string | Empty;
}

/**
 * A custom node in the registry.
 * @example
 * ```ts
 * const node: Node = await registry.nodes.get('acme-upscale');
 * console.log(node.name, node.rating, node.latest_version?.version);
 * ```
 */
export interface Node extends NodeFields<null> {
  /** Unique node id. Optional in the published schema. */
  id?: string | null;
  /** When the node was created, an ISO 8601 date-time. */
  created_at?: string | null;
  /** How many times the node was installed. */
  downloads?: number | null;
  /** Stars of the source repository. */
  github_stars?: number | null;
  /** The newest published version (with `latest: true` in listings). */
  latest_version?: NodeVersion | null;
  /** The publisher that owns the node. */
  publisher?: Publisher | null;
  /** Average rating. */
  rating?: number | null;
  /** The registry's ranking weight in search results (higher first). */
  search_ranking?: number | null;
  /** Translations of the node's metadata; the shape is not documented, so it is kept as sent. */
  translations?: Record<string, unknown> | null;
  [field: string]: unknown;
}

/**
 * The fields of a node that a caller writes ({@link NodeParams}) and reads ({@link Node}, where
 * `Empty` is `null`: the registry sends `null` for an empty field).
 * @example const fields: NodeFields = { name: 'Acme Upscale', license: 'LICENSE' };
 */
export interface NodeFields<Empty = never> extends SupportAndTags {
  /** The display name. */
  name?: string | Empty;
  /** The author's name. */
  author?: string | Empty;
  /** URL of the banner image shown on the node's page. */
  banner_url?: string | Empty;
  /** @deprecated Use `tags`; the field will be removed from the API. */
  category?: string | Empty;
  /** What the node pack does. */
  description?: string | Empty;
  /** URL of the node's icon. */
  icon?: string | Empty;
  /** Path to the LICENSE file in the node's repository. */
  license?: string | Empty;
  /** Names of graph nodes of other packs that this node's graph nodes take precedence over when a workflow names them. */
  preempted_graph_node_names?: string[] | Empty;
  /** URL of the source repository. */
  repository?: string | Empty;
  /** The node's status in the registry: `NodeStatusActive`, `NodeStatusDeleted`, `NodeStatusBanned`, or a newer value. */
  status?: NodeStatus | Empty;
  /** Why the node has its status (the reason of a ban...), when the registry says. */
  status_detail?: string | Empty;
}

/**
 * Per-version metadata of one graph node (a node class a version provides).
 * @example
 * ```ts
 * const graphNode: GraphNode = await registry.graphNodes.update('acme-upscale', '1.2.0', 'AcmeUpscale', { category: 'image' });
 * ```
 */
export interface GraphNode extends GraphNodeFields<null> {
  /** The graph node's name (in the answer only). Optional in the published schema. */
  graph_node_name?: string | null;
  [field: string]: unknown;
}

/**
 * One page of `GET /versions`.
 * @example const { versions, page, totalPages }: VersionPage = await registry.versions.list({ page: 2 });
 */
export interface VersionPage {
  /** This page's number, from 1. */
  page?: number | null;
  /** Versions per page. */
  pageSize?: number | null;
  /** Versions matching the filters, across every page. */
  total?: number | null;
  /** How many pages the filters give. */
  totalPages?: number | null;
  /** The versions of this page (empty when the server sent none). */
  versions: NodeVersion[];
}

/**
 * Body of `nodes.create()` / `nodes.update()`: the writable Node fields (`id` is required to
 * create). Fields a newer server accepts can be added; they are sent as given.
 * @example const params: NodeParams = { id: 'acme-upscale', name: 'Acme Upscale', tags: ['image'] };
 */
export interface NodeParams extends NodeFields {
  /** The node's unique id (lowercase, as in `acme-upscale`); required to create. */
  id?: string;
  /** Translations of the node's metadata, by language; sent as given. */
  translations?: Record<string, unknown>;
  [field: string]: unknown;
}
/**
 * Body of `publishers.create()`: the writable Publisher fields; `id` is required.
 * @example const params: PublisherParams = { id: 'acme', name: 'Acme', website: 'https://acme.test' };
 */
export interface PublisherParams extends PublisherFields {
  /** Unique, akin to a username; should be lowercase. */
  id: string;
  [field: string]: unknown;
}
/**
 * Body of `graphNodes.update()`: a graph node's writable fields (`graph_node_name` is in the path).
 * @example const params: GraphNodeParams = { category: 'image/upscale', deprecated: false };
 */
export interface GraphNodeParams extends GraphNodeFields {
  [field: string]: unknown;
}

/**
 * The fields of a graph node that a caller writes ({@link GraphNodeParams}) and reads
 * ({@link GraphNode}, where `Empty` is `null`: the registry sends `null` for an empty field).
 * @example const fields: GraphNodeFields = { category: 'image/upscale', deprecated: false };
 */
export interface GraphNodeFields<Empty = never> {
  /** The menu path the web UI files the node under (`image/upscaling`). */
  category?: string | Empty;
  /** True when the node is kept only for old workflows; the web UI hides deprecated nodes. */
  deprecated?: boolean | Empty;
  /** What the node does, in its author's words. */
  description?: string | Empty;
  /** True when the node may still change or be removed. */
  experimental?: boolean | Empty;
  /** The name of the Python method that runs the node (its `FUNCTION`). */
  function?: string | Empty;
  /** The node's inputs (its `INPUT_TYPES`), as a JSON text. */
  input_types?: string | Empty;
  /** For each output, whether it yields a list rather than one value. */
  output_is_list?: boolean[] | Empty;
  /**
   * Whether the graph node may be used: `GraphNodePolicyActive`, `GraphNodePolicyBanned`,
   * `GraphNodePolicyLocalOnly` (local runtimes only), or a newer value.
   */
  policy?: GraphNodePolicy | Empty;
  /** The outputs' display names, as a JSON text. */
  return_names?: string | Empty;
  /** The outputs' types (`IMAGE`...), as a JSON text. */
  return_types?: string | Empty;
}
/**
 * Body of `versions.update()`.
 * @example const params: VersionUpdateParams = { changelog: 'Fix a crash', deprecated: false };
 */
export interface VersionUpdateParams {
  /** The new summary of changes of the version. */
  changelog?: string;
  /** Mark the version deprecated (`true`) or not. */
  deprecated?: boolean;
}

/**
 * Filters of `versions.list()`, mapped to the wire's query names.
 * @example const params: ListVersionsParams = { nodeId: 'acme-upscale', statuses: ['NodeVersionStatusActive'], pageSize: 100 };
 */
export interface ListVersionsParams extends NodeVersionsParams {
  /** Only versions of this node (`nodeId`). */
  nodeId?: string;
  /** 1-based page number (`page`). @default 1 */
  page?: number;
  /** Items per page, 1 to 100 (`pageSize`). @default 10 */
  pageSize?: number;
  /** Case-insensitive search in `status_reason` (`status_reason`). */
  statusReason?: string;
}

/**
 * One page of `nodes.list()` or `nodes.search()`.
 * @example const { nodes, totalPages }: NodePage = await registry.nodes.search({ search: 'upscale' });
 */
export interface NodePage {
  /** Nodes matching the filters, across every page. */
  total?: number | null;
  /** This page's number, from 1. */
  page?: number | null;
  /** Nodes per page. */
  limit?: number | null;
  /** How many pages the filters give. */
  totalPages?: number | null;
  /** The nodes of this page (empty when the server sent none). */
  nodes: Node[];
}

/**
 * Filters of `nodes.list()`, mapped to the wire's query names.
 * @example const params: ListNodesParams = { supportedOs: 'linux', includeBanned: false, limit: 100 };
 */
export interface ListNodesParams {
  /** 1-based page number. @default 1 */
  page?: number | undefined;
  /** Items per page, a positive integer. @default 10 (the registry's) */
  limit?: number | undefined;
  /** Only nodes for this operating system (`supported_os`). */
  supportedOs?: string | undefined;
  /** Only nodes for this accelerator (`supported_accelerator`). */
  supportedAccelerator?: string | undefined;
  /** Include banned nodes (`include_banned`). */
  includeBanned?: boolean | undefined;
  /** Include each node's latest version (`latest`). */
  latest?: boolean | undefined;
  /** Sort order, as the registry names it (`sort`, repeated). */
  sort?: string | readonly string[] | undefined;
  /** Only these node ids (`node_id`, repeated). */
  nodeIds?: readonly string[] | undefined;
}

/**
 * Filters of `nodes.search()`, mapped to the wire's query names: the paging and host filters of
 * `nodes.list()`, and the search texts.
 * @example const params: SearchNodesParams = { search: 'upscale', limit: 20 };
 */
export interface SearchNodesParams extends Omit<ListNodesParams, 'latest' | 'sort' | 'nodeIds'> {
  /** Text searched in names and descriptions (`search`). */
  search?: string | undefined;
  /** Search in repository URLs (`repository_url_search`). */
  repositoryUrlSearch?: string | undefined;
  /** Search the graph nodes a node provides (`comfy_node_search`). */
  graphNodeSearch?: string | undefined;
}

/**
 * Filters of `nodes.versions()`.
 * @example await registry.nodes.versions('acme-upscale', { statuses: ['NodeVersionStatusActive'] });
 */
export interface NodeVersionsParams {
  /** Only these statuses (`statuses`, repeated), each one of {@link NODE_VERSION_STATUSES}: another is refused before sending. */
  statuses?: readonly (typeof NODE_VERSION_STATUSES)[number][] | undefined;
  /** Include `status_reason` in each version (`include_status_reason`). */
  includeStatusReason?: boolean | undefined;
}

/**
 * What the registry says the caller may do with a publisher.
 * @example const { canEdit } = await registry.publishers.permissions('acme');
 */
export interface PublisherPermissions {
  /** True when the caller may change the publisher and its nodes (an owner). */
  canEdit?: boolean | null;
  [field: string]: unknown;
}

/**
 * A personal access token as `publishers.listTokens()` lists it (never its secret).
 * @example for (const t of await registry.publishers.listTokens('acme')) console.log(t.id, t.name);
 */
export interface PersonalAccessToken {
  /** The token's id: what `publishers.deleteToken()` takes. */
  id?: string | null;
  /** The name given when it was created. */
  name?: string | null;
  /** The description given when it was created. */
  description?: string | null;
  /** When it was created, an ISO 8601 date-time. */
  createdAt?: string | null;
  [field: string]: unknown;
}

/**
 * Body of `publishers.createToken()`.
 * @example const params: CreateTokenParams = { name: 'ci', description: 'GitHub Actions release job' };
 */
export interface CreateTokenParams {
  /** Required: a name for the token. */
  name: string;
  /** What the token is for. */
  description?: string | undefined;
}

/**
 * A token just created: `token` is the secret, shown this once. Store it; the SDK never logs it.
 * @example const { token } = await registry.publishers.createToken('acme', { name: 'ci' });
 */
export interface CreatedToken {
  /** The secret: shown this once; publish with it (`personalAccessToken`). */
  token: string;
}

/**
 * What `versions.publish()` sends: the node, the version, its package, and the personal access
 * token (which the registry takes in the body, not in a header).
 *
 * @example
 * ```ts
 * const params: PublishVersionParams = { node: { id: 'acme-upscale', name: 'Acme Upscale' }, version: { version: '1.3.0', changelog: 'Faster' }, package: './dist/acme-upscale.zip', personalAccessToken: pat };
 * ```
 */
export interface PublishVersionParams {
  /** The node's fields (the node is created or updated with them). */
  node: NodeParams;
  /** The new version: at least its semantic `version`. */
  version: PublishedVersionFields;
  /** The package, a zip of the node's files: a file path (streamed from disk), a Blob or bytes. */
  package: FileInput;
  /** A personal access token of the publisher (`publishers.createToken()`). */
  personalAccessToken: string;
}

/**
 * The fields of a version to publish.
 * @example const fields: PublishedVersionFields = { version: '1.3.0', changelog: 'Faster', dependencies: ['numpy'] };
 */
export interface PublishedVersionFields extends SupportAndTags {
  /** Semantic version, unique per node. */
  version: string;
  /** Summary of changes in the version. */
  changelog?: string | undefined;
  /** The Python requirements the version installs (pip specifiers). */
  dependencies?: string[] | undefined;
  [field: string]: unknown;
}
