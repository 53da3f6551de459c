/** Documented `Node.status` values. */
export const NODE_STATUSES = ['NodeStatusActive', 'NodeStatusDeleted', 'NodeStatusBanned'] as const;
/** Documented `NodeVersion.status` values. */
export const NODE_VERSION_STATUSES = ['NodeVersionStatusActive', 'NodeVersionStatusDeleted', 'NodeVersionStatusBanned', 'NodeVersionStatusPending', 'NodeVersionStatusFlagged'] as const;
/** Documented `Publisher.status` values. */
export const PUBLISHER_STATUSES = ['PublisherStatusActive', 'PublisherStatusBanned'] as const;
/** Documented `GraphNode.policy` values. */
export const GRAPH_NODE_POLICIES = ['GraphNodePolicyActive', 'GraphNodePolicyBanned', 'GraphNodePolicyLocalOnly'] as const;
/** Publisher member roles in use (wire-facts): only owners may write. */
export const PUBLISHER_ROLES = ['owner', 'member'] as const;

/** A documented value, or a newer one the server added (kept, never rejected). */
type Open<T extends string> = T | (string & {});

export type NodeStatus = Open<(typeof NODE_STATUSES)[number]>;
export type NodeVersionStatus = Open<(typeof NODE_VERSION_STATUSES)[number]>;
export type PublisherStatus = Open<(typeof PUBLISHER_STATUSES)[number]>;
export type GraphNodePolicy = Open<(typeof GRAPH_NODE_POLICIES)[number]>;
export type PublisherRole = Open<(typeof PUBLISHER_ROLES)[number]>;

/** A published node version. Wire names are kept (`createdAt`, `downloadUrl` beside snake_case). */
export interface NodeVersion {
  id: string;
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
  supported_accelerators?: string[] | null;
  supported_host_frontend_version?: string | null;
  supported_host_version?: string | null;
  supported_os?: string[] | null;
  tags?: string[] | null;
  tags_admin?: string[] | null;
  [field: string]: unknown;
}

/** A member of a publisher. */
export interface PublisherMember {
  id?: string | null;
  role?: PublisherRole | null;
  user?: { id?: string | null; name?: string | null; email?: string | null; [field: string]: unknown } | null;
  [field: string]: unknown;
}

/** A publisher of nodes. */
export interface Publisher {
  /** Unique, akin to a username; should be lowercase. */
  id: string;
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

/** A custom node in the registry. */
export interface Node {
  id: string;
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
  supported_accelerators?: string[] | null;
  supported_host_frontend_version?: string | null;
  supported_host_version?: string | null;
  supported_os?: string[] | null;
  tags?: string[] | null;
  tags_admin?: string[] | null;
  /** Translations of the node's metadata; the shape is not documented, so it is kept as sent. */
  translations?: Record<string, unknown> | null;
  [field: string]: unknown;
}

/** Per-version metadata of one graph node (a node class a version provides). */
export interface GraphNode {
  graph_node_name: string;
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

/** One page of `GET /versions`. */
export interface VersionPage {
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
  versions: NodeVersion[];
}

/** Body of `nodes.create()` / `nodes.update()`: the Node fields; `id` is required to create. */
export type NodeParams = Partial<Omit<Node, 'latest_version' | 'publisher'>> & { [field: string]: unknown };
/** Body of `publishers.create()`. */
export type PublisherParams = Partial<Omit<Publisher, 'members' | 'createdAt'>> & { id: string; [field: string]: unknown };
/** Body of `graphNodes.update()`: a graph node without `graph_node_name` (it is in the path). */
export type GraphNodeParams = Omit<Partial<GraphNode>, 'graph_node_name'>;
/** Body of `versions.update()`. */
export interface VersionUpdateParams {
  changelog?: string;
  deprecated?: boolean;
}

/** Filters of `versions.list()`, mapped to the wire's query names. */
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
