// generateNodeTypes(): a server's catalog (`GET /api/object_info`) as one TypeScript module of node
// types for the workflow builder (src/cloud/workflow/builder-types.ts), and the table of output
// names beside them. Pure and browser-safe (the hash is WebCrypto's); `graphcloud types` is its
// command line. docs/workflows.md#generating-node-types.
import { assertOptions, Checker, isRecord, own, rule, type OptionRules } from '../core/index.js';
import { spellOutputNames } from '../cloud/workflow/builder.js';
import { inputsType, type InputContext } from './inputs.js';
import { byCodeUnit, commentLines, docComment, propertyKey, stringLiteral } from './text.js';

/**
 * Options of `generateNodeTypes()`.
 *
 * @example
 * ```ts
 * const options: GenerateNodeTypesOptions = { server: 'http://127.0.0.1:8188', version: '0.3.77', maxComboOptions: 500 };
 * ```
 */
export interface GenerateNodeTypesOptions {
  /** The server the catalog came from, named in the file's header (leave credentials out of it). */
  server?: string | undefined;
  /** The server's version (`system_stats`' `system.comfyui_version`), named in the header when known. */
  version?: string | undefined;
  /**
   * Where the generated module imports `Link` from.
   * @default 'graphcloud'
   */
  importFrom?: string | undefined;
  /**
   * Above this many options a combo input is typed by its options' kind (`string`) rather than
   * their union, so an editor stays fast on a model folder of thousands of files.
   * @default 200
   */
  maxComboOptions?: number | undefined;
}

/**
 * The defaults of `generateNodeTypes()`.
 *
 * @example
 * ```ts
 * CODEGEN_DEFAULTS.maxComboOptions; // 200
 * ```
 */
export const CODEGEN_DEFAULTS = Object.freeze({
  /** The module the generated types import `Link` from. */
  importFrom: 'graphcloud',
  /** Above this many options, a combo input is typed `string`. */
  maxComboOptions: 200,
});

const OPTION_RULES: OptionRules = {
  server: rule.string,
  version: rule.string,
  importFrom: rule.string,
  maxComboOptions: (check, path, value) => check.integer(path, value, { min: 0, max: 1_000_000 }),
};

/**
 * Writes the node types of a catalog (`GET /api/object_info`) as one TypeScript module: an
 * interface `Nodes` (one member per node class: its `inputs` and its `outputs` by spelled name and
 * by index) for `workflow<Nodes>()`, and `nodeOutputs`, each class's output names, so that a
 * builder given it (`workflow<Nodes>({ outputs: nodeOutputs })`) writes its workflow with no
 * catalog. The same catalog gives the same text, byte for byte (classes and inputs sorted); the
 * header names the server, its version and the catalog's SHA-256. `graphcloud types` calls it.
 *
 * @throws {ValidationError} the catalog is not an object, or an option is invalid.
 * @example
 * ```ts
 * import { generateNodeTypes } from 'graphcloud/codegen';
 *
 * const info = await cloud.nodes.list();
 * await writeFile('src/nodes.ts', await generateNodeTypes(info, { server: cloud.baseUrl }));
 * ```
 */
export async function generateNodeTypes(objectInfo: unknown, options?: GenerateNodeTypesOptions): Promise<string> {
  assertOptions('generateNodeTypes()', options, OPTION_RULES);
  if (!isRecord(objectInfo)) {
    const check = new Checker();
    check.fail('objectInfo', 'a catalog: the object GET /api/object_info answers, node class to definition', objectInfo);
    check.throwIfInvalid('generateNodeTypes()');
  }
  const info = objectInfo as Record<string, unknown>;
  const maxComboOptions = options?.maxComboOptions ?? CODEGEN_DEFAULTS.maxComboOptions;
  const classes = Object.keys(info).sort(byCodeUnit);
  const members: string[] = [];
  const table: string[] = [];
  let usesLink = false;
  for (const classType of classes) {
    const definition = info[classType];
    const context: InputContext = { maxComboOptions, loose: false, links: false };
    const inputs = inputsType(own(definition, 'input'), context, '    ');
    const { names, types, tooltips } = outputsOf(definition);
    const spelled = spellOutputNames(names);
    const outputLines = [
      ...spelled.map((name, i) => `${docComment(tooltips[i] ? [tooltips[i]] : [], '      ')}      ${propertyKey(name)}: ${stringLiteral(types[i]!)};\n`),
      ...types.map((type, i) => `      ${i}: ${stringLiteral(type)};\n`),
    ];
    const outputs = outputLines.length === 0 ? 'Record<never, never>' : `{\n${outputLines.join('')}    }`;
    members.push(`${docComment(nodeDoc(classType, definition, context.loose), '  ')}  ${propertyKey(classType)}: {\n    inputs: ${inputs};\n    outputs: ${outputs};\n  };\n`);
    usesLink ||= context.links;
    if (names.length > 0) table.push(`  ${tableKey(classType)}: [${names.map(stringLiteral).join(', ')}],\n`);
  }
  const importFrom = options?.importFrom ?? CODEGEN_DEFAULTS.importFrom;
  return [
    await header(info, classes.length, options),
    usesLink ? `import type { Link } from ${stringLiteral(importFrom)};\n` : '',
    '\n',
    docComment(['The node classes of the server, for `workflow<Nodes>()`: each class\'s inputs (what its builder method takes) and outputs (by spelled name and by index, to their catalog types).'], ''),
    members.length === 0 ? 'export type Nodes = Record<never, never>;\n' : `export interface Nodes {\n${members.join('')}}\n`,
    '\n',
    docComment([
      'The output names of each node class that has outputs, in slot order (the catalog\'s `output_name`):',
      '`workflow<Nodes>({ outputs: nodeOutputs })` resolves outputs taken by name without a catalog. A value:',
      'a bundle that imports it carries it (`import type { Nodes }` costs nothing).',
    ], ''),
    `export const nodeOutputs: Readonly<Record<string, readonly string[]>> = {\n${table.join('')}};\n`,
  ].join('');
}

