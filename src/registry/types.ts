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
 * A node's `status`: a documented value (`NODE_STATUSES`) or a newer one the server sends.
 * @example const status: NodeStatus = 'NodeStatusActive';
 */
export type NodeStatus = (typeof NODE_STATUSES)[number] | (string & {});
/**
 * A node version's `status`: a documented value (`NODE_VERSION_STATUSES`) or a newer one.
 * @example const statuses: NodeVersionStatus[] = ['NodeVersionStatusFlagged', 'NodeVersionStatusPending'];
 */
export type NodeVersionStatus = (typeof NODE_VERSION_STATUSES)[number] | (string & {});
/**
 * A publisher's `status`: a documented value (`PUBLISHER_STATUSES`) or a newer one.
 * @example const status: PublisherStatus = 'PublisherStatusActive';
 */
export type PublisherStatus = (typeof PUBLISHER_STATUSES)[number] | (string & {});
/**
 * A graph node's `policy`: a documented value (`GRAPH_NODE_POLICIES`) or a newer one.
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
  node_id?: string | null;
  /** Summary of changes in the version. */
  changelog?: string | null;
  node_extract_status?: string | null;
  createdAt?: string | null;
  dependencies?: string[] | null;
  deprecated?: boolean | null;
  /** Output only: where to download the version. */
  downloadUrl?: string | null;
  status?: NodeVersionStatus | null;
  status_reason?: string | null;
  [field: string]: unknown;
}

/**
 * A member of a publisher.
 * @example const emails = publisher.members?.map((m) => m.user?.email) ?? [];
 */
export interface PublisherMember {
  id?: string | null;
  role?: PublisherRole | null;
  user?: { id?: string | null; name?: string | null; email?: string | null; [field: string]: unknown } | null;
  [field: string]: unknown;
}

/**
 * A publisher of nodes.
 * @example
 * ```ts
 * const publisher: Publisher = await registry.publishers.create({ id: 'acme', name: 'Acme' });
 * ```
 */
export interface Publisher {
  /** Unique, akin to a username; should be lowercase. Optional in the published schema. */
  id?: string | null;
  name?: string | null;
  description?: string | null;
  createdAt?: string | null;
  logo?: string | null;
  members?: PublisherMember[] | null;
  source_code_repo?: string | null;
  status?: PublisherStatus | null;
  support?: string | null;
  website?: string | null;
  [field: string]: unknown;
}

/**
 * A custom node in the registry.
 * @example
 * ```ts
 * const node: Node = await registry.nodes.get('acme-upscale');
 * console.log(node.name, node.rating, node.latest_version?.version);
 * ```
 */
export interface Node extends SupportAndTags {
  /** Unique node id. Optional in the published schema. */
  id?: string | null;
  name?: string | null;
  author?: string | null;
  banner_url?: string | null;
  /** @deprecated Use `tags`; the field will be removed from the API. */
  category?: string | null;
  created_at?: string | null;
  description?: string | null;
  downloads?: number | null;
  github_stars?: number | null;
  icon?: string | null;
  latest_version?: NodeVersion | null;
  /** Path to the LICENSE file in the node's repository. */
  license?: string | null;
  preempted_graph_node_names?: string[] | null;
  publisher?: Publisher | null;
  /** Average rating. */
  rating?: number | null;
  repository?: string | null;
  search_ranking?: number | null;
  status?: NodeStatus | null;
  status_detail?: string | null;
  /** Translations of the node's metadata; the shape is not documented, so it is kept as sent. */
  translations?: Record<string, unknown> | null;
  [field: string]: unknown;
}

/**
 * Per-version metadata of one graph node (a node class a version provides).
 * @example
 * ```ts
 * const graphNode: GraphNode = await registry.graphNodes.update('acme-upscale', '1.2.0', 'AcmeUpscale', { category: 'image' });
 * ```
 */
export interface GraphNode {
  /** The graph node's name (in the answer only). Optional in the published schema. */
  graph_node_name?: string | null;
  category?: string | null;
  deprecated?: boolean | null;
  description?: string | null;
  experimental?: boolean | null;
  function?: string | null;
  input_types?: string | null;
  output_is_list?: boolean[] | null;
  policy?: GraphNodePolicy | null;
  return_names?: string | null;
  return_types?: string | null;
  [field: string]: unknown;
}

/**
 * One page of `GET /versions`.
 * @example const { versions, page, totalPages }: VersionPage = await registry.versions.list({ page: 2 });
 */
export interface VersionPage {
  page?: number | null;
  pageSize?: number | null;
  total?: number | null;
  totalPages?: number | null;
  /** The versions of this page (empty when the server sent none). */
  versions: NodeVersion[];
}

/**
 * Body of `nodes.create()` / `nodes.update()`: the writable Node fields (`id` is required to
 * create). Fields a newer server accepts can be added; they are sent as given.
 * @example const params: NodeParams = { id: 'acme-upscale', name: 'Acme Upscale', tags: ['image'] };
 */
export interface NodeParams extends SupportAndTags {
  id?: string;
  name?: string;
  author?: string;
  banner_url?: string;
  /** @deprecated Use `tags`; the field will be removed from the API. */
  category?: string;
  description?: string;
  icon?: string;
  /** Path to the LICENSE file in the node's repository. */
  license?: string;
  preempted_graph_node_names?: string[];
  repository?: string;
  status?: NodeStatus;
  status_detail?: string;
  translations?: Record<string, unknown>;
  [field: string]: unknown;
}
/**
 * Body of `publishers.create()`: the writable Publisher fields; `id` is required.
 * @example const params: PublisherParams = { id: 'acme', name: 'Acme', website: 'https://acme.test' };
 */
