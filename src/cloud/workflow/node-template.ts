// What a node of a given type looks like when the web UI creates it from its definition: its
// sockets, its widgets (with the extra widgets the UI adds) and its outputs. Follows the
// frontend's litegraphService (addInputs: sockets first, then widgets), nodeDefOrderingUtil
// (input_order), schemas/nodeDef/migration (V1 to V2 specs), scripts/widgets and the widget
// composables (useIntWidget, useComboWidget...), and the core extensions that change a
// definition before registering it (uploadImage, uploadAudio, previewAny).
import type { NodeDefinition, ObjectInfo } from './validate.js';
import { isRecord, own } from '../../core/index.js';
import type { InputSlot, Widget } from './model.js';

/** One input definition in the frontend's V2 shape: type, name, and the options spread in. */
export interface InputSpecV2 {
  name: string;
  type: string;
  isOptional: boolean;
  options: Record<string, unknown>;
  /** The values of a combo. */
  comboOptions: unknown[];
}

/** An input slot as the definition makes it, before it is linked. */
export type SocketTemplate = Pick<InputSlot, 'name' | 'widgetName'> & { type: string };

/** A node type as the web UI creates it: `templateOf()`'s result. */
export type NodeTemplate = NonNullable<ReturnType<typeof templateOf>>;

const AUDIO_UI_NODES = new Set(['LoadAudio', 'SaveAudio', 'PreviewAudio', 'SaveAudioMP3', 'SaveAudioOpus']);
/** Save nodes whose `filename_prefix` gets `%node.widget%` and `%date:...%` replacements. */
export const SAVE_NODES = new Set(['SaveImage', 'SaveVideo', 'SaveAnimatedWEBP', 'SaveWEBM', 'SaveAudio', 'SaveGLB', 'SaveAnimatedPNG', 'CLIPSave', 'VAESave', 'ModelSave', 'LoraSave', 'SaveLatent']);
const SEED_NAMES = new Set(['seed', 'noise_seed']);

type WidgetFactory = (spec: InputSpecV2) => Widget[];

const widget = (name: string, value: unknown, kind: string, persist = true, prompt = true): Widget => ({ name, value, kind, persist, prompt });
const controlWidget = (mode: unknown): Widget => widget('control_after_generate', mode, 'combo', true, false);
/** `widgets`, then a control_after_generate combo when `control` is set (its mode, or `fallback`). */
const withControl = (widgets: Widget[], control: unknown, fallback: string): Widget[] =>
  control ? [...widgets, controlWidget(typeof control === 'string' ? control : fallback)] : widgets;
const numeric = (spec: InputSpecV2, normalize: Widget['normalize']): Widget => ({
  ...widget(spec.name, spec.options.default ?? 0, 'number'),
  normalize,
});

// scripts/widgets.ts ComfyWidgets plus the custom widgets of core extensions that matter here.
const WIDGET_FACTORIES = Object.assign<Record<string, WidgetFactory>, Record<string, WidgetFactory>>(Object.create(null), {
  INT: (spec) =>
    withControl([numeric(spec, roundToStep(spec))], spec.options.control_after_generate ?? SEED_NAMES.has(spec.name), 'randomize'),
  FLOAT: (spec) => withControl([numeric(spec, roundFloat(spec))], spec.options.control_after_generate, 'fixed'),
  BOOLEAN: (spec) => [widget(spec.name, spec.options.default ?? false, 'toggle')],
  STRING: (spec) => {
    const text = widget(spec.name, spec.options.default ?? '', 'text');
    if (spec.options.dynamicPrompts === true) text.transform = 'dynamic-prompt';
    return [text];
  },
  MARKDOWN: (spec) => [widget(spec.name, spec.options.default ?? '', 'markdown')],
  COMBO: comboWidgets,
  COMFY_DYNAMICCOMBO_V3: dynamicComboWidgets,
  IMAGEUPLOAD: (spec) => [widget(spec.name, 'image', 'button', true, false)],
  AUDIO_UI: (spec) => [widget(spec.name, '', 'audio', false, true)],
  AUDIOUPLOAD: (spec) => [widget(spec.name, '', 'button', true, false)],
  COLOR: (spec) => [widget(spec.name, spec.options.default || '#000000', 'color')],
  TEXTAREA: (spec) => [widget(spec.name, spec.options.default || '', 'textarea')],
  PAINTER: (spec) => [widget(spec.name, spec.options.default ?? '', 'painter')],
  RANGE: (spec) => [widget(spec.name, spec.options.default ?? { min: 0, max: 1 }, 'range')],
  CHART: (spec) => [widget(spec.name, spec.options.data || {}, 'chart')],
  CURVE: (spec) => [widget(spec.name, spec.options.default, 'curve')],
  IMAGECOMPARE: (spec) => [widget(spec.name, ['', ''], 'imagecompare', false, true)],
  BOUNDING_BOX: (spec) => {
    const bounds = isRecord(spec.options.default) ? spec.options.default : { x: 0, y: 0, width: 512, height: 512 };
    return [widget(spec.name, { ...bounds }, 'boundingbox'), ...['x', 'y', 'width', 'height'].map((field) => widget(field, own(bounds, field), 'number', true, false))];
  },
});