/** The output names (the catalog's `output_name`, else the types), types and tooltips of a definition. */
function outputsOf(definition: unknown): { names: string[]; types: string[]; tooltips: (string | undefined)[] } {
  const output = own(definition, 'output');
  // A list-typed output (the legacy combo output) is a COMBO; a match-type output takes the type of
  // what its inputs are given, unknown here, so it is `*`, which every input accepts.
  const types = (Array.isArray(output) ? output : []).map((type) => (Array.isArray(type) ? 'COMBO' : typeof type === 'string' && type !== 'COMFY_MATCHTYPE_V3' ? type : '*'));
  const given = own(definition, 'output_name');
  // The builder's rule (builder.ts catalogNames): output_name when it is a list, else the types.
  const names = Array.isArray(given) ? types.map((type, i) => (typeof given[i] === 'string' ? (given[i] as string) : type)) : types;
  const tips = own(definition, 'output_tooltips');
  const tooltips = types.map((_, i) => (Array.isArray(tips) && typeof tips[i] === 'string' && tips[i] !== '' ? (tips[i] as string) : undefined));
  return { names, types, tooltips };
}

function nodeDoc(classType: string, definition: unknown, loose: boolean): string[] {
  const text = (key: string): string | undefined => {
    const value = own(definition, key);
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const doc: string[] = [text('display_name') ?? classType];
  const description = text('description');
  if (description) doc.push('', description);
  const facts = [`Category: ${text('category') ?? '(none)'}.`];
  if (own(definition, 'output_node') === true) facts.push('An output node.');
  if (own(definition, 'api_node') === true) facts.push('A partner API node (paid; it needs an API key).');
  if (loose) facts.push('Some inputs are of a kind the generator does not know: this node takes any input.');
  doc.push('', facts.join(' '));
  if (own(definition, 'deprecated') === true) doc.push('@deprecated The server marks this node deprecated: it is kept for old workflows.');
  if (own(definition, 'experimental') === true) doc.push('@experimental');
  return doc;
}

/** A key of the nodeOutputs object literal: `__proto__` computed, so it is a property, not the prototype. */
function tableKey(classType: string): string {
  return classType === '__proto__' ? `[${stringLiteral(classType)}]` : propertyKey(classType);
}

async function header(info: Record<string, unknown>, count: number, options: GenerateNodeTypesOptions | undefined): Promise<string> {
  const server = options?.server ?? 'a server';
  const version = options?.version === undefined ? '' : ` (version ${options.version})`;
  const lines = [
    `Node types of ${server}${version}: ${count} node classes.`,
    'Written by `graphcloud types` (graphcloud/codegen) from the server\'s catalog, GET /api/object_info.',
    'Do not edit: generate the file again when the server\'s nodes change.',
    `Catalog SHA-256 (canonical JSON, keys sorted): ${await sha256(canonicalJson(info))}`,
  ];
  // Each line a `//` comment: commentLines() splits every line break, so no text leaves it.
  return commentLines(lines).map((line) => `//${line === '' ? '' : ` ${line}`}\n`).join('');
}

/**
 * A JSON value as text with every object's keys in code-unit order: the same catalog, whatever
 * order its keys came in, gives the same text.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }); // '{"a":[2,{"c":4,"d":3}],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined || typeof item === 'function' ? 'null' : canonicalJson(item))).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined && typeof value[key] !== 'function').sort(byCodeUnit);
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

async function sha256(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
