// One node's inputs as a TypeScript type, exactly as the catalog declares them: the rules of
// docs/workflows.md#generating-node-types, and the loose types of
// docs/workflows.md#what-falls-back-to-a-loose-type-and-why.
//
// The V3 dynamic kinds are typed as the runtime expands them into an API prompt (ComfyUI's
// comfy_api/latest/_io.py, parse_class_inputs()): a dynamic combo `mode` sends its chosen key as
// `mode` and the chosen option's inputs as `mode.<input>`; an autogrow `images` sends its inputs as
// `images.<name>` (names listed, or `<prefix>0`, `<prefix>1`... up to `max`), the first `min` of them
// required when the template input is; a match-type input takes a link of one of its allowed types;
// a dynamic slot, once linked, adds its inputs as `<slot>.<input>`.
import { isRecord, own } from '../core/index.js';
import { byCodeUnit, docComment, literalType, propertyKey, shortJson, stringLiteral } from './text.js';

/** One property of an inputs object. */
interface Field {
  key: string;
  optional: boolean;
  type: string;
  doc: string[];
}

/** An inputs object: its properties, and the unions it is intersected with (one per dynamic combo or slot). */
interface InputsObject {
  fields: Map<string, Field>;
  unions: InputsObject[][];
}

/** What typing one node's inputs needs, and what it found. */
export interface InputContext {
  /** Above this many options, a combo is typed by its values' kinds (`string`). */
  maxComboOptions: number;
  /** Set when an input is of a kind the generator does not know: the node takes any input. */
  loose: boolean;
  /** Set when a type written uses `Link` (the module then imports it). */
  links: boolean;
}

const PRIMITIVES: Readonly<Record<string, string>> = { INT: 'number', FLOAT: 'number', STRING: 'string', BOOLEAN: 'boolean' };
// The runtime refuses more names than this for an autogrow input (Autogrow._MaxNames).
const MAX_AUTOGROW_NAMES = 100;
const KIND = /^COMFY_\w*_V3$/;

/**
 * The inputs type of one node definition's `input` (hidden inputs left out), and whether it fell
 * back to any input (`context.loose`).
 *
 * @example
 * ```ts
 * const context = { maxComboOptions: 200, loose: false, links: false };
 * inputsType({ required: { seed: ['INT', { min: 0 }] } }, context, '    '); // '{\n      seed: number | Link<'INT'>; ...'
 * ```
 */
export function inputsType(input: unknown, context: InputContext, indent: string): string {
  const root = newObject();
  readInputs(input, '', root, context);
  return render(root, indent, context.loose);
}

function newObject(): InputsObject {
  return { fields: new Map(), unions: [] };
}

/** The `required` then `optional` inputs of an inputs dictionary, under `prefix`. */
function readInputs(input: unknown, prefix: string, target: InputsObject, context: InputContext): void {
  for (const section of ['required', 'optional'] as const) {
    const specs = own(input, section);
    if (!isRecord(specs)) continue;
    for (const [name, spec] of Object.entries(specs)) readInput(prefix === '' ? name : `${prefix}.${name}`, spec, section === 'optional', target, context);
  }
}

function addField(target: InputsObject, field: Field): void {
  // A name given twice (required and optional, or a dotted name met again) keeps its first type.
  if (!target.fields.has(field.key)) target.fields.set(field.key, field);
}

function readInput(key: string, spec: unknown, optional: boolean, target: InputsObject, context: InputContext): void {
  const [type, given] = Array.isArray(spec) ? (spec as unknown[]) : [];
  const options = isRecord(given) ? given : {};
  const doc = inputDoc(options);
  const field = (value: string, extra: string[] = []): void => addField(target, { key, optional, type: value, doc: [...doc, ...extra] });
  if (Array.isArray(type)) return field(...comboType(type, context));
  if (typeof type !== 'string') return field('unknown', ['The catalog gives this input no type the generator reads: it takes any value.']);
  switch (type) {
    case 'COMBO':
      if (options.multiselect === true) return field('unknown', ['A multiple-choice combo: it takes any value.']);
      return field(...comboType(own(options, 'options'), context));
    case 'COMFY_DYNAMICCOMBO_V3':
      return dynamicCombo(key, options, optional, doc, target, context) ? undefined : looseInput(key, target, context, doc);
    case 'COMFY_AUTOGROW_V3':
      return autogrow(key, options, doc, target, context) ? undefined : looseInput(key, target, context, doc);
    case 'COMFY_MATCHTYPE_V3': {
      const template = own(options, 'template');
      const allowed = own(template, 'allowed_types');
      return field(valueType(typeof allowed === 'string' ? allowed : '*', {}, context));
    }
    case 'COMFY_DYNAMICSLOT_V3':
      return dynamicSlot(key, options, doc, target, context) ? undefined : looseInput(key, target, context, doc);
    default:
      if (KIND.test(type)) return looseInput(key, target, context, doc);
      return field(valueType(type, options, context));
  }
}

