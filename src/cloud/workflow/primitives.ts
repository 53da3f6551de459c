// Primitive nodes (the web UI's PrimitiveNode of extensions/core/widgetInputs): after loading,
// one that feeds widget inputs gets a copy of the first target's widget holding its saved value;
// when the prompt is made it writes that value into every widget it is linked to
// (applyFirstWidgetValueToGraph). It is virtual: it never appears in the prompt.
import { getNodeById, type GraphNode } from './model.js';
import { hasWidget } from './node-template.js';
import { promotedWidget } from './resolve.js';
import { applyTextReplacements } from './text.js';

const REPLACE_PROPERTY = 'Run widget replace on values';

/** PrimitiveNode.onAfterGraphConfigured, for one primitive (configuring it again changes nothing). */
export function configurePrimitive(node: GraphNode): void {
  const linkId = node.outputs[0]?.links?.[0];
  const link = linkId === undefined ? undefined : node.graph.links.get(linkId);
  const target = link ? getNodeById(node.graph, link.target_id) : undefined;
  const input = link && target ? target.inputs[link.target_slot] : undefined;
  if (!input) return;
  let value: unknown;
  if (input.widgetName !== undefined) value = target!.widgets.find((widget) => widget.name === input.widgetName)?.value;
  else if (!(typeof input.type === 'string' && hasWidget(input.type))) return;
  const saved = node.savedValues;
  if (Array.isArray(saved) && saved.length > 0) value = saved[0];
  node.widgets = [{ name: 'value', value, kind: 'value', persist: true, prompt: true }];
}

/** PrimitiveNode.applyToGraph: the primitive's value goes into each widget it is linked to. */
export function applyPrimitive(node: GraphNode, now: Date): void {
  const source = node.widgets[0];
  if (!source) return;
  let value = source.value;
  if (value && node.properties[REPLACE_PROPERTY] && typeof value === 'string') value = applyTextReplacements(node.graph, value, now);
  for (const linkId of node.outputs[0]?.links ?? []) {
    const link = node.graph.links.get(linkId);
    const target = link ? getNodeById(node.graph, link.target_id) : undefined;
    const input = link && target ? target.inputs[link.target_slot] : undefined;
    if (!input || input.widgetName === undefined) continue;
    // A subgraph node's input shows an inner widget: the value goes there (PromotedWidgetView).
    const widget = target!.subgraph ? promotedWidget(target!, link!.target_slot) : target!.widgets.find((candidate) => candidate.name === input.widgetName);
    if (!widget) continue;
    // applyFirstWidgetValueToGraph sets the value, then calls the widget's callback.
    widget.value = value;
    if (widget.normalize) widget.value = widget.normalize(widget.value);
  }
}
