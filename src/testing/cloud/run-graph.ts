import { createHash } from 'node:crypto';
import type { FileStore } from '../files/store.js';
import type { NodeResult } from './node-behaviour.js';
import { isLink, type PromptNode } from './prompt-validation.js';

/**
 * Tells whether a resolved input is an ExecutionBlocker.
 *
 * @example
 * isBlocked({ kind: 'blocked', message: 'nsfw' }); // true
 */
export function isBlocked(value: unknown): value is { kind: 'blocked'; message: string } {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'blocked';
}

/**
 * Nodes the outputs need, upstream first (the runtime executes nothing else).
 *
 * @example
 * executionOrder(prompt, ['3']); // ['1', '2', '3']
 */
export function executionOrder(prompt: Record<string, PromptNode>, outputs: string[]): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string): void => {
    if (seen.has(id) || !prompt[id]) return;
    seen.add(id);
    for (const value of Object.values(prompt[id].inputs)) if (isLink(value)) visit(value[0]);
    order.push(id);
  };
  for (const id of outputs) visit(id);
  return order;
}

/**
 * Cache keys: class type and literal inputs, with links replaced by the upstream key (and the
 * content hash of a loaded image), so an identical re-run is fully cached.
 *
 * @example
 * signaturesOf(prompt, order, store).get('3');
 */
export function signaturesOf(prompt: Record<string, PromptNode>, order: string[], store: FileStore): Map<string, string> {
  const signatures = new Map<string, string>();
  for (const id of order) {
    const node = prompt[id];
    if (!node) continue;
    const parts = Object.entries(node.inputs)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, value]) => [name, isLink(value) ? `${signatures.get(value[0])}#${value[1]}` : value]);
    if (node.class_type === 'LoadImage') parts.push(['file', store.get('input', '', String(node.inputs.image))?.hash ?? '']);
    const text = JSON.stringify([node.class_type, parts]);
    signatures.set(id, createHash('sha1').update(text).digest('hex'));
  }
  return signatures;
}

/**
 * Replaces link inputs by the values of their upstream nodes.
 *
 * @example
 * resolveInputs(node, results).image; // { kind: 'image', width, height }
 */
export function resolveInputs(node: PromptNode, results: Map<string, NodeResult>): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(node.inputs)) {
    inputs[name] = isLink(value) ? results.get(value[0])?.value : value;
  }
  return inputs;
}

/**
 * The `current_inputs` of an execution_error: each input as a one-item list.
 *
 * @example
 * describeInputs({ message: 'boom' }); // { message: ['boom'] }
 */
export function describeInputs(inputs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(inputs)) out[name] = [typeof value === 'object' ? JSON.stringify(value) : value];
  return out;
}