/** An input of a kind the generator cannot type: itself optional and of any value, and the node takes any input. */
function looseInput(key: string, target: InputsObject, context: InputContext, doc: string[]): void {
  context.loose = true;
  addField(target, { key, optional: true, type: 'unknown', doc: [...doc, 'An input kind the generator does not know: this node takes any input (`[input: string]: unknown`).'] });
}

/**
 * A value input or a link input of type `type` (`IMAGE`, `INT`, `IMAGE,MASK`, `*`): a primitive
 * widget takes its value or a link; a widget of another kind (it has a `default`, or is
 * socketless) the kind of its default; anything else only a link.
 */
function valueType(type: string, options: Record<string, unknown>, context: InputContext): string {
  const parts = [...new Set(type.split(',').map((part) => part.trim()).filter((part) => part !== ''))];
  const values = new Set(parts.flatMap((part) => (Object.hasOwn(PRIMITIVES, part) ? [PRIMITIVES[part]!] : [])));
  const widget = own(options, 'widgetType');
  if (typeof widget === 'string' && Object.hasOwn(PRIMITIVES, widget)) values.add(PRIMITIVES[widget]!);
  if (values.size === 0 && (Object.hasOwn(options, 'default') || options.socketless === true || typeof widget === 'string')) {
    const kind = typeof options.default;
    if (kind !== 'string' && kind !== 'number' && kind !== 'boolean') return 'unknown';
    values.add(kind);
  }
  const link = parts.length === 0 || parts.includes('*') ? 'Link<string>' : `Link<${parts.map(stringLiteral).join(' | ')}>`;
  context.links = true;
  return [...values, link].join(' | ');
}

/** A combo: the union of its options and a link; by the options' kinds above the limit or when empty. */
function comboType(list: unknown, context: InputContext): [string, string[]] {
  const [values, doc] = comboValues(list, context.maxComboOptions);
  if (values === undefined) return ['unknown', doc];
  context.links = true;
  return [`${values} | Link<'COMBO'>`, doc];
}

/** The value type of a combo (without its link), or `undefined` for one of any value. */
function comboValues(list: unknown, max: number): [string | undefined, string[]] {
  if (!Array.isArray(list)) return ['string', ['The catalog lists no options: typed as `string`.']];
  const options: (string | number | boolean)[] = [];
  const seen = new Set<string>();
  for (const option of list) {
    if (!(typeof option === 'string' || typeof option === 'boolean' || (typeof option === 'number' && Number.isFinite(option)))) {
      return [undefined, ['An option that is not a string, number or boolean: it takes any value.']];
    }
    const id = `${typeof option}:${String(option)}`;
    if (!seen.has(id)) options.push(option);
    seen.add(id);
  }
  if (options.length === 0) return ['string', ['The server listed no options (an empty folder?): typed as `string`.']];
  if (options.length > max) {
    const kinds = [...new Set(options.map((option) => typeof option))].sort(byCodeUnit).join(' | ');
    return [kinds, [`One of ${options.length} options, more than maxComboOptions (${max}): typed as \`${kinds}\`.`]];
  }
  return [options.map(literalType).join(' | '), []];
}

/** A dynamic combo: one object per option, its key and its inputs under `key.`. */
function dynamicCombo(key: string, options: Record<string, unknown>, optional: boolean, doc: string[], target: InputsObject, context: InputContext): boolean {
  const list = own(options, 'options');
  if (!Array.isArray(list) || list.length === 0 || !list.every((option) => typeof own(option, 'key') === 'string')) return false;
  const members: InputsObject[] = [];
  // Left out, a combo adds no inputs (the runtime expands only a key it was sent).
  if (optional) members.push(single(key, 'undefined', true, doc));
  const seen = new Set<string>();
  for (const option of list) {
    const name = own(option, 'key') as string;
    if (seen.has(name)) continue;
    seen.add(name);
    const member = single(key, literalType(name), false, doc);
    readInputs(own(option, 'inputs'), key, member, context);
    members.push(member);
  }
  target.unions.push(members);
  return true;
}

