import type { Workflow } from '../../index.js';
import { usageError } from '../base/errors.js';
import { typedValue, type Assignment } from '../base/values.js';

/**
 * The workflow of a file, checked to be an API-format workflow (node id to `{ class_type, inputs }`).
 *
 * @throws {CliError} any other shape, saying which format it looks like.
 * @example
 * ```ts
 * const workflow = checkWorkflowFile(JSON.parse(text), 'portrait.json', help);
 * ```
 */
export function checkWorkflowFile(raw: unknown, file: string, help: string): Workflow {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw usageError(`${file} holds no workflow (a JSON object of nodes).`, help);
  const record = raw as Record<string, unknown>;
  if (Array.isArray(record.nodes) && Array.isArray(record.links)) {
    throw usageError(`${file} is a workflow in the UI format (saved with "Save"), which this version runs only after conversion.`, 'Export it with "Export (API)" in the web UI and run that file.');
  }
  const broken = Object.entries(record).filter(([, node]) => !node || typeof node !== 'object' || typeof (node as { class_type?: unknown }).class_type !== 'string');
  if (broken.length > 0 || Object.keys(record).length === 0) {
    throw usageError(`${file} is not an API-format workflow: ${broken.length > 0 ? `node ${broken[0]![0]} has no class_type` : 'it has no nodes'}.`, help);
  }
  return raw as Workflow;
}

/**
 * A copy of the workflow with the `--set` values written in. An address is `<node>.<input>`,
 * where `<node>` is a node id; a value takes the type of the value it replaces.
 *
 * @throws {CliError} an address naming no node, or a value of the wrong type.
 * @example
 * ```ts
 * applySets(workflow, [{ key: '3.seed', value: '42', json: false }], help)['3'].inputs.seed; // 42
 * ```
 */
export function applySets(workflow: Workflow, sets: readonly Assignment[], help: string): Workflow {
  if (sets.length === 0) return workflow;
  const copy: Workflow = { ...workflow };
  for (const set of sets) {
    const dot = set.key.lastIndexOf('.');
    const nodeId = dot > 0 ? set.key.slice(0, dot) : '';
    const input = set.key.slice(dot + 1);
    const node = copy[nodeId];
    if (!node || !input) throw usageError(`--set ${set.key}: no node "${nodeId}" in the workflow (the address is <node id>.<input>).`, help);
    copy[nodeId] = { ...node, inputs: { ...node.inputs, [input]: typedValue(set, node.inputs[input], '--set', help) } };
  }
  return copy;
}
