import { isObject } from '../server/request.js';
import type { InputSpec, NodeDefinition } from './nodes.js';

/**
 * One node of an API-format workflow.
 *
 * @example
 * const node: PromptNode = { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'out' } };
 */
export interface PromptNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string };
}

/**
 * An error item of a `/api/prompt` 400 body or of `node_errors`.
 *
 * @example
 * const item: PromptErrorItem = { type: 'no_prompt', message: 'No prompt provided', details: '', extra_info: {} };
 */
export interface PromptErrorItem {
  type: string;
  message: string;
  details: string;
  extra_info: Record<string, unknown>;
}

/**
 * The `node_errors` entry of one node.
 *
 * @example
 * const entry: NodeErrorEntry = { errors: [], dependent_outputs: ['9'], class_type: 'ImageScale' };
 */
export interface NodeErrorEntry {
  errors: PromptErrorItem[];
  dependent_outputs: string[];
  class_type: string;
}

/**
 * Outcome of {@link validatePrompt}: the runnable outputs, or the 400 body.
 *
 * @example
 * const result = validatePrompt(body.prompt, defs, names);
 * if (!result.ok) sendJson(res, 400, result.body);
 */
export type PromptValidation =
  | { ok: true; prompt: Record<string, PromptNode>; outputs: string[]; nodeErrors: Record<string, NodeErrorEntry> }
  | { ok: false; body: { error: PromptErrorItem; node_errors: Record<string, NodeErrorEntry> } };

function item(type: string, message: string, details = '', extra: Record<string, unknown> = {}): PromptErrorItem {
  return { type, message, details, extra_info: extra };
}

function fail(error: PromptErrorItem, nodeErrors: Record<string, NodeErrorEntry> = {}): PromptValidation {
  return { ok: false, body: { error, node_errors: nodeErrors } };
}

/**
 * Tells whether an input value is a link `[nodeId, outputIndex]`.
 *
 * @example
 * isLink(['3', 0]); // true
 */
export function isLink(value: unknown): value is [string, number] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && Number.isInteger(value[1]);
}

/**
 * A node type's own check of its literal inputs (the runtime's `VALIDATE_INPUTS`): the input it
 * refuses and why, or `undefined`. Runs only when the generic checks passed.
 *
 * @example
 * const check: CustomCheck = (node) => (node.class_type === 'LoadImage' ? { input: 'image', message: 'Invalid image file' } : undefined);
 */
export type CustomCheck = (node: PromptNode) => { input: string; message: string } | undefined;

/**
 * Validates an API-format workflow like the local runtime does: node types, output nodes,
 * required inputs, links, numeric ranges and option lists, then each node's `custom` check.
 *
 * @example
 * validatePrompt({ '1': { class_type: 'Nope', inputs: {} } }, defs).ok; // false (missing_node_type)
 */
export function validatePrompt(input: unknown, defs: Record<string, NodeDefinition>, custom?: CustomCheck): PromptValidation {
  if (!isObject(input) || Object.keys(input).length === 0) {
    return fail(item('no_prompt', 'No prompt provided', 'No prompt provided'));
  }
  const prompt: Record<string, PromptNode> = {};
  for (const [id, node] of Object.entries(input)) {
    if (!isObject(node) || typeof node.class_type !== 'string') {
      return fail(item('invalid_prompt', 'Cannot execute because a node is missing the class_type property.', `Node ID '#${id}'`));
    }
    if (!defs[node.class_type]) {
      const meta = isObject(node._meta) ? node._meta : {};
      return fail(
        item('missing_node_type', `Cannot execute because node ${node.class_type} does not exist.`, `Node ID '#${id}'`, {
          node_id: id,
          class_type: node.class_type,
          node_title: typeof meta.title === 'string' ? meta.title : node.class_type,
        }),
      );
    }
    prompt[id] = { class_type: node.class_type, inputs: isObject(node.inputs) ? node.inputs : {} };
  }
  const outputs = Object.keys(prompt).filter((id) => defs[prompt[id]?.class_type ?? '']?.output_node);
  if (outputs.length === 0) return fail(item('prompt_no_outputs', 'Prompt has no outputs', ''));

  const validity = new Map<string, boolean>();
  const nodeErrors: Record<string, NodeErrorEntry> = {};
  const visit = (id: string, output: string, trail: Set<string>): boolean => {
    const known = validity.get(id);
    const node = prompt[id];
    if (!node) return false;
    const errors = known === undefined ? checkInputs(node, defs, prompt, custom) : [];
    let valid = known ?? errors.length === 0;
    if (errors.length > 0) nodeErrors[id] = { errors, dependent_outputs: [], class_type: node.class_type };
    if (!trail.has(id)) {
      for (const value of Object.values(node.inputs)) {
        if (isLink(value) && prompt[value[0]] && !visit(value[0], output, new Set([...trail, id]))) valid = false;
      }
    }
    validity.set(id, valid);
    const entry = nodeErrors[id];
    if (entry && !entry.dependent_outputs.includes(output)) entry.dependent_outputs.push(output);
    return valid;
  };
  const good = outputs.filter((output) => visit(output, output, new Set()));
  if (good.length === 0) {
    const details = Object.entries(nodeErrors)
      .flatMap(([id, entry]) => entry.errors.map((e) => `${entry.class_type} ${id}: ${e.message}: ${e.details}`))
      .join('\n');
    return fail(item('prompt_outputs_failed_validation', 'Prompt outputs failed validation', details), nodeErrors);
  }
  return { ok: true, prompt, outputs: good, nodeErrors };
}

