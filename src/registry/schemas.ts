import * as z from 'zod/mini';
import type { GraphNode, Node, NodeVersion, Publisher, VersionPage } from './types.js';

// The registry is permissive: documented fields are type-checked when present (servers send null
// for empty values); the identity fields the SDK and its users read are required.
const opt = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));
const strings = opt(z.array(z.string()));

export const NodeVersionSchema: z.ZodMiniType<NodeVersion> = z.looseObject({
  id: z.string(),
  version: opt(z.string()),
  node_id: opt(z.string()),
  changelog: opt(z.string()),
  createdAt: opt(z.string()),
  dependencies: strings,
  deprecated: opt(z.boolean()),
  downloadUrl: opt(z.string()),
  status: opt(z.string()),
  status_reason: opt(z.string()),
  supported_os: strings,
  supported_accelerators: strings,
  tags: strings,
  tags_admin: strings,
});

const PublisherMemberSchema = z.looseObject({
  id: opt(z.string()),
  role: opt(z.string()),
  user: opt(z.looseObject({ id: opt(z.string()), name: opt(z.string()), email: opt(z.string()) })),
});

export const PublisherSchema: z.ZodMiniType<Publisher> = z.looseObject({
  id: z.string(),
  name: opt(z.string()),
  members: opt(z.array(PublisherMemberSchema)),
  status: opt(z.string()),
});

export const NodeSchema: z.ZodMiniType<Node> = z.looseObject({
  id: z.string(),
  name: opt(z.string()),
  downloads: opt(z.number()),
  github_stars: opt(z.number()),
  rating: opt(z.number()),
  search_ranking: opt(z.number()),
  status: opt(z.string()),
  tags: strings,
  latest_version: opt(NodeVersionSchema),
  publisher: opt(PublisherSchema),
  translations: opt(z.record(z.string(), z.unknown())),
});

export const GraphNodeSchema: z.ZodMiniType<GraphNode> = z.looseObject({
  graph_node_name: z.string(),
  policy: opt(z.string()),
  output_is_list: opt(z.array(z.boolean())),
});

export const VersionPageSchema: z.ZodMiniType<VersionPage> = z.looseObject({
  page: z.number(),
  pageSize: z.number(),
  total: z.number(),
  totalPages: z.number(),
  versions: z.array(NodeVersionSchema),
});
