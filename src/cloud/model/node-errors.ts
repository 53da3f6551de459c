// The server's reasons for rejecting a workflow, as lines a person can act on: each node with its
// title, the server's message and its details (which input, which value, the allowed values),
// not only the summary (docs/wire-protocol.md#cloud-submitting-a-workflow).
import type { NodeErrorDetail, NodeErrors, Workflow } from './types.js';

const MAX_DETAILS = 400;
const MAX_LINES = 30;
const MAX_CHOICES = 10;

/**
 * One line per error of `node_errors`: `node 4 (CheckpointLoaderSimple "Base model"): Value not in
 * list: ckpt_name: 'x.safetensors' not in [...]`. `workflow`, when given, supplies the titles.
 *
 * @example
 * ```ts
 * describeNodeErrors({ '3': { class_type: 'KSampler', errors: [{ type: 'value_smaller_than_min', message: 'Value -1 smaller than min of 0', details: 'seed' }] } });
 * // ['node 3 (KSampler): Value -1 smaller than min of 0: seed']
 * ```
 */
export function describeNodeErrors(nodeErrors: Record<string, NodeErrors>, workflow?: Workflow): string[] {
  const lines = Object.entries(nodeErrors).flatMap(([id, node]) => node.errors.map((error) => `${nodeName(id, node, workflow)}: ${describeError(error)}`));
  return lines.length > MAX_LINES ? [...lines.slice(0, MAX_LINES), `… and ${lines.length - MAX_LINES} more (error.nodeErrors lists them all)`] : lines;
}

/**
 * The top-level `error.details` of a rejection that names no node (`missing_node_type`...), or
 * `undefined` when there is none.
 *
 * @example
 * ```ts
 * topLevelDetails({ error: { type: 'missing_node_type', message: '...', details: "Node ID '#3'" } }); // "Node ID '#3'"
 * ```
 */
export function topLevelDetails(body: unknown): string | undefined {
  const error = body && typeof body === 'object' ? (body as Record<string, unknown>).error : undefined;
  const details = error && typeof error === 'object' ? (error as Record<string, unknown>).details : undefined;
  return typeof details === 'string' && details.trim() !== '' ? clip(details.trim()) : undefined;
}

function nodeName(id: string, node: NodeErrors, workflow: Workflow | undefined): string {
  const sent = workflow && Object.hasOwn(workflow, id) ? workflow[id] : undefined;
  const type = node.class_type ?? sent?.class_type;
  const title = typeof sent?._meta?.title === 'string' && sent._meta.title !== type ? ` "${sent._meta.title}"` : '';
  return `node ${id}${type || title ? ` (${type ?? 'unknown type'}${title})` : ''}`;
}

function describeError(error: NodeErrorDetail): string {
  const details = typeof error.details === 'string' ? error.details.trim() : '';
  const extra = error.extra_info && typeof error.extra_info === 'object' ? (error.extra_info as Record<string, unknown>) : {};
  const parts = [error.message];
  if (details && details !== error.message) parts.push(clip(details));
  else if (typeof extra.input_name === 'string') parts.push(`input "${extra.input_name}"${'received_value' in extra ? ` received ${preview(extra.received_value)}` : ''}`);
  const choices = details.includes(' not in ') ? undefined : allowedValues(extra.input_config);
  return `${parts.join(': ')}${choices ? ` (allowed: ${choices})` : ''}`;
}

/** The allowed values of an input definition `[[...values]]` or `['COMBO', {options}]`, shortened. */
function allowedValues(config: unknown): string | undefined {
  if (!Array.isArray(config)) return undefined;
  const [type, options] = config as [unknown, unknown];
  const list = Array.isArray(type) ? type : options && typeof options === 'object' && Array.isArray((options as Record<string, unknown>).options) ? ((options as Record<string, unknown>).options as unknown[]) : undefined;
  if (!list) return undefined;
  const shown = list.slice(0, MAX_CHOICES).map(preview).join(', ');
  return list.length > MAX_CHOICES ? `${shown}, … (${list.length} values)` : shown;
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return clip(text, 80);
}

function clip(text: string, max = MAX_DETAILS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
