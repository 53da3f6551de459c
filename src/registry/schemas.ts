import * as z from 'zod/mini';
import type { GraphNode, Node, NodeVersion, PersonalAccessToken, Publisher, PublisherPermissions } from './types.js';

// Every field of the registry's published schema is optional (ids included): a field is
// type-checked when present (servers send null for empty values) and never required, so an answer
// is not refused for a field the SDK does not need (docs/wire-protocol.md#registry-routes-parameters-and-answers).
const opt = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));
const strings = opt(z.array(z.string()));

export const NodeVersionSchema: z.ZodMiniType<NodeVersion> = z.looseObject({
  id: opt(z.string()),
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
  id: opt(z.string()),
  name: opt(z.string()),
  members: opt(z.array(PublisherMemberSchema)),
  status: opt(z.string()),
});

export const NodeSchema: z.ZodMiniType<Node> = z.looseObject({
  id: opt(z.string()),
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
  graph_node_name: opt(z.string()),
  policy: opt(z.string()),
  output_is_list: opt(z.array(z.boolean())),
});

export const VersionPageSchema = z.looseObject({
  page: opt(z.number()),
  pageSize: opt(z.number()),
  total: opt(z.number()),
  totalPages: opt(z.number()),
  versions: opt(z.array(NodeVersionSchema)),
});

export const NodePageSchema = z.looseObject({
  total: opt(z.number()),
  page: opt(z.number()),
  limit: opt(z.number()),
  totalPages: opt(z.number()),
  nodes: opt(z.array(NodeSchema)),
});

export const NodeListSchema = z.array(NodeSchema);
export const NodeVersionListSchema = z.array(NodeVersionSchema);
export const PublisherListSchema = z.array(PublisherSchema);
// Every field of these two answers is optional in the registry's spec (docs/registry.md).
export const AvailabilitySchema = z.looseObject({ isAvailable: opt(z.boolean()) });
export const PermissionsSchema: z.ZodMiniType<PublisherPermissions> = z.looseObject({ canEdit: opt(z.boolean()) });
export const CreatedTokenSchema = z.looseObject({ token: opt(z.string()), id: opt(z.string()) });
export const TokenListSchema: z.ZodMiniType<PersonalAccessToken[]> = z.array(
  z.looseObject({ id: opt(z.string()), name: opt(z.string()), description: opt(z.string()), createdAt: opt(z.string()) }),
);
export const PublishAnswerSchema = z.looseObject({ signedUrl: opt(z.string()), node_version: opt(NodeVersionSchema) });
