// toApiWorkflow: the prompt the web UI makes from a UI-format workflow (the frontend's
// graphToPrompt in utils/executionUtil): primitives write their values into the widgets they
// feed, nodes are flattened in execution order (subgraphs expanded to `outer:inner` ids), and each
// node that runs gets its widget values and its links, followed back to the node that produces
// them. Links to nodes that do not run are dropped at the end.
import type { Workflow, WorkflowNode } from '../shared/types.js';
import { isUiWorkflow, type ObjectInfo } from './validate.js';
import { WorkflowConversionError } from './errors.js';
import { expandGroupNodes, isGroupType } from './group-nodes.js';
import { loadWorkflow } from './load.js';
import { isRecord } from '../../core/index.js';
import { isVirtual, MODE_BYPASS, MODE_NEVER, type Graph, type GraphNode, type Widget } from './model.js';
import { computeExecutionOrder } from './order.js';
import { applyPrimitive, configurePrimitive } from './primitives.js';
import { createExecNode, expandInstance, nodeRef, resolveInput, type ExecMap, type ExecNode } from './resolve.js';
import { allNodes, applyTextReplacements, processDynamicPrompt } from './text.js';
import type { ToApiWorkflowOptions } from './types.js';

/**
 * Converts a workflow saved from the web UI (UI format) into the API format the cloud runs,
 * producing what the web UI itself sends: widget values placed on their inputs
 * (`control_after_generate` modes and upload buttons left out), links followed through reroutes
 * and bypassed nodes, muted nodes and notes dropped, primitive values copied into the inputs they
 * feed, subgraphs and legacy group nodes (`workflow>Name`, defined in `extra.groupNodes`) expanded
 * with `outer:inner` ids, and each node's title in `_meta.title`.
 *
 * Pure and synchronous; the input is not changed.
 *
 * @param uiWorkflow The parsed JSON file saved from the web UI.
 * @param objectInfo The server's node definitions (`await cloud.nodes.list()`).
 * @throws {@link WorkflowConversionError} naming the node (id, type, title) when a node type is not on
 * the server, a link points nowhere, or links go round in a circle through reroutes or bypassed nodes.
 * @example
 * ```ts
 * const ui = JSON.parse(await readFile('portrait.json', 'utf8'));
 * const workflow = toApiWorkflow(ui, await cloud.nodes.list());
 * await cloud.runWorkflow(setInputs(workflow, { 'KSampler.seed': 7 }));
 * ```
 */
export function toApiWorkflow(uiWorkflow: unknown, objectInfo: ObjectInfo, options: ToApiWorkflowOptions = {}): Workflow {
  if (!isUiWorkflow(uiWorkflow)) {
    throw new WorkflowConversionError('invalid_workflow', undefined, 'a workflow saved from the web UI has a "nodes" array and a "links" array', 'Pass the JSON file saved from the web UI (an API-format workflow needs no conversion)', summarize(uiWorkflow));
  }
  if (!isRecord(objectInfo)) throw new WorkflowConversionError('invalid_workflow', undefined, 'objectInfo is the map of node definitions', 'Pass await cloud.nodes.list()', summarize(objectInfo));
  const random = options.random ?? Math.random;
  const now = options.now ?? new Date();

  const root = loadWorkflow(expandGroupNodes(uiWorkflow, objectInfo), objectInfo);
  for (const node of allNodes(root)) if (node.kind === 'primitive') configurePrimitive(node);
  const order = computeExecutionOrder(root);

  // Virtual nodes apply themselves before any node is made into the prompt (graphToPrompt:
  // applyToGraph), those of muted and bypassed subgraphs too; a node without a subgraph expands to itself.
  const map: ExecMap = new Map();
  for (const node of order) {
    const exec = createExecNode(node);
    for (const inner of expandInstance(new Map(), exec)) if (inner.node.kind === 'primitive') applyPrimitive(inner.node, now);
    map.set(exec.id, exec);
    if (node.subgraph && !skipped(node)) expandInstance(map, exec);
  }

  const output: Workflow = Object.create(null);
  for (const exec of map.values()) {
    const { node } = exec;
    if (isVirtual(node) || skipped(node)) continue;
    output[exec.id] = toApiNode(map, exec, root, random, now);
  }

  for (const node of Object.values(output)) {
    for (const [name, value] of Object.entries(node.inputs)) {
      if (value === undefined || (Array.isArray(value) && value.length === 2 && !Object.hasOwn(output, String(value[0])))) delete node.inputs[name];
    }
  }
  return output;
}

/** A muted or bypassed node: it is not in the prompt. */
const skipped = (node: GraphNode) => node.mode === MODE_NEVER || node.mode === MODE_BYPASS;

function toApiNode(map: ExecMap, exec: ExecNode, root: Graph, random: () => number, now: Date): WorkflowNode {
  const { node } = exec;
  if (node.kind !== 'comfy' || node.comfyClass === undefined) {
    const group = isGroupType(node.type);
    throw new WorkflowConversionError(
      group ? 'unsupported_node' : 'unknown_node_type',
      nodeRef(exec),
      group ? `the group node's definition is not in the workflow's extra.groupNodes` : `the server has no node type "${node.type}"`,
      group ? 'Save the workflow again from the web UI with the group node in it, or convert the group node to a subgraph' : 'Install the node pack that provides it on the server, or replace, mute or bypass this node',
      node.type,
    );
  }
  const inputs: Record<string, unknown> = Object.create(null);
  for (const widget of node.widgets) {
    if (!widget.name || !widget.prompt) continue;
    inputs[widget.name] = wrap(widget.kind === 'custom-combo-index' ? customComboIndex(node.widgets) : serializeWidget(widget, root, random, now), widget.kind === 'curve');
  }
  for (const [index, input] of node.inputs.entries()) {
    const resolved = resolveInput(map, exec, index, new Set());
    if (!resolved) continue;
    inputs[input.name] = resolved.widget ? wrap(resolved.widget.value, false) : [resolved.originId, Number.parseInt(String(resolved.originSlot))];
  }
  return { inputs, class_type: node.comfyClass, _meta: { title: node.title as string } };
}

function serializeWidget(widget: Widget, root: Graph, random: () => number, now: Date): unknown {
  if (typeof widget.value !== 'string') return widget.value;
  if (widget.transform === 'dynamic-prompt') return processDynamicPrompt(widget.value, random);
  if (widget.transform === 'filename-prefix') return applyTextReplacements(root, widget.value, now);
  return widget.value;
}

// Comfy.CustomWidgets: the position of the chosen value among the option widgets, -1 when none.
function customComboIndex(widgets: Widget[]): number {
  const choice = widgets[0]?.value;
  return widgets.filter((widget) => widget.kind === 'custom-combo-option').findIndex((widget) => widget.value === choice);
}

// An array value would read as a link: the web UI sends it as {__value__: [...]}.
function wrap(value: unknown, curve: boolean): unknown {
  if (!Array.isArray(value)) return value;
  return curve ? { __type__: 'CURVE', __value__: value } : { __value__: value };
}

function summarize(value: unknown): unknown {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (isRecord(value)) return `an object with keys ${Object.keys(value).slice(0, 5).join(', ')}`;
  return value;
}