/** A dynamic slot: left out, or given with its inputs under `key.`. */
function dynamicSlot(key: string, options: Record<string, unknown>, doc: string[], target: InputsObject, context: InputContext): boolean {
  const slot = own(options, 'slotType');
  if (typeof slot !== 'string') return false;
  const given = single(key, valueType(slot, {}, context), false, doc);
  readInputs(own(options, 'inputs'), key, given, context);
  target.unions.push([single(key, 'undefined', true, doc), given]);
  return true;
}

/** An autogrow: its template input under each name, `key.<name>`. */
function autogrow(key: string, options: Record<string, unknown>, doc: string[], target: InputsObject, context: InputContext): boolean {
  const template = own(options, 'template');
  const input = own(template, 'input');
  const min = own(template, 'min');
  const listed = own(template, 'names');
  const prefix = own(template, 'prefix');
  const max = own(template, 'max');
  let names: string[];
  if (listed !== undefined) {
    if (!Array.isArray(listed) || !listed.every((name) => typeof name === 'string')) return false;
    names = listed.slice(0, MAX_AUTOGROW_NAMES);
  } else if (typeof prefix === 'string' && Number.isInteger(max) && (max as number) >= 0 && (max as number) <= MAX_AUTOGROW_NAMES) {
    names = Array.from({ length: max as number }, (_, i) => `${prefix}${i}`);
  } else return false;
  // The template is the first input of its first non-empty group (the runtime's rule).
  const group = isRecord(input) ? Object.entries(input).find(([, specs]) => isRecord(specs) && Object.keys(specs).length > 0) : undefined;
  if (!group) return false;
  const [section, specs] = group as [string, Record<string, unknown>];
  const [, spec] = Object.entries(specs)[0]!;
  const [type] = Array.isArray(spec) ? (spec as unknown[]) : [];
  if (typeof type === 'string' && KIND.test(type) && type !== 'COMFY_MATCHTYPE_V3') return false;
  const required = section === 'required' ? (Number.isInteger(min) ? (min as number) : 0) : 0;
  names.forEach((name, i) => {
    const one = newObject();
    readInput(`${key}.${name}`, spec, i >= required, one, context);
    for (const field of one.fields.values()) addField(target, { ...field, doc: [...doc, ...field.doc] });
  });
  return true;
}

function single(key: string, type: string, optional: boolean, doc: string[]): InputsObject {
  const object = newObject();
  object.fields.set(key, { key, optional, type, doc });
  return object;
}

function render(object: InputsObject, indent: string, loose: boolean): string {
  const inner = `${indent}  `;
  const fields = [...object.fields.values()].sort((a, b) => byCodeUnit(a.key, b.key));
  const lines = fields.map((field) => `${docComment(tagsLast(field.doc), inner)}${inner}${propertyKey(field.key)}${field.optional ? '?' : ''}: ${field.type};\n`);
  if (loose) lines.unshift(`${inner}[input: string]: unknown;\n`);
  const base = lines.length === 0 ? 'Record<never, never>' : `{\n${lines.join('')}${indent}}`;
  if (object.unions.length === 0) return base;
  const unions = object.unions.map((members) => `(${members.map((member) => render(member, indent, false)).join(' | ')})`);
  return [...(lines.length === 0 ? [] : [base]), ...unions].join(' & ');
}

/** Doc lines with the tags (`@default`) after the text: a tag takes the lines that follow it. */
function tagsLast(doc: readonly string[]): string[] {
  return [...doc.filter((line) => !line.startsWith('@')), ...doc.filter((line) => line.startsWith('@'))];
}

/** The doc lines of an input: its tooltip, default and bounds. */
function inputDoc(options: Record<string, unknown>): string[] {
  const doc: string[] = [];
  const tooltip = own(options, 'tooltip');
  if (typeof tooltip === 'string' && tooltip.trim() !== '') doc.push(tooltip.trim());
  const bounds = (['min', 'max', 'step'] as const).flatMap((name) => {
    const value = own(options, name);
    return typeof value === 'number' ? [`${name} ${value}`] : [];
  });
  if (bounds.length > 0) doc.push(`${bounds.join(', ')}.`.replace(/^./, (c) => c.toUpperCase()));
  if (Object.hasOwn(options, 'default')) doc.push(`@default ${shortJson(options.default)}`);
  return doc;
}
