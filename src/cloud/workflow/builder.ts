// The workflow builder: workflows written as code, one small runtime for every catalog. The
// generated node types (`graphcloud types`) give it its types; docs/workflows.md#building-workflows-in-code.

import { ValidationError } from '../../core/errors.js';
import type { Workflow, WorkflowNode } from '../shared/types.js';
import type { NodeHandle, NodeOptions, Output, WorkflowBuilder, WorkflowBuilderOptions } from './builder-types.js';
import type { ObjectInfo } from './node-definitions.js';

// Names a handle cannot give an output by: its own members, `then` (a handle is not a promise),
// and Object.prototype's (the handle's `in` check finds them first).
const MEMBERS: ReadonlySet<string> = new Set(['id', 'classType', 'out', 'then', 'constructor', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', 'toString', 'valueOf', '__proto__', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__']);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * The property names under which a node's outputs appear on its handle, in slot order: a name that
 * is an identifier and unique stays as it is; otherwise each character outside `[A-Za-z0-9_$]`
 * becomes `_`, a leading digit gets a `_` before it, the second, third... use of a spelling gets
 * `_2`, `_3`...; a name that is a handle's own member (`id`, `classType`, `out`), `then` or a name of
 * `Object.prototype` (`constructor`, `toString`...) gets a trailing `_`.
 * The generator and the builder both spell names with it.
 *
 * @example
 * ```ts
 * spellOutputNames(['IMAGE', 'IMAGE', 'upscale model', 'id']); // ['IMAGE', 'IMAGE_2', 'upscale_model', 'id_']
 * ```
 */
export function spellOutputNames(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    let spelled = IDENTIFIER.test(name) ? name : name.replace(/[^\w$]/g, '_').replace(/^(?=\d)|^$/, '_');
    if (MEMBERS.has(spelled)) spelled += '_';
    const count = (seen.get(spelled) ?? 0) + 1;
    seen.set(spelled, count);
    return count === 1 ? spelled : `${spelled}_${count}`;
  });
}

/** An output as the builder hands it out; a link once written into the API workflow. */
class OutputRef {
  constructor(
    readonly node: string,
    readonly index: number | undefined,
    readonly name: string | undefined,
  ) {
    Object.freeze(this);
  }
}

interface BuiltNode {
  classType: string;
  inputs: Record<string, unknown>;
  title: string | undefined;
}

/** The names of one class's outputs, spelled, or `undefined` when unknown. */
type OutputNames = (classType: string) => readonly string[] | undefined;

const GRAPHS = new WeakMap<object, Graph>();

/** The nodes added so far, in call order. */
class Graph {
  readonly nodes = new Map<string, BuiltNode>();
  #next = 1;
  readonly #table: OutputNames;

  constructor(options: WorkflowBuilderOptions | undefined) {
    const check = readOptions(options);
    const table = new Map(Object.entries(check).map(([name, list]) => [name, spellOutputNames(list)]));
    this.#table = (classType) => table.get(classType);
  }

