// The data a price badge's expression reads, built from an API-format node the way the official
// web frontend builds it from a node on its canvas (docs/cost.md#what-a-badge-reads): widget values
// normalized by the type the badge declares, `{connected}` per input, and a count of connected
// inputs per input group. A value the workflow leaves out is the one the frontend's widget would
// hold: the definition's default, or an option's first value.
import { isRecord, own } from '../../core/index.js';

/** A widget value as an expression reads it. */
export type BadgeValue = string | number | boolean | null;

/**
 * What a badge's expression is evaluated over (prototype-free maps: a key named `__proto__` or
 * `constructor` is data, never a property of `Object.prototype`).
 */
export interface BadgeContext {
  widgets: Record<string, BadgeValue>;
  inputs: Record<string, { connected: boolean }>;
  inputGroups: Record<string, number>;
}

/** A price badge's `depends_on`, read leniently (every list may be missing). */
export interface BadgeDependencies {
  widgets: Array<{ name: string; type: string }>;
  inputs: string[];
  inputGroups: string[];
}

/** A link in an API-format workflow: `[source node id, output slot]`. */
export function isLink(value: unknown): boolean {
  return Array.isArray(value) && value.length === 2 && (typeof value[0] === 'string' || typeof value[0] === 'number') && Number.isInteger(value[1]);
}

/** A finite number, from a number or a numeric string; anything else (booleans included) is not one. */
export function asFiniteNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const number = Number(value.trim());
  return Number.isFinite(number) ? number : null;
}

/**
 * A widget value normalized by the type the badge declares for it: INT and FLOAT a finite number
 * (else `null`); BOOLEAN a boolean (`"true"`/`"false"` in any case read as one, else `null`); COMBO
 * a number or boolean as it is, anything else the trimmed lower-cased string; every other type the
 * trimmed lower-cased string. A missing value is `null`.
 */
export function normalizeValue(raw: unknown, type: string): BadgeValue {
  if (raw === undefined || raw === null) return null;
  const kind = type.toUpperCase();
  if (kind === 'INT' || kind === 'FLOAT') return asFiniteNumber(raw);
  if (kind === 'BOOLEAN') {
    if (typeof raw === 'boolean') return raw;
    const text = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
    return text === 'true' ? true : text === 'false' ? false : null;
  }
  if (kind === 'COMBO' && (typeof raw === 'number' || typeof raw === 'boolean')) return raw;
  return String(raw).trim().toLowerCase();
}

/** Reads a badge's `depends_on`, or says why it cannot. */
export function readDependencies(dependsOn: unknown): BadgeDependencies | string {
  if (dependsOn === undefined || dependsOn === null) return { widgets: [], inputs: [], inputGroups: [] };
  if (!isRecord(dependsOn)) return 'its depends_on is not an object';
  const list = (key: string): unknown[] | string => {
    const value = own(dependsOn, key);
    return value === undefined || value === null ? [] : Array.isArray(value) ? value : `its depends_on.${key} is not a list`;
  };
  const [widgets, inputs, groups] = [list('widgets'), list('inputs'), list('input_groups')];
  for (const value of [widgets, inputs, groups]) if (typeof value === 'string') return value;
  const read: BadgeDependencies = { widgets: [], inputs: [], inputGroups: [] };
  for (const widget of widgets as unknown[]) {
    const name = isRecord(widget) ? own(widget, 'name') : undefined;
    const type = isRecord(widget) ? own(widget, 'type') : undefined;
    if (typeof name !== 'string' || typeof type !== 'string') return 'its depends_on.widgets holds an entry without a name and a type';
    read.widgets.push({ name, type });
  }
  for (const [key, names, into] of [['inputs', inputs, read.inputs], ['input_groups', groups, read.inputGroups]] as const) {
    for (const name of names as unknown[]) {
      if (typeof name !== 'string') return `its depends_on.${key} holds a value that is not a name`;
      into.push(name);
    }
  }
  return read;
}

