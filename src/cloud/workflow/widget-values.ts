// The saved `widgets_values` of a node put back on its widgets, as the web UI does on load:
// migrateWidgetsValues (utils/litegraphUtil) first, then LGraphNode.configure, which hands the
// values out in order to the widgets that are saved.
import { isRecord, own } from '../../core/index.js';
import type { Widget } from './model.js';
import type { NodeTemplate } from './node-template.js';

/** Puts a node's saved widget values on its widgets (a list in order, or an object by name). */
export function setWidgetValues(widgets: Widget[], template: NodeTemplate | null, saved: unknown): void {
  const values = migrateWidgetValues(widgets, template, saved ?? []);
  if (!values || typeof values !== 'object') return;
  // Node packs whose web UI code saves an object keyed by widget name (VideoHelperSuite) put each
  // value back on the widget of that name in their onConfigure; a widget without a key keeps its default.
  const byName = isRecord(values);
  const length = own(values, 'length');
  let index = 0;
  // A dynamic combo adds widgets after itself while the loop runs: they take the values that follow.
  for (let at = 0; at < widgets.length; at++) {
    const widget = widgets[at]!;
    if (!widget.persist) continue;
    if (byName) {
      if (Object.hasOwn(values, widget.name)) setValue(widgets, widget, values[widget.name]);
      continue;
    }
    if (typeof length === 'number' && index >= length) break;
    setValue(widgets, widget, own(values, index++));
  }
}

// Setting a dynamic combo (even to the same value) replaces the widgets it added with those of
// the new value (core/graph/widgets/dynamicWidgets updateWidgets; VideoHelperSuite's format
// widgets likewise). A CustomCombo's index ignores what is set; a value in its last option
// widget adds the next, empty one (Comfy.CustomWidgets).
function setValue(widgets: Widget[], widget: Widget, value: unknown): void {
  if (widget.kind === 'custom-combo-index') return;
  widget.value = value;
  if (widget.kind === 'custom-combo-option' && value && widgets.at(-1) === widget) {
    widgets.push({ ...widget, name: `option${widgets.length - 1}`, value: '' });
  }
  if (!widget.dynamic) return;
  const prefix = `${widget.name}.`;
  for (let at = widgets.length - 1; at >= 0; at--) {
    const other = widgets[at]!;
    if (other.name.startsWith(prefix) || other.owner === widget.name) widgets.splice(at, 1);
  }
  widgets.splice(widgets.indexOf(widget) + 1, 0, ...widget.dynamic(value));
}

// migrateWidgetsValues: files from before forceInput inputs lost their widget still hold a value
// for them; drop those values when the count says so.
function migrateWidgetValues(widgets: Widget[], template: NodeTemplate | null, values: unknown): unknown {
  if (!template || !Array.isArray(values)) return values;
  const names = new Set(widgets.map((widget) => widget.name));
  const forced = [...template.specs.values()]
    .filter((spec) => names.has(spec.name) || spec.options.forceInput)
    .flatMap((spec) => (spec.options.control_after_generate ? [!!spec.options.forceInput, false] : [!!spec.options.forceInput]));
  if (forced.length !== values.length) return values;
  return values.filter((_, index) => !forced[index]);
}
