// Shared by the property suites: run counts, the promises every property checks (only the SDK's
// exported errors, no built-in prototype changed, no credential in anything printed) and hostile
// data generators.
import { inspect } from 'node:util';
import fc from 'fast-check';
import { expect } from 'vitest';
import * as api from '../../src/index.js';

/**
 * `GRAPHCLOUD_FUZZ_RUNS` multiplies the runs of every property (default 1: a few thousand runs in
 * all); `GRAPHCLOUD_FUZZ_SEED` replays one seed (fast-check prints it with any failure).
 */
const FACTOR = Number(process.env.GRAPHCLOUD_FUZZ_RUNS ?? 1);
const SEED = process.env.GRAPHCLOUD_FUZZ_SEED === undefined ? undefined : Number(process.env.GRAPHCLOUD_FUZZ_SEED);

/** fast-check parameters for a property whose default run count is `runs`. */
export function params(runs: number): fc.Parameters<unknown> {
  const numRuns = Math.max(1, Math.round(runs * (Number.isFinite(FACTOR) && FACTOR > 0 ? FACTOR : 1)));
  return SEED === undefined ? { numRuns } : { numRuns, seed: SEED };
}

/** The error classes `src/index.ts` exports: what a caller can `instanceof`. */
export const EXPORTED_ERRORS: ReadonlySet<unknown> = new Set(
  Object.values(api).filter((value) => typeof value === 'function' && (value === api.GraphcloudError || value.prototype instanceof api.GraphcloudError)),
);

/** A rejection must be an instance of an exported SDK error class, or exactly the caller's abort reason. */
export function expectSdkError(error: unknown, abortReason?: unknown): void {
  if (abortReason !== undefined && error === abortReason) return;
  if (!(error instanceof api.GraphcloudError) || !EXPORTED_ERRORS.has(error.constructor)) {
    throw new Error(`expected an exported SDK error, got ${inspect(error, { depth: 3 })}`);
  }
}

const BUILTINS: [string, object][] = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
  ['Number.prototype', Number.prototype],
  ['Boolean.prototype', Boolean.prototype],
  ['Symbol.prototype', Symbol.prototype],
  ['Promise.prototype', Promise.prototype],
  ['Error.prototype', Error.prototype],
  ['Map.prototype', Map.prototype],
  ['Set.prototype', Set.prototype],
  ['RegExp.prototype', RegExp.prototype],
  ['Date.prototype', Date.prototype],
  ['ArrayBuffer.prototype', ArrayBuffer.prototype],
  ['Uint8Array.prototype', Uint8Array.prototype],
  ['Object', Object],
  ['JSON', JSON],
];

/** The own properties of every built-in prototype (and `Object`, `JSON`), with their values. */
export function snapshotBuiltins(): Map<string, Map<PropertyKey, unknown>> {
  const snapshot = new Map<string, Map<PropertyKey, unknown>>();
  for (const [name, target] of BUILTINS) {
    const own = new Map<PropertyKey, unknown>();
    for (const key of Reflect.ownKeys(target)) {
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      own.set(key, descriptor && 'value' in descriptor ? descriptor.value : descriptor?.get);
    }
    snapshot.set(name, own);
  }
  return snapshot;
}