function checkInputs(
  node: PromptNode,
  defs: Record<string, NodeDefinition>,
  prompt: Record<string, PromptNode>,
  custom: CustomCheck | undefined,
): PromptErrorItem[] {
  const def = defs[node.class_type];
  if (!def) return [];
  const errors: PromptErrorItem[] = [];
  const specs: [string, InputSpec, boolean][] = [
    ...Object.entries(def.input.required).map(([name, spec]): [string, InputSpec, boolean] => [name, spec, true]),
    ...Object.entries(def.input.optional ?? {}).map(([name, spec]): [string, InputSpec, boolean] => [name, spec, false]),
  ];
  for (const [name, spec, required] of specs) {
    const value = node.inputs[name];
    if (value === undefined) {
      if (required) errors.push(item('required_input_missing', 'Required input is missing', name, { input_name: name }));
      continue;
    }
    const error = checkValue(name, value, spec, defs, prompt);
    if (error) errors.push(error);
  }
  const refused = errors.length === 0 ? custom?.(node) : undefined;
  if (refused) {
    errors.push(item('custom_validation_failed', 'Custom validation failed for node', `${refused.input} - ${refused.message}`, { input_name: refused.input }));
  }
  return errors;
}

function checkValue(
  name: string,
  value: unknown,
  spec: InputSpec,
  defs: Record<string, NodeDefinition>,
  prompt: Record<string, PromptNode>,
): PromptErrorItem | undefined {
  const [type, options] = spec;
  const extra = { input_name: name, input_config: spec, received_value: value };
  if (isLink(value)) {
    const source = prompt[value[0]];
    const produced = source ? defs[source.class_type]?.output[value[1]] : undefined;
    if (!source || produced === undefined) {
      return item('bad_linked_input', 'Bad linked input, must be a length-2 list of [string, int]', `${name}, ${JSON.stringify(value)}`, extra);
    }
    const expected = Array.isArray(type) ? 'COMBO' : type;
    if (produced !== expected) {
      return item('return_type_mismatch', 'Return type mismatch between linked nodes', `${name}, received_type(${produced}) mismatch input_type(${expected})`, extra);
    }
    return undefined;
  }
  if (Array.isArray(type)) {
    const text = typeof value === 'string' ? value.replace(/ \[(input|output|temp)\]$/, '') : value;
    if (typeof text === 'string' && type.includes(text)) return undefined;
    const shown = type.length > 20 ? `${type.slice(0, 20).join(', ')}, ...` : type.join(', ');
    return item('value_not_in_list', 'Value not in list', `${name}: '${String(value)}' not in [${shown}]`, extra);
  }
  if (type === 'INT' || type === 'FLOAT') {
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    const integral = type === 'INT' && typeof value === 'string' ? Number.isInteger(number) : true;
    if (typeof number !== 'number' || !Number.isFinite(number) || !integral) {
      return item('invalid_input_type', `Failed to convert an input value to a ${type} value`, `${name}, ${String(value)}`, extra);
    }
    if (typeof options.min === 'number' && number < options.min) {
      return item('value_smaller_than_min', `Value ${number} smaller than min of ${options.min}`, name, extra);
    }
    if (typeof options.max === 'number' && number > options.max) {
      return item('value_bigger_than_max', `Value ${number} bigger than max of ${options.max}`, name, extra);
    }
    return undefined;
  }
  // Types of the newer node schema the priced partner nodes use (priced-nodes.ts).
  const listed = type === 'COMBO' ? options.options : type === 'COMFY_DYNAMICCOMBO_V3' && Array.isArray(options.options) ? options.options.map((option) => (option as { key?: unknown }).key) : undefined;
  if (Array.isArray(listed)) {
    return listed.includes(value) ? undefined : item('value_not_in_list', 'Value not in list', `${name}: '${String(value)}' not in [${listed.join(', ')}]`, extra);
  }
  if (type === 'BOOLEAN') return typeof value === 'boolean' ? undefined : item('invalid_input_type', 'Failed to convert an input value to a BOOLEAN value', `${name}, ${String(value)}`, extra);
  if (type === 'STRING') {
    return typeof value === 'object' && value !== null
      ? item('invalid_input_type', 'Failed to convert an input value to a STRING value', name, extra)
      : undefined;
  }
  return item('invalid_input_type', `Failed to convert an input value to a ${type} value`, `${name}: a ${type} input must be linked`, extra);
}
