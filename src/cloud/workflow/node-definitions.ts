import * as z from 'zod/mini';
// isRecord is what zod reads as an object (a record or a loose object): not null, not an array.
import { formatPath, isRecord } from '../../core/index.js';

// `GET /api/object_info` is read field by field: a real local runtime sends definitions the
// contract does not promise (docs/wire-protocol.md). The SDK is strict only about what it reads
// (the input definitions, and the limits and option lists it checks); a descriptive field of
// another type than its documented one is left out; a definition whose inputs cannot be read is
// listed with none, and the workflows that use it are sent unchecked, with a warning.
/**
 * `GET /api/object_info`: node type name to its definition.
 *
 * @example
 * ```ts
 * const info: ObjectInfo = await cloud.nodes.list();
 * info.KSampler?.input.required?.steps; // ['INT', { default: 20, min: 1, max: 10000 }]
 * ```
 */
export type ObjectInfo = Record<string, NodeDefinition>;

/**
 * One node type's definition (`input.required` / `optional` / `hidden`, outputs, category...),
 * as the server sends it. Fields the server adds beyond these are kept; a documented field of
 * another type is left out. A definition whose inputs the SDK cannot read is listed with none:
 * `validateWorkflow()` then skips the checks of the nodes that use it, with a warning.
 *
 * @example
 * ```ts
 * const def: NodeDefinition | undefined = info.LoadImage;
 * ```
 */
export interface NodeDefinition {
  /** The node's inputs, by input name, in three groups. */
  input: {
    /** Inputs a workflow must set on a node of this type. */
    required?: Record<string, InputSpec> | undefined;
    /** Inputs a workflow may leave out (the node then uses its own default). */
    optional?: Record<string, InputSpec> | undefined;
    /** Inputs the server fills in itself (`"PROMPT"`, `"UNIQUE_ID"`...), never set by a workflow; any shape. */
    hidden?: Record<string, unknown> | undefined;
    /** Any other group the server sends, kept as it is. */
    [key: string]: unknown;
  };
  /** Input names in the order the web UI shows them, per group (`required`, `optional`); absent on older servers. */
  input_order?: Record<string, string[]> | undefined;
  /** The type of each output slot, in slot order (`"IMAGE"`, `"LATENT"`, or a list of values for a combo output). */
  output?: unknown[] | null | undefined;
  /** The display name of each output slot, in slot order. */
  output_name?: string[] | null | undefined;
  /** For each output slot, whether it yields a list rather than one value (`null` on some nodes of ComfyUI 0.3.77). */
  output_is_list?: Array<boolean | null> | null | undefined;
  /** `true` for a node that produces a result of the run (`SaveImage`, `PreviewImage`...); a workflow needs at least one. */
  output_node?: boolean | null | undefined;
  /** The node type name, the key it has in {@link ObjectInfo} and the `class_type` of a workflow node. */
  name?: string | null | undefined;
  /** The name the web UI shows. */
  display_name?: string | null | undefined;
  /** The menu path the web UI files the node under (`"sampling"`, `"image/upscaling"`). */
  category?: string | null | undefined;
  /** What the node does, in the node author's words. */
  description?: string | null | undefined;
  /** `true` when the node type is kept only for old workflows and should not be used in new ones. */
  deprecated?: boolean | null | undefined;
  /** `true` when the node type is a preview whose inputs or behaviour may still change. */
  experimental?: boolean | null | undefined;
  /** Any other field the server sends, kept as it is. */
  [key: string]: unknown;
}

/**
 * An input definition: `[type]` or `[type, options]`, where `type` is a name (`INT`, `FLOAT`,
 * `STRING`, `BOOLEAN`, `COMBO`, `IMAGE`...) or, in the legacy combo form, the list of values.
 *
 * @example
 * ```ts
 * const spec: InputSpec = ['INT', { min: 1, max: 100 }];
 * ```
 */
export type InputSpec = [type: string | Array<string | number | boolean>, options?: InputOptions | undefined];

/**
 * Options of an input definition (`min`, `max`, `step`, `default`, `options`...). Fields the
 * server adds beyond these (`control_after_generate`, `image_upload`...) are kept.
 *
 * @example
 * ```ts
 * const options: InputOptions = { min: 0, max: 1, step: 0.01 };
 * ```
 */
