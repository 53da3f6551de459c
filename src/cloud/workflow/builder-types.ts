// The types of the workflow builder (builder.ts): what `graphcloud types` generates code against.
// Types only: nothing here reaches a bundle (docs/workflows.md#building-workflows-in-code).

import type { Workflow } from '../shared/types.js';
import type { UiWorkflow } from './types.js';

/** Brands an output with its catalog type; type-level only, no value carries it. */
declare const outputType: unique symbol;

/**
 * One output of a node in a workflow being built (`ckpt.MODEL`, `ckpt[0]`), of the catalog's
 * output type `T`. Passed as an input, it becomes the link `[node, index]` of the API format.
 *
 * @example
 * ```ts
 * const model: Output<'MODEL'> = ckpt.MODEL;
 * ```
 */
export interface Output<T extends string = string> {
  /** The id of the node the output belongs to. */
  readonly node: string;
  /** The output's slot, when it was taken by index (or resolved). */
  readonly index?: number | undefined;
  /** The output's name as spelled on the node handle, when it was taken by name. */
  readonly name?: string | undefined;
  /**
   * The catalog type: compile time only. Not marked internal: `stripInternal` would drop it from the
   * published declarations, and every output would then fit every input.
   * @hidden
   */
  readonly [outputType]: T;
}

/**
 * What a link input of type `T` accepts: an output of type `T`, or of the catalog's wildcard type
 * `*`. `Link<string>` accepts any output (a `*` input); `Link<'IMAGE' | 'MASK'>` either type.
 *
 * @example
 * ```ts
 * interface Inputs { model: Link<'MODEL'>; seed: number | Link<'INT'> }
 * ```
 */
export type Link<T extends string> = Output<T | '*'>;

/**
 * The shape every generated node type has: its inputs (the object a builder call takes) and its
 * outputs (name or index → catalog type).
 *
 * @example
 * ```ts
 * type Shape = { inputs: { image: Link<'IMAGE'> }; outputs: { IMAGE: 'IMAGE'; 0: 'IMAGE' } } satisfies NodeShape;
 * ```
 */
export interface NodeShape {
  /** The inputs a builder call takes. */
  inputs: object;
  /** The outputs: each key (a spelled name or an index) to its catalog type. */
  outputs: object;
}

/**
 * Options of one node added to a workflow builder.
 *
 * @example
 * ```ts
 * wf.CLIPTextEncode({ clip: ckpt.CLIP, text: 'a boat' }, { title: 'Positive prompt', id: '6' });
 * ```
 */
export interface NodeOptions {
  /** The node's id in the API workflow; by default the next free number in call order (`'1'`, `'2'`...). */
  id?: string | undefined;
  /** The node's title (`_meta.title`): input addresses (`'Positive prompt.text'`) can name it. */
  title?: string | undefined;
}

/**
 * The members every node handle has, typed or not.
 *
 * @example
 * ```ts
 * const handle: NodeHandle = wf.node('LoadImage', { image: 'a.png' });
 * handle.out('IMAGE');
 * ```
 */
export interface NodeHandle<O = Record<never, never>> {
  /** The node's id in the API workflow. */
  readonly id: string;
  /** The node's `class_type`. */
  readonly classType: string;
  /** One output, by its spelled name or its index. */
  out<K extends keyof O & (string | number)>(output: K): Output<O[K] & string>;
  /** One output of an untyped node, by name or index. */
  out(output: string | number): Output;
}

/**
 * A node added to a workflow builder: its id, and one property per output (by spelled name and by
 * index) for the generated node types.
 *
 * @example
 * ```ts
 * const ckpt: NodeRef<Nodes['CheckpointLoaderSimple']> = wf.CheckpointLoaderSimple({ ckpt_name: 'a.safetensors' });
 * wf.KSampler({ model: ckpt.MODEL, ... });
 * ```
 */
export type NodeRef<S extends NodeShape = NodeShape> = NodeHandle<S['outputs']> & { readonly [K in keyof S['outputs']]: Output<S['outputs'][K] & string> };

