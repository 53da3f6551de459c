// Finding the nodes of an API-format workflow: by input address ("<node>.<input>", where <node> is
// a node id, a title (`_meta.title`) or a class type that exactly one node has; see
// docs/workflows.md for the rule), and its output nodes (what a run must produce).
import type { Workflow, WorkflowNode } from '../shared/types.js';
import { unreadableReason } from './node-definitions.js';
import type { ObjectInfo } from './validate.js';
import { WorkflowAddressError, type AddressCandidate } from './errors.js';
import { isRecord, own } from '../../core/index.js';
import { builtWorkflow, isWorkflowBuilder } from './builder.js';

/**
 * Where an address points: the node id and the input name.
 *
 * @example
 * ```ts
 * const { nodeId, input } = resolveAddress(workflow, 'Positive prompt.text');
 * ```
 */
export interface ResolvedAddress {
  /** The id of the node the address names. */
  nodeId: string;
  /** The input's name on that node. */
  input: string;
  /** The node itself, as it is in the workflow. */
  node: WorkflowNode;
}

function candidateOf(nodeId: string, node: WorkflowNode): AddressCandidate {
  const title = isRecord(node._meta) && typeof node._meta.title === 'string' ? node._meta.title : undefined;
  return { nodeId, classType: String(node.class_type), title };
}

/** The nodes a node part names: by id, else by title, else by class type. */
function matchNode(workflow: Workflow, part: string): string[] {
  if (Object.hasOwn(workflow, part)) return [part];
  const ids = Object.keys(workflow);
  const byTitle = ids.filter((id) => candidateOf(id, workflow[id]!).title === part);
  if (byTitle.length > 0) return byTitle;
  return ids.filter((id) => workflow[id]!.class_type === part);
}

/**
 * Splits `node.input` at an unescaped dot: `\.` is a dot and `\\` a backslash in the node part (a
 * backslash before anything else is itself). Each piece of the node part is read once, so the split
 * is at the first dot that no escape takes.
 */
function splitEscaped(address: string): [string, string] | undefined {
  const match = /^((?:\\[.\\]|\\(?![.\\])|[^.\\])*)\.(.*)$/s.exec(address);
  return match ? [match[1]!.replaceAll(/\\([.\\])/g, '$1'), match[2]!] : undefined;
}

/**
 * The node part of an address, the nodes it names and the input: split at the first unescaped dot
 * when the address escapes one, else after the longest part before a dot that names a node (no
 * node named: empty parts). `undefined` when an escaping address has no unescaped dot.
 */
function splitAddress(workflow: Workflow, address: string): { nodePart: string; input: string; matches: string[] } | undefined {
  if (address.includes('\\')) {
    const split = splitEscaped(address);
    return split && { nodePart: split[0], input: split[1], matches: matchNode(workflow, split[0]) };
  }
  for (let at = address.lastIndexOf('.'); at > 0; at = address.lastIndexOf('.', at - 1)) {
    const matches = matchNode(workflow, address.slice(0, at));
    if (matches.length > 0) return { nodePart: address.slice(0, at), input: address.slice(at + 1), matches };
  }
  return { nodePart: '', input: '', matches: [] };
}

/**
 * Resolves an input address `"<node>.<input>"` against an API-format workflow. `<node>` is a
 * node id, a node title (`_meta.title`), or a `class_type` that exactly one node has; an id wins
 * over a title, a title over a class type. Titles may hold dots and spaces: the longest part
 * before a dot that names a node is the node, the rest is the input. To split elsewhere, escape
 * the node part's dots as `\.` (and backslashes as `\\`): then the first unescaped dot splits.
 * With node definitions, the input must be one the node type declares.
 *
 * @throws {@link WorkflowAddressError} listing the candidates when no node or several nodes match, or
 * the node type has no such input.
 * @example
 * ```ts
 * resolveAddress(workflow, 'KSampler.seed');           // { nodeId: '3', input: 'seed', ... }
 * resolveAddress(workflow, 'v1.2 upscale.scale_by');   // a title holding a dot
 * resolveAddress(workflow, 'a\\.b.c', info);           // node "a.b", input "c"
 * ```
 */