export interface InputOptions {
  /** The value the node uses when the input is not set; any JSON value. */
  default?: unknown;
  /** The smallest value a number input accepts (inclusive); absent when unbounded. */
  min?: number | null | undefined;
  /** The largest value a number input accepts (inclusive); absent when unbounded. */
  max?: number | null | undefined;
  /** The increment the web UI's number widget moves by (the SDK does not check it). */
  step?: number | null | undefined;
  /**
   * The allowed values of a `COMBO` input (files, models, sampler names...); input kinds of the
   * newer node schema (`COMFY_DYNAMICCOMBO_V3`) list objects of their own shape here.
   */
  options?: unknown[] | null | undefined;
  /** `true` when a `STRING` input is edited as a multi-line text box. */
  multiline?: boolean | null | undefined;
  /** The help text the web UI shows beside the input. */
  tooltip?: string | null | undefined;
  /** Any other option the server sends, kept as it is. */
  [key: string]: unknown;
}

const NUMBER_TYPES: ReadonlySet<unknown> = new Set(['INT', 'FLOAT']);
const opt = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

// Fields the SDK only passes on, with their documented types: a value of another type is left
// out (set to `undefined`) by documented() before a definition is checked, so it never costs the
// definition its inputs. Plain functions rather than zod's catch, pipe and transform, which
// would pull most of zod's core into every browser bundle (CHANGELOG, "Bundle size").
const UNREAD_OPTIONS = {
  step: opt(z.number()),
  options: opt(z.array(z.unknown())),
  multiline: opt(z.boolean()),
  tooltip: opt(z.string()),
};
// Read (and so checked) only on INT and FLOAT inputs: see documentedSpec().
const OPTION_FIELDS = { min: opt(z.number()), max: opt(z.number()), ...UNREAD_OPTIONS };
// Hidden inputs are filled by the server (`"PROMPT"`, or `["PROMPT"]` on newer nodes): any shape.
const HIDDEN_FIELD = { hidden: z.optional(z.record(z.string(), z.unknown())) };
const DESCRIPTIVE_FIELDS = {
  input_order: z.optional(z.record(z.string(), z.array(z.string()))),
  output: opt(z.array(z.unknown())),
  output_name: opt(z.array(z.string())),
  // `[null]` on the dataset text nodes of ComfyUI 0.3.77.
  output_is_list: opt(z.array(z.nullable(z.boolean()))),
  output_node: opt(z.boolean()),
  name: opt(z.string()),
  display_name: opt(z.string()),
  category: opt(z.string()),
  description: opt(z.string()),
  deprecated: opt(z.boolean()),
  experimental: opt(z.boolean()),
};

/**
 * A node input's type: a type name (`INT`, `IMAGE`, `COMBO`...) or, in the legacy form, the list of allowed values.
 *
 * @example
 * ```ts
 * InputTypeSchema.parse('INT');
 * ```
 */
export const InputTypeSchema = z.union([z.string(), z.array(z.union([z.string(), z.number(), z.boolean()]))]);

/**
 * Options of an input definition (bounds, allowed values, defaults). Input kinds of the newer
 * node schema give `options` entries of their own shapes (objects), so they are kept as sent.
 *
 * @example
 * ```ts
 * InputOptionsSchema.parse({ min: 0, max: 10 });
 * ```
 */
export const InputOptionsSchema = z.looseObject({ default: z.optional(z.unknown()), ...OPTION_FIELDS });

/**
 * `[type]` or `[type, options]`.
 *
 * @example
 * ```ts
 * InputSpecSchema.parse(['FLOAT', { min: 0, max: 1 }]);
 * ```
 */
export const InputSpecSchema = z.tuple([InputTypeSchema, z.optional(InputOptionsSchema)]);

const InputMap = z.record(z.string(), InputSpecSchema);

/**
 * One node definition of `GET /api/object_info` the SDK can read: its inputs are `[type,
 * options?]`, an INT or FLOAT input's limits numbers, and every field has its documented type
 * ({@link readNodeDefinition} leaves out first those of another type that the SDK does not read).
 *
 * @example
 * ```ts
 * NodeDefinitionSchema.parse({ input: { required: { seed: ['INT'] } } });
 * ```
 */
export const NodeDefinitionSchema = z.looseObject({
  input: z.looseObject({ required: z.optional(InputMap), optional: z.optional(InputMap), ...HIDDEN_FIELD }),
  ...DESCRIPTIVE_FIELDS,
});

/** A copy of `fields` in which each field of `shape` that does not have its type is `undefined`. */
function documented(fields: Record<string, unknown>, shape: Readonly<Record<string, z.ZodMiniType>>): Record<string, unknown> {
  const copy = { ...fields };
  for (const [key, schema] of Object.entries(shape)) if (Object.hasOwn(copy, key) && !schema.safeParse(copy[key]).success) copy[key] = undefined;
  return copy;
}

