// ejectWorkflow(): a saved workflow written as builder code (docs/workflows.md#ejecting-a-saved-workflow).
// The file is first made into the API workflow toApiWorkflow() gives (an API-format file is taken
// as it is); each node then becomes one builder call, in dependency order, so that running the code
// rebuilds that very workflow: ids and titles kept, links as the variables of their nodes.
// Not part of the main entry: the CLI (`graphcloud types --eject`) and build scripts import it.
import { Checker, checkOptions, isRecord, rule, ValidationError } from '../../core/index.js';
import type { Workflow, WorkflowNode } from '../shared/types.js';
import { spellOutputNames } from './builder.js';
import { literal, Names, objectLiteral, quote } from './eject-code.js';
import type { ObjectInfo, NodeDefinition } from './node-definitions.js';
import { toApiWorkflow } from './to-api.js';
import { hasWidget } from './node-template.js';
import { describeWorkflowFormat } from './validate.js';

/**
 * Options of `ejectWorkflow()`.
 *
 * @example
 * ```ts
 * const options: EjectWorkflowOptions = { typesImport: './nodes.js', source: 'portrait.json' };
 * ```
 */
export interface EjectWorkflowOptions {
  /** The module the generated node types are imported from (`import type { Nodes } from '<typesImport>'`). */
  typesImport: string;
  /**
   * The module `workflow` is imported from.
   * @default 'graphcloud'
   */
  sdkImport?: string | undefined;
  /** The saved file's name, for the comment at the top of the code. */
  source?: string | undefined;
  /**
   * Draws the `{a|b}` choices of dynamic prompts when a UI-format file is converted (`toApiWorkflow()`'s option).
   * @default Math.random
   */
  random?: (() => number) | undefined;
  /**
   * The time of `%date:...%` in file name prefixes when a UI-format file is converted (`toApiWorkflow()`'s option).
   * @default new Date()
   */
  now?: Date | undefined;
}

const OPTION_RULES = {
  typesImport: (check: Checker, path: string, value: unknown) => check.string(path, value, { required: true }),
  sdkImport: rule.string,
  source: (check: Checker, path: string, value: unknown) => check.string(path, value, { allowEmpty: true }),
  random: rule.callback,
  now: (check: Checker, path: string, value: unknown) => {
    if (value !== undefined && !(value instanceof Date && Number.isFinite(value.getTime()))) check.fail(path, 'a valid Date', value);
  },
};

/** One node as it will be written. */
interface Planned {
  id: string;
  node: WorkflowNode;
  variable: string;
  /** Written through the typed builder; else through its untyped view, for `reason` (see `untypedReason()`). */
  typed: boolean;
  reason: string | undefined;
}

/**
 * Turns a workflow saved from the web UI (UI format, subgraphs and group nodes included, or API
 * format) into a TypeScript module of builder code over the generated node types: one `const` per
 * node named after its title, links as those variables' outputs (`ckpt.MODEL`), widget values as
 * literals, node ids and titles kept. Its default export `build()` returns the builder, whose
 * `toJSON()` is the API workflow `toApiWorkflow()` makes of the file (the file itself when it is in
 * the API format), without a catalog: the module passes `workflow()` the output names of the
 * classes it uses. A node the compiler could not accept as saved (a required input left
 * unconnected, as in nodes the server never runs; an input or class the catalog lacks; a value
 * the catalog does not offer; a link whose type does not fit; a link from such a node) is added
 * through `untyped`, the same builder seen without the node types, under a comment saying why: the
 * code always compiles.
 *
 * @param saved The parsed JSON file.
 * @param objectInfo The server's node definitions (`await cloud.nodes.list()`, or a saved `object_info`).
 * @throws `ValidationError` when an option is wrong, the file is in neither format, or its links go round in a circle;
 * `WorkflowConversionError` when the UI-format file cannot be converted.
 * @example
 * ```ts
 * const code = ejectWorkflow(JSON.parse(await readFile('portrait.json', 'utf8')), info, { typesImport: './nodes.js' });
 * await writeFile('portrait.ts', code);
 * ```
 */
