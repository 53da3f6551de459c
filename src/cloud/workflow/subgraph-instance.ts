// A subgraph instance on load (litegraph SubgraphNode.configure): its saved inputs bound to the
// definition's inputs, and its widget values written to the inner widgets they show.
import { getNodeById, type GraphNode, type InputSlot, type SubgraphDefinition, type SubgraphSlot, type Widget } from './model.js';
import { promotedWidget } from './resolve.js';

// SubgraphNode._rebindInputSubgraphSlots: saved inputs bind to the definition's inputs by
// name and type, then by name; unbound ones are dropped. Saved order is kept.
export function bindSubgraphInputs(node: GraphNode, definition: SubgraphDefinition, saved: InputSlot[] | undefined): void {
  if (!saved) return;
  const free = [...definition.inputs];
  const take = (match: (slot: SubgraphSlot) => boolean) => {
    const at = free.findIndex(match);
    return at === -1 ? undefined : free.splice(at, 1)[0];
  };
  node.inputs = saved.filter((input) => take((slot) => slot.name === input.name && String(slot.type) === String(input.type)) ?? take((slot) => slot.name === input.name));
}

// A subgraph node's widgets are views of widgets inside its subgraph (properties.proxyWidgets,
// else the widgets its inputs lead to); its saved values are written through to those inner
// widgets, so instances of one subgraph share them and the last one loaded wins.
export function applyPromotedValues(node: GraphNode, definition: SubgraphDefinition, values: unknown): void {
  if (!Array.isArray(values) || values.length === 0) return;
  const views: (Widget | undefined)[] = [];
  const proxies = node.properties.proxyWidgets;
  if (Array.isArray(proxies) && proxies.length > 0) {
    for (const entry of proxies) {
      if (!Array.isArray(entry) || typeof entry[1] !== 'string') continue;
      const name = entry[1];
      if (String(entry[0]) === '-1') {
        const index = node.inputs.findIndex((input) => input.name === name);
        views.push(index === -1 ? undefined : promotedWidget(node, index));
        continue;
      }
      const id = definition.remappedIds.get(String(entry[0])) ?? entry[0];
      views.push(getNodeById(definition.graph, id)?.widgets.find((widget) => widget.name === name));
    }
  } else {
    for (const index of node.inputs.keys()) {
      const widget = promotedWidget(node, index);
      if (widget) views.push(widget);
    }
  }
  for (const [index, view] of views.entries()) {
    if (index >= values.length) break;
    if (view) view.value = values[index];
  }
}