const numberOption = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

// useIntWidget onValueChange: a value set through the widget is rounded to its step (from min).
// A value that is not a number (a hand-edited file) is passed on for the server to name.
function roundToStep(spec: InputSpecV2): (value: unknown) => unknown {
  const step = numberOption(spec.options.step) || 1;
  const offset = (numberOption(spec.options.min) ?? 0) % step;
  return (value) => (typeof value !== 'number' ? value : step === 1 ? Math.round(value) : Math.round((value - offset) / step) * step + offset);
}

// useFloatWidget onFloatValueChange, with the default settings (rounding on, precision from the
// step): the value is rounded to that precision and clamped to min (0) and max (2048) by default.
function roundFloat(spec: InputSpecV2): ((value: unknown) => unknown) | undefined {
  const precision = Math.max(0, -Math.floor(Math.log10(numberOption(spec.options.step) ?? 0.5)));
  const round = precision && !spec.options.round ? 10 ** -precision : numberOption(spec.options.round);
  if (!round) return undefined;
  const min = numberOption(spec.options.min) ?? 0;
  const max = numberOption(spec.options.max) ?? 2048;
  return (value) => (typeof value !== 'number' ? value : Math.min(Math.max(Number((Math.round(value / round) * round).toFixed(precision)), min), max));
}

function comboWidgets(spec: InputSpecV2): Widget[] {
  const control = spec.options.control_after_generate;
  if (spec.options.multi_select) return withControl([widget(spec.name, [], 'multiselect')], control, 'fixed');
  // VideoHelperSuite lists some choices as [value, widget specs]: choosing one adds its widgets.
  const added = new Map<unknown, unknown[]>();
  const values = spec.comboOptions.map((option) => {
    if (!Array.isArray(option)) return option;
    if (Array.isArray(option[1])) added.set(option[0], option[1]);
    return option[0];
  });
  const fallback = values.length > 0 ? values[0] : spec.options.remote ? 'Loading...' : undefined;
  const combo = widget(spec.name, spec.options.default || fallback, 'combo');
  const widgets = [combo];
  if (added.size > 0) {
    combo.dynamic = (value) =>
      (added.get(value) ?? []).flatMap((entry) => (Array.isArray(entry) && typeof entry[0] === 'string' ? createWidgets(toSpecV2(entry[0], entry.slice(1), false)) : [])).map((sub) => ({ ...sub, owner: spec.name }));
    widgets.push(...combo.dynamic(combo.value));
  }
  // A combo's control also gets a filter-list text widget (addValueControlWidgets).
  if (control) widgets.push(controlWidget(typeof control === 'string' ? control : 'randomize'), widget('control_filter_list', '', 'text', true, false));
  return widgets;
}