/** Fails naming the first built-in property added, removed or replaced since `before`. */
export function expectBuiltinsUnchanged(before: Map<string, Map<PropertyKey, unknown>>): void {
  const after = snapshotBuiltins();
  for (const [name, own] of before) {
    const now = after.get(name) ?? new Map();
    for (const key of new Set([...own.keys(), ...now.keys()])) {
      if (own.get(key) !== now.get(key) || own.has(key) !== now.has(key)) throw new Error(`${name}[${String(key)}] changed`);
    }
  }
  expect(Object.getPrototypeOf(Object.prototype)).toBeNull();
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

/** Every way a value gets printed: inspect (hidden fields too), JSON, String, and the cause chain with stacks. */
export function renderings(value: unknown): string {
  const parts = [inspect(value, { depth: 30, showHidden: true, maxArrayLength: 200, maxStringLength: 1_000_000 })];
  try {
    parts.push(JSON.stringify(value) ?? '');
  } catch {
    // A circular value is covered by inspect.
  }
  try {
    parts.push(String(value));
  } catch {
    // A null-prototype object has no toString.
  }
  for (let current: unknown = value, depth = 0; current instanceof Error && depth < 10; current = current.cause, depth++) {
    parts.push(current.message, current.stack ?? '', inspect(current.cause, { depth: 10 }));
  }
  return parts.join('\n');
}

/** Fails when any secret appears in any rendering of any value. */
export function expectNoSecret(values: readonly unknown[], secrets: readonly string[]): void {
  for (const value of values) {
    const text = renderings(value);
    for (const secret of secrets) if (text.includes(secret)) throw new Error(`a credential was found in ${text.slice(0, 2_000)}`);
  }
}

/** Replaced, in generated bodies and headers, by the credential the request carried (an echoing server). */
export const ECHO = '\u0000ECHO\u0000';

/** Keys a hostile server favours: prototype names, and names the SDK reads. */
const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'then', 'toJSON', 'length', ECHO];

/**
 * JSON as text, written by hand so that a body can hold what `JSON.stringify` never writes: an
 * own `__proto__` key, duplicate keys, `1e999` (Infinity once parsed), very deep nesting.
 */
export type JsonTree = null | boolean | number | string | { raw: string } | JsonTree[] | { entries: [string, JsonTree][] };

/** True for the object node of a tree (an array has an `entries` method too). */
export function isObjectTree(tree: JsonTree): tree is { entries: [string, JsonTree][] } {
  return typeof tree === 'object' && tree !== null && !Array.isArray(tree) && 'entries' in tree;
}

/** Writes a tree as JSON text. */
export function toJsonText(tree: JsonTree): string {
  if (tree === null || typeof tree === 'boolean') return String(tree);
  if (typeof tree === 'number') return Number.isFinite(tree) ? String(tree) : '1e999';
  if (typeof tree === 'string') return JSON.stringify(tree);
  if (Array.isArray(tree)) return `[${tree.map(toJsonText).join(',')}]`;
  if ('raw' in tree) return tree.raw;
  return `{${tree.entries.map(([key, value]) => `${JSON.stringify(key)}:${toJsonText(value)}`).join(',')}}`;
}

/** Strings a server may send: any text, lone surrogates, the echoed credential, numbers as text, long ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_KEYS, '', ' ', '.', '..', '../x', '%2e%2e', 'null', '-1', 'NaN', 'COMPLETED', 'success', 'failed', 'http://x.test/a.png') },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n)) },
);

/** Keys of a hostile object: its own field names mixed with prototype names. */
export function hostileKey(fields: readonly string[] = []): fc.Arbitrary<string> {
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...fields, ...HOSTILE_KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) });
}

/** A JSON tree biased towards the given field names, with hostile keys and values at any level. */
export function hostileJson(fields: readonly string[] = [], depth = 4): fc.Arbitrary<JsonTree> {
  const { tree } = fc.letrec<{ tree: JsonTree; leaf: JsonTree }>((tie) => ({
    leaf: fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.oneof(fc.integer(), fc.double(), fc.constantFrom(-0, 2 ** 53 + 1, Number.POSITIVE_INFINITY, 1e308)),
      hostileString,
      fc.constantFrom<JsonTree>({ raw: '1e999' }, { raw: '-1e999' }, { raw: '"\\ud800"' }),
    ),
    tree: fc.oneof(
      { depthSize: 'small', maxDepth: depth },
      { weight: 3, arbitrary: tie('leaf') },
      { weight: 1, arbitrary: fc.array(tie('tree'), { maxLength: 4 }) },
      { weight: 2, arbitrary: fc.array(fc.tuple(hostileKey(fields), tie('tree')), { maxLength: 5 }).map((entries) => ({ entries })) },
    ),
  }));
  return fc.oneof(
    { weight: 12, arbitrary: tree },
    // Nested far deeper than any scrubber or printer should walk.
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }).map((n) => ({ raw: `${'['.repeat(n)}${']'.repeat(n)}` })) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 5_000 }).map((n) => ({ raw: `${'{"a":'.repeat(n)}1${'}'.repeat(n)}` })) },
  );
}