export function ejectWorkflow(saved: unknown, objectInfo: ObjectInfo, options: EjectWorkflowOptions): string {
  const check = new Checker();
  if (checkOptions(check, 'options', options, OPTION_RULES)) {
    if (options.typesImport === undefined) check.fail('options.typesImport', "the module of the generated node types, such as './nodes.js'", undefined);
  } else if (options === undefined) check.fail('options', "{ typesImport: './nodes.js' } (the module of the generated node types)", options);
  if (!isRecord(objectInfo)) check.fail('objectInfo', 'the map of node definitions', objectInfo);
  const format = describeWorkflowFormat(saved);
  if (format.format === 'unknown') check.fail('saved', format.hint ?? 'a workflow', saved);
  if (format.format === 'api') checkApiNodes(check, saved as Record<string, unknown>);
  check.throwIfInvalid('ejectWorkflow()');
  const api = format.format === 'ui' ? toApiWorkflow(saved, objectInfo, { random: options.random, now: options.now }) : (saved as Workflow);
  return writeModule(api, objectInfo, options);
}

// What the builder can write back: an id it accepts, a class, inputs, a string title (other
// fields of an API-format node, such as `is_changed`, are not kept).
function checkApiNodes(check: Checker, saved: Record<string, unknown>): void {
  for (const [id, node] of Object.entries(saved)) {
    const where = `saved["${id}"]`;
    if (id === '' || id === '__proto__') check.fail(where, 'a node id the builder accepts (not empty, not __proto__)', id);
    if (!isRecord(node)) continue;
    if (node.class_type === '') check.fail(`${where}.class_type`, 'a non-empty class type', node.class_type);
    if (node.inputs !== undefined && !isRecord(node.inputs)) check.fail(`${where}.inputs`, 'an object of input names to values', node.inputs);
    const title = isRecord(node._meta) ? node._meta.title : undefined;
    if (title !== undefined && typeof title !== 'string') check.fail(`${where}._meta.title`, 'a string', title);
  }
}

const definitionOf = (info: ObjectInfo, classType: string): NodeDefinition | undefined => (Object.hasOwn(info, classType) && isRecord(info[classType]) ? info[classType] : undefined);

/** The output names of a class as the builder takes them (its catalog `output_name`), or `undefined`. */
function outputNames(definition: NodeDefinition | undefined): string[] | undefined {
  if (!definition) return undefined;
  if (Array.isArray(definition.output_name)) return definition.output_name.map(String);
  return Array.isArray(definition.output) ? definition.output.map((type) => (typeof type === 'string' ? type : 'COMBO')) : undefined;
}

const isLink = (value: unknown, workflow: Workflow): value is [string, number] =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && Number.isInteger(value[1]) && (value[1] as number) >= 0 && Object.hasOwn(workflow, value[0]);

/** Node ids in dependency order: each node after the nodes it links to, otherwise in the file's order. */
function dependencyOrder(workflow: Workflow): string[] {
  const sources = (id: string) => Object.values(workflow[id]!.inputs ?? {}).filter((value) => isLink(value, workflow)).map(([source]) => source);
  const state = new Map<string, 'open' | 'done'>();
  const order: string[] = [];
  // Depth first, with a stack of its own: a long chain of nodes must not overflow the call stack.
  for (const root of Object.keys(workflow)) {
    const stack: [id: string, pending: string[]][] = [];
    const enter = (id: string) => {
      if (state.get(id) === 'done') return;
      if (state.get(id) === 'open') throw new ValidationError([{ path: `node ${id}`, rule: 'links that do not go round in a circle', received: sources(id) }], 'ejectWorkflow()');
      state.set(id, 'open');
      stack.push([id, sources(id)]);
    };
    enter(root);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const next = top[1].shift();
      if (next !== undefined) enter(next);
      else {
        stack.pop();
        state.set(top[0], 'done');
        order.push(top[0]);
      }
    }
  }
  return order;
}