/**
 * An input spec with its unread options of another type left out. The limits of an INT or FLOAT
 * input are read (the SDK checks values against them): they are left as sent, for the schema to
 * refuse when they are not numbers.
 */
function documentedSpec(spec: unknown): unknown {
  if (!Array.isArray(spec) || !isRecord(spec[1])) return spec;
  const [type, options, ...rest] = spec as [unknown, Record<string, unknown>, ...unknown[]];
  return [type, documented(options, NUMBER_TYPES.has(type) ? UNREAD_OPTIONS : OPTION_FIELDS), ...rest];
}

/** The `input` of a definition with the unread values of another type left out. */
function documentedInput(input: unknown): unknown {
  if (!isRecord(input)) return input;
  const copy = documented(input, HIDDEN_FIELD);
  for (const group of ['required', 'optional']) {
    const specs = copy[group];
    if (!isRecord(specs)) continue;
    const read = { ...specs };
    // zod skips a `__proto__` key of a record; assigning one here would replace the copy's prototype.
    for (const name of Object.keys(specs)) if (name !== '__proto__') read[name] = documentedSpec(specs[name]);
    copy[group] = read;
  }
  return copy;
}

// Why each unreadable definition could not be read. Only definitions this module made are keys.
const unreadable = new WeakMap<NodeDefinition, string>();

/**
 * Reads one definition as the server sent it: the definition (every field it could read), and
 * why its inputs could not be read when they could not (the definition then has none).
 *
 * @example
 * ```ts
 * readNodeDefinition({ input: { required: { text: 'STRING' } } }).unreadable; // 'input.required.text: ...'
 * ```
 */
export function readNodeDefinition(raw: unknown): { definition: NodeDefinition; unreadable: string | undefined } {
  // A WeakMap answers undefined for a key that is not an object.
  const known = unreadable.get(raw as NodeDefinition);
  if (known !== undefined) return { definition: raw as NodeDefinition, unreadable: known };
  const fields = isRecord(raw) ? documented(raw, DESCRIPTIVE_FIELDS) : undefined;
  const parsed = NodeDefinitionSchema.safeParse(fields ? { ...fields, input: documentedInput(fields.input) } : raw);
  if (parsed.success) return { definition: parsed.data, unreadable: undefined };
  const issue = parsed.error.issues[0];
  const reason = issue ? `${formatPath(issue.path)}: ${issue.message}` : 'not a definition';
  // Every field but the inputs has its type now, so this parse succeeds.
  const definition = NodeDefinitionSchema.parse({ ...fields, input: {} });
  unreadable.set(definition, reason);
  return { definition, unreadable: reason };
}

/**
 * Why the SDK could not read a definition of {@link ObjectInfoSchema}'s result, or `undefined`
 * when it could.
 *
 * @example
 * ```ts
 * if (unreadableReason(info.TruncateText!)) console.log('TruncateText is not checked');
 * ```
 */
export function unreadableReason(definition: NodeDefinition): string | undefined {
  return unreadable.get(definition);
}

/**
 * Reads `GET /api/object_info` once its body is known to be a JSON object: a prototype-free map
 * of node type name to definition, each read on its own (see {@link readNodeDefinition}), so
 * none costs the others. The clients call it after checking the body with `AnyObjectSchema`
 * rather than through {@link ObjectInfoSchema}: zod's pipe and transform would cost every browser
 * bundle 0.37 KB gzip.
 *
 * @example
 * ```ts
 * const info = readObjectInfo(await http.request({ method: 'GET', path: '/api/object_info', schema: AnyObjectSchema }));
 * ```
 */
export function readObjectInfo(raw: Readonly<Record<string, unknown>>): ObjectInfo {
  const info = Object.create(null) as ObjectInfo;
  for (const [name, definition] of Object.entries(raw)) info[name] = readNodeDefinition(definition).definition;
  return info;
}

/**
 * `GET /api/object_info` as one schema: any JSON object, read by {@link readObjectInfo}.
 *
 * @example
 * ```ts
 * const info = ObjectInfoSchema.parse(await response.json());
 * ```
 */
// Marked pure so that a bundle without it leaves it out: esbuild keeps unused zod/mini calls.
export const ObjectInfoSchema = /* @__PURE__ */ z.pipe(/* @__PURE__ */ z.record(/* @__PURE__ */ z.string(), /* @__PURE__ */ z.unknown()), /* @__PURE__ */ z.transform(readObjectInfo));
