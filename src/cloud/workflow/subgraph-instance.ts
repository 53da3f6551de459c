// A subgraph instance on load (litegraph SubgraphNode.configure and _rebindInputSubgraphSlots).
import type { GraphNode, InputSlot, SubgraphDefinition } from './model.js';

// The instance gets one input per definition input, in the definition's order: the saved input
// bound to it (by name and type, else by name, first come first served), or an unlinked one.
// Saved inputs that bind to nothing are dropped. Files exported from the web UI leave out
// unlinked widget inputs, and saved inputs need not follow the definition's order: links from
// inside the subgraph name a definition input, so the order must be the definition's.
//
// The instance's own widgets_values are not applied: its promoted widgets are views of the inner
// widgets and are not saved (web UI 1.45 PromotedWidgetView.serialize is false), so the inner
// nodes' saved values are what the prompt gets.
export function bindSubgraphInputs(node: GraphNode, definition: SubgraphDefinition, saved: InputSlot[] | undefined): void {
  const bound = new Map<number, InputSlot>();
  const take = (input: InputSlot, match: (index: number) => boolean) => {
    const at = definition.inputs.findIndex((_, index) => !bound.has(index) && match(index));
    if (at !== -1) bound.set(at, input);
    return at !== -1;
  };
  for (const input of saved ?? []) {
    const sameType = (index: number) => definition.inputs[index]!.name === input.name && String(definition.inputs[index]!.type) === String(input.type);
    if (!take(input, sameType)) take(input, (index) => definition.inputs[index]!.name === input.name);
  }
  node.inputs = definition.inputs.map((slot, index) => {
    const input = bound.get(index);
    return input ? { ...input, name: slot.name } : { name: slot.name, type: slot.type, link: null };
  });
}