  add(classType: string, inputs: unknown, options: unknown): NodeHandle {
    const { id, title } = readNodeArgs(classType, inputs, options);
    let nodeId = id;
    if (nodeId === undefined) {
      while (this.nodes.has(String(this.#next))) this.#next++;
      nodeId = String(this.#next++);
    } else if (this.nodes.has(nodeId)) {
      throw invalid(`node ${nodeId} (${classType})`, 'an id no other node of this workflow has (leave `id` out to take the next free one)', nodeId);
    }
    const given = Object.create(null) as Record<string, unknown>;
    for (const [name, value] of Object.entries((inputs ?? {}) as Record<string, unknown>)) if (value !== undefined) given[name] = value;
    this.nodes.set(nodeId, { classType, inputs: given, title });
    return handle(nodeId, classType);
  }

  /** Whether an output is known by name only and the table does not have its class. */
  needsCatalog(): boolean {
    for (const node of this.nodes.values()) {
      for (const value of Object.values(node.inputs)) {
        if (value instanceof OutputRef && value.index === undefined && !this.#table(this.nodes.get(value.node)?.classType ?? '')) return true;
      }
    }
    return false;
  }

  toWorkflow(info: ObjectInfo | undefined): Workflow {
    const workflow = Object.create(null) as Workflow;
    for (const [id, node] of this.nodes) {
      const inputs = Object.create(null) as Record<string, unknown>;
      for (const [name, value] of Object.entries(node.inputs)) inputs[name] = this.#write(value, id, name, info);
      const written: WorkflowNode = { class_type: node.classType, inputs };
      if (node.title !== undefined) written._meta = { title: node.title };
      workflow[id] = written;
    }
    return workflow;
  }

  #write(value: unknown, id: string, input: string, info: ObjectInfo | undefined): unknown {
    if (isHandle(value)) {
      throw invalid(`node ${id}.${input}`, `one output of node ${value.id} (${value.classType}), such as ${value.id}.out(0), not the node itself`, `node ${value.id}`);
    }
    if (!(value instanceof OutputRef)) return value;
    const source = this.nodes.get(value.node);
    if (!source) throw invalid(`node ${id}.${input}`, 'an output of a node of this workflow (the node belongs to another builder)', `node ${value.node}`);
    if (value.index !== undefined) return [value.node, value.index];
    const names = this.#table(source.classType) ?? catalogNames(info, source.classType);
    const where = `node ${id}.${input}`;
    if (!names) {
      throw invalid(where, `an output index of node ${value.node} (${source.classType}): give workflow() the output names ({ outputs: { ${source.classType}: [...] } }), take the output by index (.out(0)), or run the workflow with cloud.runWorkflow(), which reads the server's catalog`, value.name);
    }
    const index = names.indexOf(value.name ?? '');
    if (index < 0) throw invalid(where, `an output of ${source.classType}: ${names.join(', ') || '(it has none)'}`, value.name);
    return [value.node, index];
  }
}

function catalogNames(info: ObjectInfo | undefined, classType: string): string[] | undefined {
  const definition = info && Object.hasOwn(info, classType) ? info[classType] : undefined;
  if (!definition) return undefined;
  const names = Array.isArray(definition.output_name) ? definition.output_name : (definition.output ?? []).map((type) => (typeof type === 'string' ? type : 'COMBO'));
  return spellOutputNames(names);
}

function readOptions(options: WorkflowBuilderOptions | undefined): Record<string, readonly string[]> {
  if (options === undefined) return {};
  const bad = (received: unknown): never => {
    throw invalid('workflow() options', '{ outputs?: { [classType]: string[] } }', received);
  };
  if (typeof options !== 'object' || options === null) return bad(options);
  for (const key of Object.keys(options)) if (key !== 'outputs') bad(key);
  const outputs: unknown = options.outputs;
  if (outputs === undefined) return {};
  if (typeof outputs !== 'object' || outputs === null) return bad(outputs);
  for (const list of Object.values(outputs)) if (!Array.isArray(list) || !list.every((name) => typeof name === 'string')) bad(list);
  return outputs as Record<string, readonly string[]>;
}

function readNodeArgs(classType: string, inputs: unknown, options: unknown): NodeOptions {
  const where = `node ${classType}`;
  if (typeof classType !== 'string' || classType === '') throw invalid('node class', 'a non-empty class type', classType);
  if (inputs !== undefined && (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs))) throw invalid(`${where} inputs`, 'an object of input names to values', inputs);
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw invalid(`${where} options`, '{ id?, title? }', options);
  const { id, title, ...rest } = options as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw invalid(`${where} options`, 'only id and title', unknown[0]);
  if (id !== undefined && (typeof id !== 'string' || id === '' || id === '__proto__')) throw invalid(`${where} id`, 'a non-empty string', id);
  if (title !== undefined && typeof title !== 'string') throw invalid(`${where} title`, 'a string', title);
  return { id, title };
}

function invalid(path: string, rule: string, received: unknown): ValidationError {
  return new ValidationError([{ path, rule, received }], 'workflow builder');
}

const HANDLES = new WeakSet<object>();

function isHandle(value: unknown): value is NodeHandle {
  return typeof value === 'object' && value !== null && HANDLES.has(value);
}

/** A node's handle: its own members, then any other name (an output) or index. */
function handle(id: string, classType: string): NodeHandle {
  const out = (output: string | number): Output => {
    if (typeof output === 'number') {
      if (!Number.isInteger(output) || output < 0) throw invalid(`node ${id} (${classType}) output`, 'an index from 0', output);
      return new OutputRef(id, output, undefined) as unknown as Output;
    }
    if (typeof output !== 'string' || output === '') throw invalid(`node ${id} (${classType}) output`, 'an output name or index', output);
    return new OutputRef(id, /^(0|[1-9]\d*)$/.test(output) ? Number(output) : undefined, output) as unknown as Output;
  };
  const base = { id, classType, out };
  const proxy = new Proxy(base, {
    get(target, key) {
      if (typeof key === 'symbol' || key in target) return Reflect.get(target, key);
      // Not a promise: `await handle` must not call an output.
      if (key === 'then') return undefined;
      return out(key);
    },
  });
  HANDLES.add(proxy);
  return proxy;
}

/**
 * Starts a workflow in code. With the node types `graphcloud types` generated (`workflow<Nodes>()`)
 * each node class is a method whose inputs and outputs the compiler checks; without them, add
 * nodes with `wf.node(classType, inputs)`. Node ids follow call order (`'1'`, `'2'`...) unless a
 * node is given its `id`; `JSON.stringify(wf)` and `wf.toJSON()` give the API-format workflow that
 * `runWorkflow()`, `jobs.submit()`, `validateWorkflow()`, `setInputs()` and `RunQueue.add()` take
 * (they take the builder itself too).
 *
 * @example
 * ```ts
 * import { workflow } from 'graphcloud';
 * import type { Nodes } from './nodes.js';
 *
 * const wf = workflow<Nodes>();
 * const ckpt = wf.CheckpointLoaderSimple({ ckpt_name: 'sd_xl_base_1.0.safetensors' });
 * const text = wf.CLIPTextEncode({ clip: ckpt.CLIP, text: 'a paper boat' }, { title: 'Positive prompt' });
 * const result = await cloud.runWorkflow(wf, { inputs: { 'Positive prompt.text': 'a lighthouse' } });
 * ```
 */
export function workflow<N = unknown>(options?: WorkflowBuilderOptions): WorkflowBuilder<N> {
  const graph = new Graph(options);
  const base = {
    node: (classType: string, inputs?: unknown, nodeOptions?: unknown) => graph.add(classType, inputs, nodeOptions),
    toJSON: () => graph.toWorkflow(undefined),
  };
  const builder = new Proxy(base, {
    get(target, key) {
      if (typeof key === 'symbol' || key in target) return Reflect.get(target, key);
      if (key === 'then') return undefined;
      return (inputs?: unknown, nodeOptions?: unknown) => graph.add(key, inputs, nodeOptions);
    },
  });
  GRAPHS.set(builder, graph);
  return builder as unknown as WorkflowBuilder<N>;
}

/**
 * Whether a value is a workflow builder (`workflow()`).
 *
 * @example
 * ```ts
 * if (isWorkflowBuilder(input)) input = builtWorkflow(input, info);
 * ```
 */
export function isWorkflowBuilder(value: unknown): value is WorkflowBuilder {
  return typeof value === 'object' && value !== null && GRAPHS.has(value);
}

/**
 * Whether a builder has outputs known by name only that its own table cannot resolve: writing it
 * then needs the server's catalog.
 *
 * @example
 * ```ts
 * const info = builderNeedsCatalog(wf) ? await definitions.current() : undefined;
 * ```
 */
export function builderNeedsCatalog(builder: WorkflowBuilder): boolean {
  return GRAPHS.get(builder)?.needsCatalog() ?? false;
}

/**
 * The API-format workflow of a builder, with outputs taken by name resolved by its own table or,
 * failing that, by the catalog `info`.
 *
 * @example
 * ```ts
 * const api = builtWorkflow(wf, objectInfo);
 * ```
 */
export function builtWorkflow(builder: WorkflowBuilder, info: ObjectInfo | undefined): Workflow {
  const graph = GRAPHS.get(builder);
  if (!graph) throw invalid('workflow', 'a workflow builder made by workflow()', builder);
  return graph.toWorkflow(info);
}