// core/graph/widgets/dynamicWidgets: the combo lists the option keys, the first being its value
// (a default in the spec is not used), and its value adds that option's inputs right after it as
// `combo.input` widgets at their defaults (sockets for types without a widget).
function dynamicComboWidgets(spec: InputSpecV2): Widget[] {
  const options = new Map<string, InputSpecV2[]>();
  for (const option of Array.isArray(spec.options.options) ? spec.options.options : []) {
    if (!isRecord(option) || typeof option.key !== 'string' || options.has(option.key)) continue;
    const inputs = isRecord(option.inputs) ? option.inputs : {};
    const specs = (['required', 'optional'] as const).flatMap((group) => {
      const entries = own(inputs, group);
      if (!isRecord(entries)) return [];
      return Object.entries(entries).map(([key, raw]) => toSpecV2(`${spec.name}.${key}`, raw, group === 'optional'));
    });
    options.set(option.key, specs);
  }
  const combo = widget(spec.name, options.keys().next().value, 'combo');
  combo.dynamic = (value) => (typeof value === 'string' ? (options.get(value) ?? []) : []).flatMap((sub) => (sub.options.forceInput ? [] : createWidgets({ ...sub, type: widgetTypeOf(sub) })));
  return [combo, ...combo.dynamic(combo.value)];
}

function widgetTypeOf(spec: InputSpecV2): string {
  return typeof spec.options.widgetType === 'string' ? spec.options.widgetType : spec.type;
}

/** True when the web UI gives inputs of this type a widget. */
export function hasWidget(type: string): boolean {
  return WIDGET_FACTORIES[type] !== undefined;
}

/**
 * The widgets the web UI creates for one input definition (a seed's value and its
 * control_after_generate mode, an upload button...).
 */
export function createWidgets(spec: InputSpecV2): Widget[] {
  return WIDGET_FACTORIES[spec.type]?.(spec) ?? [];
}

/** An object_info input definition `[type, options?]` in the frontend's V2 shape. */
export function toSpecV2(name: string, raw: unknown, isOptional: boolean): InputSpecV2 {
  const typeOrList = Array.isArray(raw) ? raw[0] : undefined;
  const rawOptions = Array.isArray(raw) ? raw[1] : undefined;
  const options: Record<string, unknown> = Object.assign(Object.create(null), isRecord(rawOptions) ? rawOptions : {});
  if (Array.isArray(typeOrList)) return { name, type: 'COMBO', isOptional, options, comboOptions: typeOrList };
  if (typeOrList === 'COMBO') return { name, type: 'COMBO', isOptional, options, comboOptions: Array.isArray(options.options) ? options.options : [] };
  return { name, type: typeof typeOrList === 'string' ? typeOrList : 'UNKNOWN', isOptional, options, comboOptions: [] };
}

/** Entries of `input.required` / `input.optional`, with the core extensions' additions. */
function definitionInputs(className: string, def: NodeDefinition): { required: [string, unknown][]; optional: [string, unknown][] } {
  const entries = (group: unknown): [string, unknown][] => (isRecord(group) ? Object.entries(group) : []);
  const input = isRecord(def.input) ? def.input : {};
  // A Map keeps an entry's place when it is set again, as the extensions' assignments do.
  const required = new Map(entries(input.required));
  if (isRecord(input.required)) {
    // Comfy.AudioWidget, then Comfy.UploadAudio, then Comfy.UploadImage (their registration order).
    if (AUDIO_UI_NODES.has(className)) required.set('audioUI', ['AUDIO_UI', {}]);
    const audio = required.get('audio');
    if (Array.isArray(audio) && isRecord(audio[1]) && audio[1].audio_upload === true) required.set('upload', ['AUDIOUPLOAD', {}]);
    const media = [...required].find(([, spec]) => isMediaUploadCombo(spec));
    if (media) {
      const [mediaName, mediaSpec] = media as [string, unknown[]];
      required.set('upload', ['IMAGEUPLOAD', { ...(isRecord(mediaSpec[1]) ? mediaSpec[1] : {}), imageInputName: mediaName }]);
    }
  }
  return { required: [...required], optional: entries(input.optional) };
}

function isMediaUploadCombo(spec: unknown): boolean {
  if (!Array.isArray(spec) || !isRecord(spec[1])) return false;
  const options = spec[1];
  const upload = options.image_upload === true || options.video_upload === true || options.animated_image_upload === true;
  return upload && (Array.isArray(spec[0]) || spec[0] === 'COMBO');
}

