// The saved `widgets_values` of a node put back on its widgets, as the web UI does on load:
// migrateWidgetsValues (utils/litegraphUtil) first, then LGraphNode.configure, which hands the
// values out in order to the widgets that are saved.
import { isRecord, own, type GraphNode } from './model.js';
import type { NodeTemplate } from './node-template.js';

/** Puts a node's saved widget values on its widgets (a list in order, or an object by name). */
export function setWidgetValues(node: GraphNode, template: NodeTemplate | null, saved: unknown): void {
  const values = migrateWidgetValues(node, template, saved ?? []);
  if (!values || typeof values !== 'object') return;
  // Node packs whose web UI code saves an object keyed by widget name (VideoHelperSuite) put each
  // value back on the widget of that name in their onConfigure; a widget without a key keeps its default.
  if (isRecord(values)) {
    for (const widget of node.widgets) if (widget.persist && Object.hasOwn(values, widget.name)) widget.value = values[widget.name];
    return;
  }
  const length = own(values, 'length');
  let index = 0;
  for (const widget of node.widgets) {
    if (!widget.persist) continue;
    if (typeof length === 'number' && index >= length) break;
    widget.value = own(values, index++);
  }
}

// migrateWidgetsValues: files from before forceInput inputs lost their widget still hold a value
// for them; drop those values when the count says so.
function migrateWidgetValues(node: GraphNode, template: NodeTemplate | null, values: unknown): unknown {
  if (!template || !Array.isArray(values)) return values;
  const names = new Set(node.widgets.map((widget) => widget.name));
  const forced = [...template.specs.values()]
    .filter((spec) => names.has(spec.name) || spec.options.forceInput)
    .flatMap((spec) => (spec.options.control_after_generate ? [!!spec.options.forceInput, false] : [!!spec.options.forceInput]));
  if (forced.length !== values.length) return values;
  return values.filter((_, index) => !forced[index]);
}
