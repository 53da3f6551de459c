// The order the web UI visits nodes in when it makes a prompt: litegraph's
// LGraph.computeExecutionOrder (Kahn's algorithm from nodes without linked inputs, in node order;
// nodes left over by cycles or dangling links follow in node-table key order).
import { getNodeById, type Graph, type GraphNode } from './model.js';

export function computeExecutionOrder(graph: Graph): GraphNode[] {
  const ordered: GraphNode[] = [];
  const starts: GraphNode[] = [];
  // A prototype-free object, like litegraph's node table: leftovers come out in its key order.
  const pending: Record<string, GraphNode> = Object.create(null);
  const remaining = new Map<string, number>();
  const visitedLinks = new Set<unknown>();

  for (const node of graph.nodes) {
    pending[String(node.id)] = node;
    const linked = node.inputs.filter((input) => input.link != null).length;
    if (linked === 0) starts.push(node);
    else remaining.set(String(node.id), linked);
  }

  for (let node = starts.shift(); node !== undefined; node = starts.shift()) {
    ordered.push(node);
    delete pending[String(node.id)];
    for (const output of node.outputs) {
      for (const linkId of output.links ?? []) {
        const link = graph.links.get(linkId);
        if (!link || visitedLinks.has(link.id)) continue;
        visitedLinks.add(link.id);
        const target = getNodeById(graph, link.target_id);
        if (!target) continue;
        const key = String(target.id);
        const left = (remaining.get(key) ?? Number.NaN) - 1;
        remaining.set(key, left);
        if (left === 0) starts.push(target);
      }
    }
  }
  for (const key in pending) ordered.push(pending[key]!);
  return ordered;
}