/** An input's catalog definition: its type (`COMBO` for a list of options) and its options. */
function inputSpec(definition: NodeDefinition, name: string): { type: string; options: unknown[] } | undefined {
  const spec = definition.input.required?.[name] ?? definition.input.optional?.[name];
  if (!Array.isArray(spec)) return undefined;
  if (Array.isArray(spec[0])) return { type: 'COMBO', options: spec[0] };
  if (typeof spec[0] !== 'string') return undefined;
  const listed = isRecord(spec[1]) && Array.isArray(spec[1].options) ? spec[1].options : [];
  return { type: spec[0], options: spec[0] === 'COMBO' ? listed : [] };
}

// The generated types take a link of an output whose type is the input's, one of a comma-separated
// input type's, or `*` on either side (docs/workflows.md#building-workflows-in-code).
function linkFits(from: unknown, to: string): boolean {
  if (typeof from !== 'string') return to === 'COMBO' || to === '*';
  return from === '*' || to === '*' || from === to || to.split(',').includes(from);
}

const PRIMITIVES: Record<string, string> = { INT: 'number', FLOAT: 'number', STRING: 'string', BOOLEAN: 'boolean' };

/** Why a literal does not fit an input as the generated types write it, or `undefined` when it does. */
function literalMisfit(name: string, value: unknown, spec: { type: string; options: unknown[] }): string | undefined {
  const expected = PRIMITIVES[spec.type];
  if (expected !== undefined) return typeof value === expected ? undefined : `${name} is a ${typeof value}, not a ${expected}`;
  if (spec.type === 'COMBO') return spec.options.length === 0 || spec.options.includes(value) ? undefined : `${name} ${literal(value)} is not one of the catalog's options`;
  // Other widget kinds (V3 dynamic inputs, uploads...) are typed loosely; an input without a widget takes links only.
  return hasWidget(spec.type) || spec.type.startsWith('COMFY_') ? undefined : `${name} is a literal where the catalog takes a link of type ${spec.type}`;
}

/**
 * Why the compiler would not accept the node as saved through the generated node types (it is then
 * written untyped), or `undefined` when it would.
 */
function untypedReason(node: WorkflowNode, info: ObjectInfo, workflow: Workflow, plans: Map<string, Planned>): string | undefined {
  const definition = definitionOf(info, node.class_type);
  if (!definition || !isRecord(definition.input)) return `the catalog has no class ${node.class_type}`;
  const inputs = node.inputs ?? {};
  const missing = Object.keys(definition.input.required ?? {}).find((name) => !Object.hasOwn(inputs, name));
  if (missing !== undefined) return `its required input ${missing} is not connected (the server does not run it)`;
  for (const [name, value] of Object.entries(inputs)) {
    const spec = inputSpec(definition, name);
    if (spec === undefined) return `the catalog's ${node.class_type} has no input ${name}`;
    if (!isLink(value, workflow)) {
      const misfit = Array.isArray(value) ? `${name} is an array` : literalMisfit(name, value, spec);
      if (misfit !== undefined) return misfit;
      continue;
    }
    const source = plans.get(value[0])!;
    const output = definitionOf(info, source.node.class_type)?.output?.[value[1]];
    if (!source.typed) return `it takes ${name} from a node written untyped`;
    if (!linkFits(output, spec.type)) return `${name} is linked to an output of type ${typeof output === 'string' ? output : 'COMBO'}, not ${spec.type}`;
  }
  return undefined;
}

