// Follows a node's input back to the output that feeds it, as the web UI's ExecutableNodeDTO does
// (litegraph subgraph/ExecutableNodeDTO.ts): through reroutes and other virtual nodes, through
// bypassed nodes (the first input whose type fits), into subgraphs and out of them. A muted
// node feeds nothing. Every node of the flattened graph has an execution id, `outer:inner`
// inside subgraphs.
import { WorkflowConversionError, type WorkflowConversionCode, type WorkflowNodeRef } from './errors.js';
import { getNodeById, isVirtual, MODE_BYPASS, MODE_NEVER, SUBGRAPH_INPUT_ID, type GraphNode, type Link, type Widget } from './model.js';

export type ExecNode = ReturnType<typeof createExecNode>;

export type Resolved = { originId: string; originSlot: number; widget?: undefined } | { widget: { value: unknown }; originId?: undefined; originSlot?: undefined };

export type ExecMap = Map<string, ExecNode>;

/**
 * A node of the flattened graph: its execution id, the ids of the subgraph instances from the root
 * down to the one holding it (`path`), and that instance.
 */
export function createExecNode(node: GraphNode, path: string[] = [], instance?: GraphNode) {
  return { id: [...path, String(node.id)].join(':'), node, path, instance };
}

/** The node an error names: its execution id, type and title. */
export function nodeRef(exec: ExecNode): WorkflowNodeRef {
  const title = exec.node.title;
  return { nodeId: exec.id, nodeType: exec.node.type, nodeTitle: typeof title === 'string' ? title : undefined };
}

function fail(exec: ExecNode, code: WorkflowConversionCode, problem: string, fix: string, received?: unknown): never {
  throw new WorkflowConversionError(code, nodeRef(exec), problem, fix, received);
}

/** Inner nodes of a subgraph instance, depth first (SubgraphNode.getInnerNodes). */
export function expandInstance(map: ExecMap, exec: ExecNode, out: ExecNode[] = [], seen = new Set<GraphNode>()): ExecNode[] {
  const { node } = exec;
  if (!node.subgraph) return [exec];
  if (seen.has(node)) fail(exec, 'subgraph_cycle', `subgraph "${node.subgraph.name}" contains itself`, 'Remove the subgraph node that points back to its own subgraph');
  seen.add(node);
  map.set(exec.id, exec);
  const path = [...exec.path, String(node.id)];
  for (const inner of node.subgraph.graph.nodes) {
    const child = createExecNode(inner, path, node);
    if (inner.subgraph) expandInstance(map, child, out, new Set(seen));
    else {
      map.set(child.id, child);
      out.push(child);
    }
  }
  return out;
}

function linkOf(exec: ExecNode, linkId: unknown, what: string): Link {
  const link = exec.node.graph.links.get(linkId);
  if (!link) fail(exec, 'dangling_link', `${what} uses link ${String(linkId)}, which is not in the workflow's links`, 'Reconnect that input in the web UI and save the workflow again', linkId);
  return link;
}

export function resolveInput(map: ExecMap, exec: ExecNode, slot: number, visited: Set<string>, type?: unknown): Resolved | undefined {
  const key = `${exec.instance?.subgraph?.id}:${String(exec.node.id)}[I]${slot}`;
  if (visited.has(key)) fail(exec, 'link_cycle', `the links into input ${slot} go round in a circle (through reroutes or bypassed nodes)`, 'Break the loop of links in the web UI');
  visited.add(key);
  const input = exec.node.inputs.at(slot);
  if (!input) fail(exec, 'dangling_link', `a link arrives at input ${slot}, which the node does not have`, 'Reconnect the links of this node in the web UI');
  if (input.link == null) return undefined;
  const link = linkOf(exec, input.link, `input "${input.name}"`);
  const { instance } = exec;

  if (instance && link.origin_id === SUBGRAPH_INPUT_ID) {
    const outer = instance.inputs.at(link.origin_slot);
    const parent = map.get(exec.path.join(':'));
    if (!outer || !parent) fail(exec, 'dangling_link', `input "${input.name}" comes from subgraph input ${link.origin_slot}, which the subgraph node does not have`, 'Reconnect the subgraph inputs in the web UI');
    if (outer.link == null) {
      const widget = promotedWidget(instance, link.origin_slot);
      return widget ? { widget: { value: widget.value } } : undefined;
    }
    const outerLink = linkOf(parent, outer.link, `input "${outer.name}"`);
    return resolveInput(map, parent, outerLink.target_slot, visited);
  }

  const origin = getNodeById(exec.node.graph, link.origin_id);
  if (!origin) fail(exec, 'dangling_link', `input "${input.name}" is linked to node ${String(link.origin_id)}, which is not in the workflow`, 'Reconnect that input in the web UI and save the workflow again', link.origin_id);
  const originExec = map.get([...exec.path, String(origin.id)].join(':'));
  if (!originExec) fail(exec, 'dangling_link', `input "${input.name}" is linked to node ${String(origin.id)}, which cannot be reached`, 'Reconnect that input in the web UI');
  return resolveOutput(map, originExec, link.origin_slot, type ?? input.type, visited);
}