/**
 * The arguments of one node's builder method: `inputs` (which may be left out when the node has
 * no required input) and its options.
 *
 * @example
 * ```ts
 * type Args = NodeArgs<Nodes['KSampler']>; // [inputs: {...}, options?: NodeOptions]
 * ```
 */
export type NodeArgs<S extends NodeShape> = Record<never, never> extends S['inputs'] ? [inputs?: S['inputs'], options?: NodeOptions] : [inputs: S['inputs'], options?: NodeOptions];

/**
 * The node classes of a catalog `N` that are builder methods: all but the builder's own members
 * (`node`, `toJSON`), `then` and `Object`'s.
 *
 * @example
 * ```ts
 * type Names = Classes<Nodes>; // 'CheckpointLoaderSimple' | 'KSampler' | ...
 * ```
 */
export type Classes<N> = Exclude<keyof N & string, keyof WorkflowBuilderBase<N> | 'then' | keyof object>;

/**
 * The shape of class `K` in the catalog `N` (`NodeShape` when `N` does not describe it).
 *
 * @example
 * ```ts
 * type KSampler = ShapeOf<Nodes, 'KSampler'>;
 * ```
 */
export type ShapeOf<N, K> = K extends keyof N ? (N[K] extends NodeShape ? N[K] : NodeShape) : NodeShape;

/**
 * The members of every workflow builder, typed or not.
 *
 * @example
 * ```ts
 * const wf = workflow();
 * const image = wf.node('LoadImage', { image: 'a.png' });
 * wf.node('SaveImage', { images: image.out(0), filename_prefix: 'out' });
 * JSON.stringify(wf); // the API-format workflow
 * ```
 */
export interface WorkflowBuilderBase<N = unknown> {
  /**
   * Adds a node of class `classType`: the only form without a type argument, and the form for a
   * class whose name is a member of the builder (`node`, `toJSON`).
   */
  node<K extends unknown extends N ? string : keyof N & string>(classType: K, ...args: unknown extends N ? [inputs?: Record<string, unknown>, options?: NodeOptions] : NodeArgs<ShapeOf<N, K>>): unknown extends N ? NodeHandle : NodeRef<ShapeOf<N, K>>;
  /**
   * The API-format workflow. Outputs taken by name need their index: from the builder's `outputs`
   * table or, when the workflow meets a catalog (`cloud.runWorkflow()`, `validateWorkflow()`),
   * from the catalog; without either this throws a `ValidationError` naming the output.
   */
  toJSON(): Workflow;
}

/**
 * A workflow being built in code (`workflow<Nodes>()`): one method per node class of the catalog
 * `N`, each returning the node's handle. Without `N`, nodes are added with `wf.node()`.
 *
 * @example
 * ```ts
 * const wf: WorkflowBuilder<Nodes> = workflow<Nodes>();
 * const ckpt = wf.CheckpointLoaderSimple({ ckpt_name: 'sd_xl_base_1.0.safetensors' });
 * ```
 */
export type WorkflowBuilder<N = unknown> = WorkflowBuilderBase<N> & (unknown extends N ? unknown : { readonly [K in Classes<N>]: (...args: NodeArgs<ShapeOf<N, K>>) => NodeRef<ShapeOf<N, K>> });

/**
 * Options of `workflow()`.
 *
 * @example
 * ```ts
 * const wf = workflow<Nodes>({ outputs: { CheckpointLoaderSimple: ['MODEL', 'CLIP', 'VAE'] } });
 * ```
 */
export interface WorkflowBuilderOptions {
  /**
   * The output names of node classes, in slot order (a catalog's `output_name`), so that outputs
   * taken by name resolve without a catalog. Ejected code passes the classes it uses.
   */
  outputs?: Readonly<Record<string, readonly string[]>> | undefined;
}

/**
 * Every form of workflow the SDK takes: the API format, the web UI's saved format, or a builder
 * (`workflow()`, anything with a `toJSON()` that gives the API format).
 *
 * @example
 * ```ts
 * const input: WorkflowInput = workflow<Nodes>();
 * ```
 */
export type WorkflowInput =
  | Workflow
  | UiWorkflow
  | {
      /** The API-format workflow. */
      toJSON(): Workflow;
    };