export function resolveAddress(workflow: Workflow, address: string, objectInfo?: ObjectInfo): ResolvedAddress {
  if (!isRecord(workflow)) throw new WorkflowAddressError(String(address), 'needs an API-format workflow', 'Convert a UI-format workflow with toApiWorkflow() first', []);
  if (typeof address !== 'string' || !address.includes('.')) {
    throw new WorkflowAddressError(String(address), 'an address is "<node>.<input>"', 'Write the node id, title or class type, a dot, then the input name (e.g. "KSampler.seed")', []);
  }
  const split = splitAddress(workflow, address);
  if (!split) throw new WorkflowAddressError(address, 'has no unescaped dot between node and input', 'Escape only the dots inside the node part', []);
  const { nodePart, input, matches } = split;
  const all = Object.keys(workflow).map((id) => candidateOf(id, workflow[id]!));
  if (matches.length === 0) {
    throw new WorkflowAddressError(address, 'names no node (by id, title or class type)', 'Use one of the node ids or titles below', all);
  }
  if (matches.length > 1) {
    const listed = matches.map((id) => candidateOf(id, workflow[id]!));
    throw new WorkflowAddressError(address, `"${nodePart}" names ${matches.length} nodes`, 'Use the node id instead, or give the nodes distinct titles in the web UI', listed);
  }
  const nodeId = matches[0]!;
  const node = workflow[nodeId]!;
  if (!input) throw new WorkflowAddressError(address, 'has no input name after the node', 'Add the input name, e.g. "KSampler.seed"', []);
  const definition = objectInfo ? own(objectInfo, node.class_type) : undefined;
  // A definition the SDK could not read names no inputs: the node's inputs go unchecked, as in validation.
  if (definition !== undefined && unreadableReason(definition) === undefined) {
    const names = [...Object.keys(definition.input?.required ?? {}), ...Object.keys(definition.input?.optional ?? {})];
    if (!names.includes(input)) {
      throw new WorkflowAddressError(address, `node ${nodeId} (${node.class_type}) has no input "${input}"`, 'Use one of its inputs', names);
    }
  }
  return { nodeId, input, node };
}

/**
 * True when the node part of an address names at least one node of the workflow (by id, title or
 * class type, split as `resolveAddress()` splits it); false for a malformed address too.
 *
 * @example
 * ```ts
 * namesNode(workflow, 'KSampler.seed'); // true when a node is titled or typed "KSampler"
 * ```
 */
export function namesNode(workflow: Workflow, address: string): boolean {
  if (typeof address !== 'string' || !address.includes('.')) return false;
  return (splitAddress(workflow, address)?.matches.length ?? 0) > 0;
}

/**
 * Returns a copy of an API-format workflow (or of what a `workflow()` builder writes) with inputs set by address (`"<node>.<input>"`, see
 * `resolveAddress()`); the workflow passed in is not changed. A value may be a literal or a link
 * `[nodeId, outputIndex]`.
 *
 * @throws {@link WorkflowAddressError} for an unknown or ambiguous address, or two addresses naming the
 * same input.
 * @example
 * ```ts
 * const run = setInputs(workflow, { 'Positive prompt.text': 'a red fox', 'KSampler.seed': 42, '9.filename_prefix': 'fox' });
 * ```
 */
export function setInputs(input: Workflow | { toJSON(): Workflow }, values: Record<string, unknown>, objectInfo?: ObjectInfo): Workflow {
  // A builder is set as the API workflow it writes (outputs by name need its table or `objectInfo`).
  const workflow = isWorkflowBuilder(input) ? builtWorkflow(input, objectInfo) : (input as Workflow);
  const changes = resolveInputs(workflow, Object.keys(values), objectInfo);
  const given = Object.values(values);
  const copy: Workflow = Object.create(null);
  for (const id of Object.keys(workflow)) {
    const node = workflow[id]!;
    copy[id] = { ...node, inputs: Object.assign(Object.create(null) as Record<string, unknown>, node.inputs) };
  }
  changes.forEach(({ nodeId, input }, index) => (copy[nodeId]!.inputs[input] = given[index]));
  return copy;
}

/**
 * Resolves each address (`resolveAddress()`), in order; an address setting the same input as an
 * earlier one fails, with `fix` as the way out.
 *
 * @throws {@link WorkflowAddressError} for an unknown or ambiguous address, or two addresses naming the same input.
 * @example
 * ```ts
 * const [seed, image] = resolveInputs(workflow, ['KSampler.seed', 'Load Image.image'], info);
 * ```
 */
export function resolveInputs(workflow: Workflow, addresses: readonly string[], info?: ObjectInfo, fix = 'Set each input once') {
  const taken = new Map<string, string>();
  return addresses.map((address) => {
    const resolved = resolveAddress(workflow, address, info);
    const key = `${resolved.nodeId}\u0000${resolved.input}`;
    const earlier = taken.get(key);
    if (earlier !== undefined) throw new WorkflowAddressError(address, `sets the same input as "${earlier}" (node ${resolved.nodeId}, input "${resolved.input}")`, fix, [earlier]);
    taken.set(key, address);
    return resolved;
  });
}

/**
 * The ids of a workflow's output nodes: those whose definition says `output_node`, or, without
 * the definitions (or for a type they lack), the nodes whose outputs no other node takes (the
 * server runs only what leads to an output node, so an output node is almost always such a sink).
 *
 * @example
 * ```ts
 * outputNodesOf({ '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } }); // ['2']
 * ```
 */
export function outputNodesOf(workflow: Workflow, info?: ObjectInfo): string[] {
  const consumed = new Set<string>();
  for (const node of Object.values(workflow)) {
    for (const value of Object.values(node.inputs)) {
      // A link is [source id, output slot] (docs/workflows.md).
      if (Array.isArray(value) && value.length === 2 && (typeof value[0] === 'string' || typeof value[0] === 'number') && typeof value[1] === 'number') consumed.add(String(value[0]));
    }
  }
  return Object.entries(workflow)
    .filter(([id, node]) => {
      const definition = info && own(info, node.class_type);
      return definition ? definition.output_node === true : !consumed.has(id);
    })
    .map(([id]) => id);
}
