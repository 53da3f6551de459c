import * as z from 'zod/mini';
import type { NodeErrors, NodeOutput } from './types.js';

// Cloud responses are checked at the boundary: the fields the SDK reads are typed, every other
// field the server adds is kept (looseObject).
const opt = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

/**
 * `POST /api/upload/image` and `/api/upload/mask`.
 *
 * @example
 * ```ts
 * UploadSchema.parse({ name: 'a.png', subfolder: '' });
 * ```
 */
export const UploadSchema = z.looseObject({ name: z.string(), subfolder: opt(z.string()), type: opt(z.string()) });

const NodeErrorDetailSchema = z.looseObject({
  type: z.optional(z.string()),
  message: z.optional(z.string()),
  details: z.optional(z.unknown()),
  extra_info: z.optional(z.unknown()),
});

const NodeErrorsSchema = z.looseObject({
  class_type: opt(z.string()),
  errors: z.optional(z.array(NodeErrorDetailSchema)),
  dependent_outputs: opt(z.array(z.unknown())),
});

/**
 * `node_errors` of a submission answer (200 or 400).
 *
 * @example
 * ```ts
 * NodeErrorsMapSchema.parse({ '3': { errors: [{ type: 'x', message: 'bad' }] } });
 * ```
 */
export const NodeErrorsMapSchema = z.record(z.string(), NodeErrorsSchema);

/**
 * `POST /api/prompt` (200): `prompt_id`, and maybe `error` instead or as well.
 *
 * @example
 * ```ts
 * PromptResponseSchema.parse({ prompt_id: 'p1', number: 0, node_errors: {} });
 * ```
 */
export const PromptResponseSchema = z.looseObject({
  prompt_id: opt(z.string()),
  number: opt(z.number()),
  node_errors: opt(z.union([NodeErrorsMapSchema, z.array(z.unknown())])),
  error: opt(z.union([z.string(), z.looseObject({ type: opt(z.string()), message: opt(z.string()), details: z.optional(z.unknown()) })])),
});

/**
 * `GET /api/job/{prompt_id}/status`.
 *
 * @example
 * ```ts
 * JobStatusSchema.parse({ status: 'queued_waiting' });
 * ```
 */
export const JobStatusSchema = z.looseObject({ status: z.string(), error_message: opt(z.string()) });

/**
 * Any JSON object (history routes, whose shapes vary by server).
 *
 * @example
 * ```ts
 * AnyObjectSchema.parse({ any: 'object' });
 * ```
 */
export const AnyObjectSchema = z.record(z.string(), z.unknown());

/**
 * Normalises `node_errors` (servers send `{}` or `[]` when empty) into typed entries.
 *
 * @example
 * ```ts
 * toNodeErrors([]); // {}
 * ```
 */
export function toNodeErrors(raw: unknown): Record<string, NodeErrors> {
  const parsed = NodeErrorsMapSchema.safeParse(raw);
  if (!parsed.success) return {};
  const out = Object.create(null) as Record<string, NodeErrors>;
  for (const [id, entry] of Object.entries(parsed.data)) {
    out[id] = {
      class_type: entry.class_type ?? undefined,
      errors: (entry.errors ?? []).map((e) => ({ type: e.type ?? 'error', message: e.message ?? e.type ?? 'invalid', details: e.details, extra_info: e.extra_info })),
      dependent_outputs: entry.dependent_outputs ?? undefined,
    };
  }
  return out;
}

/**
 * Reads an outputs map (`{nodeId: {images: [...]}}`), keeping only object entries.
 *
 * @example
 * ```ts
 * toOutputs({ '9': { images: [] }, bad: 1 }); // { '9': { images: [] } }
 * ```
 */
export function toOutputs(raw: unknown): Record<string, NodeOutput> | undefined {
  const parsed = AnyObjectSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const out = Object.create(null) as Record<string, NodeOutput>;
  for (const [id, value] of Object.entries(parsed.data)) {
    const output = AnyObjectSchema.safeParse(value);
    if (output.success) out[id] = output.data;
  }
  return out;
}
