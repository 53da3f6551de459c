import * as z from 'zod/mini';
import type { GraphNode, Node, NodeVersion, PersonalAccessToken, Publisher, PublisherPermissions } from './types.js';

// Every field of the registry's published schema is optional (ids included): a field is
// type-checked when present (servers send null for empty values) and never required, so an answer
// is not refused for a field the SDK does not need (docs/wire-protocol.md#registry-routes-parameters-and-answers).
const opt = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));
const strings = opt(z.array(z.string()));
// Several fields of one type, in this order.
const each = <T extends z.ZodMiniType, K extends string>(schema: T, ...names: K[]) =>
  Object.fromEntries(names.map((name) => [name, opt(schema)])) as { [P in K]: ReturnType<typeof opt<T>> };

export const NodeVersionSchema: z.ZodMiniType<NodeVersion> = z.looseObject({
  ...each(z.string(), 'id', 'version', 'node_id', 'changelog', 'createdAt'),
  dependencies: strings,
  deprecated: opt(z.boolean()),
  ...each(z.string(), 'downloadUrl', 'status', 'status_reason'),
  ...each(z.array(z.string()), 'supported_os', 'supported_accelerators', 'tags', 'tags_admin'),
});

const PublisherMemberSchema = z.looseObject({
  ...each(z.string(), 'id', 'role'),
  user: opt(z.looseObject(each(z.string(), 'id', 'name', 'email'))),
});

export const PublisherSchema: z.ZodMiniType<Publisher> = z.looseObject({
  ...each(z.string(), 'id', 'name'),
  members: opt(z.array(PublisherMemberSchema)),
  status: opt(z.string()),
});

export const NodeSchema: z.ZodMiniType<Node> = z.looseObject({
  ...each(z.string(), 'id', 'name'),
  ...each(z.number(), 'downloads', 'github_stars', 'rating', 'search_ranking'),
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
  ...each(z.number(), 'page', 'pageSize', 'total', 'totalPages'),
  versions: opt(z.array(NodeVersionSchema)),
});

export const NodePageSchema = z.looseObject({
  ...each(z.number(), 'total', 'page', 'limit', 'totalPages'),
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
  z.looseObject(each(z.string(), 'id', 'name', 'description', 'createdAt')),
);
export const PublishAnswerSchema = z.looseObject({ signedUrl: opt(z.string()), node_version: opt(NodeVersionSchema) });