function resolveOutput(map: ExecMap, exec: ExecNode, slot: number, type: unknown, visited: Set<string>): Resolved | undefined {
  const key = `${exec.instance?.subgraph?.id}:${String(exec.node.id)}[O]${slot}`;
  if (visited.has(key)) fail(exec, 'link_cycle', `the links through output ${slot} go round in a circle (through reroutes or bypassed nodes)`, 'Break the loop of links in the web UI');
  visited.add(key);
  const { node } = exec;
  if (node.mode === MODE_NEVER) return undefined;
  if (node.mode === MODE_BYPASS) {
    const index = bypassSlot(exec, slot, type);
    return index === -1 ? undefined : resolveInput(map, exec, index, visited);
  }
  if (node.subgraph) return resolveSubgraphOutput(map, exec, slot, type, visited);
  if (isVirtual(node)) {
    const input = node.inputs[slot];
    const link = input?.link != null ? node.graph.links.get(input.link) : undefined;
    if (!link) return undefined;
    const target = getNodeById(node.graph, link.target_id);
    const targetExec = target ? map.get([...exec.path, String(target.id)].join(':')) : undefined;
    if (!targetExec) fail(exec, 'dangling_link', `link ${String(link.id)} through this ${node.type} points at node ${String(link.target_id)}, which is not in the workflow`, 'Reconnect the reroute in the web UI');
    return resolveInput(map, targetExec, link.target_slot, visited, type);
  }
  return { originId: exec.id, originSlot: slot };
}

// LiteGraph.isValidConnection: `*`, empty and matching types connect; lists are comma-separated.
export function isValidConnection(a: unknown, b: unknown): boolean {
  const left = a === '' || a === '*' ? 0 : a;
  const right = b === '' || b === '*' ? 0 : b;
  if (!left || !right || left == right) return true;
  const x = String(left).toLowerCase();
  const y = String(right).toLowerCase();
  if (!x.includes(',') && !y.includes(',')) return x === y;
  return x.split(',').some((one) => y.split(',').some((other) => isValidConnection(one, other)));
}

// ExecutableNodeDTO._getBypassSlotIndex: which input a bypassed node passes to output `slot`.
function bypassSlot(exec: ExecNode, slot: number, type: unknown): number {
  const { inputs, outputs } = exec.node;
  if (type === '*' || type === '') return inputs.length > slot ? slot : 0;
  const output = outputs[slot];
  if (!output) fail(exec, 'dangling_link', `a link leaves output ${slot}, which the node does not have`, 'Reconnect the links of this node in the web UI');
  const opposite = inputs[slot];
  if (opposite && isValidConnection(opposite.type, output.type) && isValidConnection(opposite.type, type)) return slot;
  const exact = inputs.findIndex((input) => input.type === type);
  if (exact !== -1) return exact;
  return inputs.findIndex((input) => isValidConnection(input.type, output.type) && isValidConnection(input.type, type));
}

function resolveSubgraphOutput(map: ExecMap, exec: ExecNode, slot: number, type: unknown, visited: Set<string>): Resolved | undefined {
  const { node } = exec;
  const definition = node.subgraph!;
  const output = definition.outputs[slot];
  if (!node.outputs[slot] || !output) fail(exec, 'dangling_link', `a link leaves output ${slot}, which the subgraph does not have`, 'Reconnect the links of this subgraph node in the web UI');
  const inner = output.linkIds.map((id) => definition.graph.links.get(id)).find((link) => link !== undefined);
  if (!inner) return undefined;
  const origin = getNodeById(definition.graph, inner.origin_id);
  const originExec = origin ? map.get([...exec.path, String(node.id), String(origin.id)].join(':')) : undefined;
  if (!originExec) fail(exec, 'dangling_link', `subgraph output "${output.name}" is fed by node ${String(inner.origin_id)}, which is not in the subgraph`, 'Reconnect the subgraph output in the web UI');
  return resolveOutput(map, originExec, inner.origin_slot, type, visited);
}

/**
 * The inner widget a subgraph instance's input shows (SubgraphNode._resolveInputWidget): the
 * first widget-bound input inside the subgraph that this subgraph input feeds. Instance inputs
 * follow the definition's inputs, so the index is the definition input's.
 */
export function promotedWidget(instance: GraphNode, inputIndex: number): Widget | undefined {
  const slot = instance.subgraph?.inputs[inputIndex];
  if (!slot) return undefined;
  const { graph } = instance.subgraph!;
  for (const linkId of slot.linkIds) {
    const link = graph.links.get(linkId);
    const target = link ? getNodeById(graph, link.target_id) : undefined;
    const targetInput = target?.inputs.find((candidate) => candidate.link === linkId);
    const widget = targetInput?.widgetName !== undefined ? target!.widgets.find((candidate) => candidate.name === targetInput.widgetName) : undefined;
    if (widget) return widget;
  }
  return undefined;
}