export interface PublisherParams {
  /** Unique, akin to a username; should be lowercase. */
  id: string;
  name?: string;
  description?: string;
  logo?: string;
  source_code_repo?: string;
  support?: string;
  website?: string;
  [field: string]: unknown;
}
/**
 * Body of `graphNodes.update()`: a graph node's writable fields (`graph_node_name` is in the path).
 * @example const params: GraphNodeParams = { category: 'image/upscale', deprecated: false };
 */
export interface GraphNodeParams {
  category?: string;
  deprecated?: boolean;
  description?: string;
  experimental?: boolean;
  function?: string;
  input_types?: string;
  output_is_list?: boolean[];
  policy?: GraphNodePolicy;
  return_names?: string;
  return_types?: string;
  [field: string]: unknown;
}
/**
 * Body of `versions.update()`.
 * @example const params: VersionUpdateParams = { changelog: 'Fix a crash', deprecated: false };
 */
export interface VersionUpdateParams {
  changelog?: string;
  deprecated?: boolean;
}

/**
 * Filters of `versions.list()`, mapped to the wire's query names.
 * @example const params: ListVersionsParams = { nodeId: 'acme-upscale', statuses: ['NodeVersionStatusActive'], pageSize: 100 };
 */
export interface ListVersionsParams {
  /** Only versions of this node (`nodeId`). */
  nodeId?: string;
  /** Only these statuses (`statuses`, repeated). */
  statuses?: readonly NodeVersionStatus[];
  /** 1-based page number (`page`). @default 1 */
  page?: number;
  /** Items per page, 1 to 100 (`pageSize`). @default 10 */
  pageSize?: number;
  /** Case-insensitive search in `status_reason` (`status_reason`). */
  statusReason?: string;
  /** Include `status_reason` in each version (`include_status_reason`). */
  includeStatusReason?: boolean;
}

/**
 * One page of `nodes.list()` or `nodes.search()`.
 * @example const { nodes, totalPages }: NodePage = await registry.nodes.search({ search: 'upscale' });
 */
export interface NodePage {
  total?: number | null;
  page?: number | null;
  limit?: number | null;
  totalPages?: number | null;
  /** The nodes of this page (empty when the server sent none). */
  nodes: Node[];
}

/**
 * Paging of the node listings (`page` from 1, `limit` items per page).
 * @example const paging: NodePaging = { page: 2, limit: 50 };
 */
export interface NodePaging {
  /** 1-based page number. @default 1 */
  page?: number | undefined;
  /** Items per page, a positive integer. @default 10 (the registry's) */
  limit?: number | undefined;
}

/**
 * Filters of `nodes.list()`, mapped to the wire's query names.
 * @example const params: ListNodesParams = { supportedOs: 'linux', includeBanned: false, limit: 100 };
 */
export interface ListNodesParams extends NodePaging {
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
 * Filters of `nodes.search()`, mapped to the wire's query names.
 * @example const params: SearchNodesParams = { search: 'upscale', limit: 20 };
 */
export interface SearchNodesParams extends NodePaging {
  /** Text searched in names and descriptions (`search`). */
  search?: string | undefined;
  /** Search in repository URLs (`repository_url_search`). */
  repositoryUrlSearch?: string | undefined;
  /** Search the graph nodes a node provides (`comfy_node_search`). */
  graphNodeSearch?: string | undefined;
  /** Only nodes for this operating system (`supported_os`). */
  supportedOs?: string | undefined;
  /** Only nodes for this accelerator (`supported_accelerator`). */
  supportedAccelerator?: string | undefined;
  /** Include banned nodes (`include_banned`). */
  includeBanned?: boolean | undefined;
}

/**
 * Filters of `nodes.versions()`.
 * @example await registry.nodes.versions('acme-upscale', { statuses: ['NodeVersionStatusActive'] });
 */
export interface NodeVersionsParams {
  /** Only these statuses (`statuses`, repeated). */
  statuses?: readonly NodeVersionStatus[] | undefined;
  /** Include `status_reason` in each version (`include_status_reason`). */
  includeStatusReason?: boolean | undefined;
}

/**
 * What the registry says the caller may do with a publisher.
 * @example const { canEdit } = await registry.publishers.permissions('acme');
 */
export interface PublisherPermissions {
  canEdit?: boolean | null;
  [field: string]: unknown;
}

/**
 * A personal access token as `publishers.listTokens()` lists it (never its secret).
 * @example for (const t of await registry.publishers.listTokens('acme')) console.log(t.id, t.name);
 */
export interface PersonalAccessToken {
  id?: string | null;
  name?: string | null;
  description?: string | null;
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
  description?: string | undefined;
}

/**
 * A token just created: `token` is the secret, shown this once. Store it; the SDK never logs it.
 * @example const { token } = await registry.publishers.createToken('acme', { name: 'ci' });
 */
export interface CreatedToken {
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
  changelog?: string | undefined;
  dependencies?: string[] | undefined;
  [field: string]: unknown;
}