/**
 * The context of one node's badge, or why it cannot be built: a widget the badge reads is fed by
 * a link (its value is known only when the run gets there), or is an input the node type does not
 * have in any form.
 */
export function buildContext(inputs: Readonly<Record<string, unknown>>, definition: unknown, deps: BadgeDependencies): BadgeContext | string {
  const widgets: Record<string, BadgeValue> = Object.create(null);
  for (const { name, type } of deps.widgets) {
    const set = own(inputs, name);
    if (isLink(set)) return `widget "${name}" is fed by a link: its value is known only when the workflow runs`;
    let value = set;
    if (value === undefined || value === null) {
      const found = defaultOf(specsOf(isRecord(definition) ? own(definition, 'input') : undefined), name, inputs);
      if (found === LACKS) return `the badge reads widget "${name}", which the node type does not have`;
      value = found;
    }
    widgets[name] = normalizeValue(value, type);
  }
  const connected: Record<string, { connected: boolean }> = Object.create(null);
  for (const name of deps.inputs) connected[name] = { connected: isLink(own(inputs, name)) };
  const inputGroups: Record<string, number> = Object.create(null);
  for (const group of deps.inputGroups) {
    inputGroups[group] = Object.keys(inputs).filter((name) => name.startsWith(`${group}.`) && isLink(inputs[name])).length;
  }
  return { widgets, inputs: connected, inputGroups };
}

const LACKS = Symbol('lacks');
type InputMap = Readonly<Record<string, unknown>>;

/** The required and optional input specs of a definition's `input` (or an option's `inputs`), one prototype-free map. */
function specsOf(input: unknown): InputMap {
  const all: Record<string, unknown> = Object.create(null);
  for (const group of ['required', 'optional']) {
    const specs = isRecord(input) ? own(input, group) : undefined;
    if (isRecord(specs)) for (const name of Object.keys(specs)) all[name] = specs[name];
  }
  return all;
}

/**
 * The value a widget the workflow leaves out holds: its spec's default. A dotted name
 * (`model.duration`) is an input of the option chosen in a dynamic combo (`model`): the option
 * the workflow sets, else the combo's first. An input of another option of that combo is `null`
 * (the frontend has no such widget); one no option has is `LACKS`.
 */
function defaultOf(specs: InputMap, name: string, inputs: Readonly<Record<string, unknown>>, prefix = ''): unknown {
  const spec = own(specs, name);
  if (spec !== undefined) return Array.isArray(spec) ? specDefault(spec) : null;
  for (const combo of Object.keys(specs)) {
    const comboSpec = specs[combo];
    if (!name.startsWith(`${combo}.`) || !Array.isArray(comboSpec) || !isRecord(comboSpec[1])) continue;
    const options = own(comboSpec[1], 'options');
    if (!Array.isArray(options)) continue;
    const chosen = own(inputs, `${prefix}${combo}`) ?? specDefault(comboSpec);
    const rest = name.slice(combo.length + 1);
    let seen = false;
    for (const option of options) {
      if (!isRecord(option)) continue;
      const found = defaultOf(specsOf(own(option, 'inputs')), rest, inputs, `${prefix}${combo}.`);
      if (found === LACKS) continue;
      if (own(option, 'key') === chosen) return found;
      seen = true;
    }
    if (seen) return null;
  }
  return LACKS;
}

/**
 * A spec's default as the frontend reads it: an explicit `default`; else the first of its
 * `options` (an option object's `key`, in a dynamic combo); else the first value of a legacy
 * option list; else `null`.
 */
function specDefault(spec: readonly unknown[]): unknown {
  const options = spec[1];
  if (isRecord(options) && Object.hasOwn(options, 'default')) return options.default;
  const list = isRecord(options) ? own(options, 'options') : undefined;
  if (Array.isArray(list) && list.length > 0) return isRecord(list[0]) && Object.hasOwn(list[0], 'key') ? list[0].key : list[0];
  if (Array.isArray(spec[0]) && spec[0].length > 0) return spec[0][0];
  return null;
}
