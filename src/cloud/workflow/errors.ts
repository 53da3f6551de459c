import { ValidationError } from '../../core/index.js';

/**
 * Why a UI-format workflow could not be converted.
 *
 * @example
 * ```ts
 * if (error.code === 'unknown_node_type') console.log('install the node pack that provides', error.nodeType);
 * ```
 */
export type WorkflowConversionCode =
  | 'invalid_workflow'
  | 'unknown_node_type'
  | 'unplaceable_widget_value'
  | 'dangling_link'
  | 'link_cycle'
  | 'subgraph_cycle'
  | 'unsupported_node';

/** The node an error is about: its id (`outer:inner` inside subgraphs), type and title. */
export interface WorkflowNodeRef {
  /** The node's id; `outer:inner` for a node inside a subgraph or group node. */
  nodeId: string;
  /** The node's type (`KSampler`...), when known. */
  nodeType: string | undefined;
  /** The node's title in the web UI, when it has one. */
  nodeTitle: string | undefined;
}

/**
 * A UI-format workflow that cannot be turned into the API format: the error names the node (id,
 * type and title) and says how to fix it. Nothing was sent.
 *
 * @example
 * ```ts
 * try { toApiWorkflow(ui, info); }
 * catch (e) { if (e instanceof WorkflowConversionError) console.log(e.nodeId, e.nodeType, e.code); }
 * ```
 */
export class WorkflowConversionError extends ValidationError {
  /** `'WorkflowConversionError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'WorkflowConversionError';
  /** Why the conversion failed, for code to branch on. */
  readonly code: WorkflowConversionCode;
  /** The id of the node concerned (`outer:inner` inside a subgraph); `undefined` when the workflow as a whole is at fault. */
  readonly nodeId: string | undefined;
  /** That node's type, when known. */
  readonly nodeType: string | undefined;
  /** That node's title in the web UI, when it has one. */
  readonly nodeTitle: string | undefined;

  constructor(code: WorkflowConversionCode, node: WorkflowNodeRef | undefined, problem: string, fix: string, received?: unknown) {
    const where = node ? describeNode(node) : 'workflow';
    super([{ path: node ? `node ${node.nodeId}` : '(workflow)', rule: problem, received }], 'toApiWorkflow');
    this.message = `toApiWorkflow: ${where}: ${problem}. ${fix}; nothing was sent`;
    this.code = code;
    this.nodeId = node?.nodeId;
    this.nodeType = node?.nodeType;
    this.nodeTitle = node?.nodeTitle;
  }
}

/**
 * `node 3 (KSampler "My sampler")`: how messages name a node.
 *
 * @example
 * ```ts
 * describeNode({ nodeId: '3', nodeType: 'KSampler', nodeTitle: 'KSampler' }); // 'node 3 (KSampler)'
 * ```
 */
export function describeNode(node: WorkflowNodeRef): string {
  const type = node.nodeType ?? 'unknown type';
  const title = node.nodeTitle && node.nodeTitle !== node.nodeType ? ` "${node.nodeTitle}"` : '';
  return `node ${node.nodeId} (${type}${title})`;
}

/**
 * A node that an address could mean: its id, class type and title.
 *
 * @example
 * ```ts
 * const candidate: AddressCandidate = { nodeId: '3', classType: 'KSampler', title: 'Sampler' };
 * ```
 */
export interface AddressCandidate {
  /** The node's id in the workflow. */
  nodeId: string;
  /** The node's type (`KSampler`...). */
  classType: string;
  /** The node's title (`_meta.title`), when it has one. */
  title: string | undefined;
}

/**
 * An input address (`"<node>.<input>"`) that names no node, several nodes, or no input of the
 * node. `candidates` lists what it could have meant. Nothing was sent.
 *
 * @example
 * ```ts
 * try { setInputs(workflow, { 'Sampler.seeed': 1 }); }
 * catch (e) { if (e instanceof WorkflowAddressError) console.log(e.address, e.candidates); }
 * ```
 */
export class WorkflowAddressError extends ValidationError {
  /** `'WorkflowAddressError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'WorkflowAddressError';
  /** The address as given (`"Sampler.seeed"`). */
  readonly address: string;
  /**
   * What the address could have meant: nodes (when the node part matched none or several), input
   * names of the node (when the input did not exist), or the address that sets the same input.
   * Empty when the address itself is malformed.
   */
  readonly candidates: readonly (AddressCandidate | string)[];

  constructor(address: string, problem: string, fix: string, candidates: readonly (AddressCandidate | string)[]) {
    super([{ path: address, rule: problem, received: address }], 'input address');
    const listed = candidates.slice(0, 20).map((c) => (typeof c === 'string' ? c : `${c.nodeId} (${c.classType}${c.title && c.title !== c.classType ? ` "${c.title}"` : ''})`));
    const more = candidates.length > 20 ? `, … (${candidates.length} in all)` : '';
    this.message = `input address "${address}": ${problem}. ${fix}${listed.length ? `; candidates: ${listed.join(', ')}${more}` : ''}; nothing was sent`;
    this.address = address;
    this.candidates = candidates;
  }
}