/** Turns a tree into text with the echo marker replaced by `secret`. */
export function echoed(text: string, secret: string): string {
  return text.split(JSON.stringify(ECHO).slice(1, -1)).join(secret).split(ECHO).join(secret);
}

/** What a field the SDK reads holds on the wire (`strings`, `objects`: an array of them), for {@link wrongTyped}. */
export type FieldType = 'string' | 'number' | 'strings' | 'objects';

const JSON_TYPES: Record<'string' | 'number' | 'boolean' | 'object' | 'array', fc.Arbitrary<JsonTree>> = {
  string: fc.constantFrom('', 'COMPLETED', 'x', ECHO),
  number: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 1.5)),
  boolean: fc.boolean(),
  object: fc.array(fc.tuple(fc.constantFrom('status', 'state', 'url', '__proto__'), fc.oneof(fc.integer(), fc.constant('x'))), { maxLength: 2 }).map((entries) => ({ entries })),
  array: fc.array(fc.oneof(fc.integer(), fc.constant('x')), { maxLength: 2 }),
};

/** A value of any JSON type but these (never `null`, which every optional field accepts). */
function otherThan(...types: (keyof typeof JSON_TYPES)[]): fc.Arbitrary<JsonTree> {
  return fc.oneof(...Object.entries(JSON_TYPES).filter(([name]) => !types.includes(name as keyof typeof JSON_TYPES)).map(([, arbitrary]) => arbitrary));
}

/**
 * A value a field of `type` must not hold: the number, object, `true` or array a hostile or broken
 * server puts where a string belongs; for an array, another type or an array with one bad element.
 */
export function wrongTyped(type: FieldType): fc.Arbitrary<JsonTree> {
  if (type === 'string' || type === 'number') return otherThan(type);
  const element = type === 'strings' ? 'string' : 'object';
  return fc.oneof(otherThan('array'), fc.tuple(otherThan(element), fc.nat(2)).map(([bad, at]): JsonTree => [...Array.from({ length: at }, () => (element === 'string' ? 'x' : { entries: [] })), bad]));
}

/**
 * A status answer (`fields`: the names the SDK reads and their wire types) with one field of the
 * wrong type, the others valid or absent, at the top level or under `data`; with the name of the
 * wrong field.
 */
export function wrongTypedBody(fields: Readonly<Record<string, FieldType>>): fc.Arbitrary<{ body: JsonTree; field: string }> {
  const names = Object.keys(fields);
  const valid: Record<FieldType, fc.Arbitrary<JsonTree>> = { string: fc.constantFrom('COMPLETED', 'running', 'x'), number: fc.integer({ min: 0, max: 100 }), strings: fc.constant([]), objects: fc.constant([]) };
  return fc.record({ field: fc.constantFrom(...names), others: fc.subarray(names), enveloped: fc.boolean() }).chain(({ field, others, enveloped }) => {
    const rest = others.filter((name) => name !== field).map((name) => valid[fields[name] as FieldType].map((value): [string, JsonTree] => [name, value]));
    return fc.tuple(wrongTyped(fields[field] as FieldType), fc.tuple(...rest)).map(([bad, entries]) => {
      const inner: JsonTree = { entries: [...entries, [field, bad]] };
      return { body: enveloped ? { entries: [['data', inner]] } : inner, field };
    });
  });
}

/** The fields the SDK reads in media task status answers, per family (docs/wire-protocol.md#media-proxy-status-routes-and-terminal-states). */
export const STATUS_FIELDS: Readonly<Record<'image' | 'video', Readonly<Record<string, FieldType>>>> = Object.freeze({
  image: { task_id: 'string', status: 'string', task_status: 'string', generated: 'strings' },
  video: { id: 'string', task_id: 'string', state: 'string', err_code: 'string', credits: 'number', progress: 'number', creations: 'objects' },
});
