import { ValidationError } from '../../core/index.js';

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