/** The inputs in creation order: `input_order` when the definition has it, else definition order. */
function orderSpecs(def: NodeDefinition, specs: Map<string, InputSpecV2>): InputSpecV2[] {
  const order = isRecord(def.input_order) ? def.input_order : undefined;
  if (!order) return [...specs.values()];
  const listed = (['required', 'optional'] as const).flatMap((group) =>
    (Array.isArray(order[group]) ? order[group] : []).flatMap((name: unknown) => {
      const spec = typeof name === 'string' ? specs.get(name) : undefined;
      return spec && spec.isOptional === (group === 'optional') ? [spec] : [];
    }),
  );
  const seen = new Set(listed);
  return [...listed, ...[...specs.values()].filter((spec) => !seen.has(spec))];
}

/** The template of a node type, built from its object_info definition; `null` for a type the server lacks. */
export function templateOf(objectInfo: ObjectInfo, className: string) {
  const def = own(objectInfo, className);
  if (!isRecord(def)) return null;
  const { required, optional } = definitionInputs(className, def);
  // Input specs by name, in the definition's order (required, then optional).
  const specs = new Map<string, InputSpecV2>();
  for (const [name, raw] of required) specs.set(name, toSpecV2(name, raw, false));
  for (const [name, raw] of optional) specs.set(name, toSpecV2(name, raw, true));
  // defaultInput on an optional input means forceInput (ComfyNodeDefImpl._migrateDefaultInput).
  for (const spec of specs.values()) if (spec.isOptional && spec.options.defaultInput) spec.options.forceInput = true;

  // Sockets first, then the widgets with their sockets (addInputs).
  const ordered = orderSpecs(def, specs);
  const isWidget = (spec: InputSpecV2) => hasWidget(widgetTypeOf(spec)) && !spec.options.forceInput;
  const shown = ordered.filter(isWidget);
  // A COMFY_AUTOGROW_V3 input's sockets are added at run time; saved ones come back as extra inputs.
  const sockets: SocketTemplate[] = ordered
    .filter((spec) => !isWidget(spec) && spec.type !== 'COMFY_AUTOGROW_V3')
    .map((spec) => ({ name: spec.name, type: matchTypeOf(spec) }));
  const widgets = shown.flatMap((spec) => createWidgets({ ...spec, type: widgetTypeOf(spec) }));
  sockets.push(...shown.map((spec) => ({ name: spec.name, type: spec.type, widgetName: spec.name })));
  if (className === 'CustomCombo' && widgets.length > 0) {
    // Comfy.CustomWidgets: an `index` widget (the choice's position among the options, worked out
    // when the prompt is made; it takes a saved slot but ignores it) and the first option widget.
    widgets.splice(1, 0, widget('index', -1, 'custom-combo-index'), widget('option1', '', 'custom-combo-option'));
  }
  if (className === 'PreviewAny') {
    // Comfy.PreviewAny adds its display widgets when the node is created.
    widgets.push(widget('preview_markdown', '', 'markdown', false, false), widget('preview_text', '', 'text', false, false), widget('previewMode', false, 'toggle', true, false));
  }
  if (SAVE_NODES.has(className)) for (const w of widgets) if (w.name === 'filename_prefix') w.transform = 'filename-prefix';

  const outputTypes = Array.isArray(def.output) ? def.output : [];
  const outputs = outputTypes.map((type, index) => ({
    name: (Array.isArray(def.output_name) ? def.output_name[index] : undefined) || `output_${index}`,
    type: Array.isArray(type) ? 'COMBO' : type === 'COMFY_MATCHTYPE_V3' ? '*' : String(type),
  }));
  const title = (typeof def.display_name === 'string' && def.display_name) || (typeof def.name === 'string' && def.name) || className;
  return { className, title, specs, sockets, widgets, outputs };
}

function matchTypeOf(spec: InputSpecV2): string {
  if (spec.type !== 'COMFY_MATCHTYPE_V3') return spec.type;
  const allowed = own(own(spec.options, 'template'), 'allowed_types');
  return typeof allowed === 'string' ? allowed : spec.type;
}