function writeModule(workflow: Workflow, info: ObjectInfo, options: EjectWorkflowOptions): string {
  // A comment is one line: a class name or file name with a line break must not end it.
  const oneLine = (text: string) => text.replace(/[\r\n\u2028\u2029]+/g, ' ');
  const names = new Names();
  const plans = new Map<string, Planned>();
  const table = new Map<string, string[]>();
  const used = new Set(Object.values(workflow).flatMap((node) => Object.values(node.inputs ?? {}).filter((value) => isLink(value, workflow)).map(([source]) => source)));
  for (const id of dependencyOrder(workflow)) {
    const node = workflow[id]!;
    const variable = used.has(id) ? names.take(node._meta?.title ?? '', node.class_type) : '';
    const reason = untypedReason(node, info, workflow, plans);
    plans.set(id, { id, node, variable, typed: reason === undefined, reason });
  }
  const link = ([source, index]: [string, number]) => {
    const from = plans.get(source)!;
    const raw = outputNames(definitionOf(info, from.node.class_type));
    const spelled = raw && index < raw.length ? spellOutputNames(raw)[index]! : undefined;
    if (spelled === undefined) return `${from.variable}.out(${index})`;
    table.set(from.node.class_type, raw!);
    return from.typed && spelled !== 'then' ? `${from.variable}.${spelled}` : `${from.variable}.out(${quote(spelled)})`;
  };

  // Ids: kept where call order would give another (the builder's next free number, skipping those taken).
  const lines: string[] = [];
  const taken = new Set<string>();
  let next = 1;
  for (const { id, node, variable, typed, reason } of plans.values()) {
    while (taken.has(String(next))) next++;
    const automatic = String(next);
    taken.add(id);
    if (id === automatic) next++;
    const inputs = Object.entries(node.inputs ?? {}).map(([name, value]): [string, string] => [name, isLink(value, workflow) ? link(value) : literal(value)]);
    const nodeOptions: [string, string][] = [...(id === automatic ? [] : [['id', quote(id)] as [string, string]]), ...(node._meta?.title === undefined ? [] : [['title', quote(node._meta.title)] as [string, string]])];
    const call = typed && /^[A-Za-z_$][\w$]*$/.test(node.class_type) && !['node', 'toJSON', 'then'].includes(node.class_type) && !(node.class_type in Object.prototype) ? `wf.${node.class_type}(` : `${typed ? 'wf' : 'untyped'}.node(${quote(node.class_type)}, `;
    const args = [objectLiteral(inputs, '  '), ...(nodeOptions.length > 0 ? [objectLiteral(nodeOptions, '  ')] : [])];
    if (reason !== undefined) lines.push(`  // Untyped: ${oneLine(reason)}.`);
    // A node no other node links to is a statement: an unused variable fails projects with noUnusedLocals.
    lines.push(`  ${variable ? `const ${variable} = ` : ''}${call}${args.join(', ')});`);
  }

  const untypedUsed = [...plans.values()].some((plan) => !plan.typed);
  const outputs = [...table].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, list]): [string, string] => [name, literal(list)]);
  const head = [
    `// Ejected by graphcloud${options.source ? ` from ${oneLine(options.source)}` : ''}: build().toJSON() is the API workflow`,
    `// toApiWorkflow() makes of the saved file, with its node ids and titles (docs: "Ejecting a saved workflow").`,
    `import { workflow, type WorkflowBuilder } from ${quote(options.sdkImport ?? 'graphcloud')};`,
    `import type { Nodes } from ${quote(options.typesImport)};`,
    '',
    'export default function build(): WorkflowBuilder<Nodes> {',
    outputs.length > 0 ? `  const wf = workflow<Nodes>({\n    outputs: ${objectLiteral(outputs, '    ', 0)},\n  });` : '  const wf = workflow<Nodes>();',
    ...(untypedUsed ? ['  // Nodes the node types do not accept as saved are added through the same builder, untyped.', '  const untyped: WorkflowBuilder = wf;'] : []),
  ];
  return [...head, ...lines, '  return wf;', '}', ''].join('\n');
}
