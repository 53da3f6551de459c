// Node definitions with odd values, as real servers send them (docs/wire-protocol.md): whatever one
// definition holds, the catalog parses whole, every node type stays listed, a well-formed node keeps
// its checks, and a node whose inputs cannot be read is reported as unchecked (a warning).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateWorkflow, type Workflow } from '../../src/index.js';
import { ObjectInfoSchema } from '../../src/cloud/workflow/node-definitions.js';
import { params } from './helpers.js';

type Json = unknown;
/** A definition being mutated: any path may be written, as a hostile server would. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a mutation writes any path of a JSON value
type Draft = Record<string, any>;
/** A seed's `max` on a real local runtime, 18446744073709551615 in JSON, parses to 2 ** 64. */
const BEYOND_2_53 = 2 ** 64;
const odd = fc.oneof(
  fc.constantFrom<Json>(null, [null], BEYOND_2_53, -0, '', {}, [], true, ['PROMPT'], { __proto__: null }),
  fc.jsonValue({ maxDepth: 3 }),
);
/** Anything but a JSON object (null included). */
const notObject = fc.oneof(fc.constant(null), fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }));

/** A well-formed definition: `n` is an INT from 0 to 10, `s` a STRING. */
function wellFormed(): Record<string, Json> {
  return {
    input: { required: { n: ['INT', { default: 1, min: 0, max: 10 }], s: ['STRING', { multiline: false }] }, optional: {}, hidden: { prompt: 'PROMPT' } },
    input_order: { required: ['n', 's'] },
    output: ['STRING'],
    output_name: ['STRING'],
    output_is_list: [false],
    output_node: true,
    name: 'Node',
    display_name: 'Node',
    category: 'test',
    description: '',
    deprecated: false,
    experimental: false,
  };
}

interface Mutation {
  /** Whether the SDK can still read the definition's inputs (then it keeps its checks). */
  readable: boolean;
  apply: (definition: Draft) => void;
}

const FIELDS = ['output', 'output_name', 'output_is_list', 'output_node', 'name', 'display_name', 'category', 'description', 'deprecated', 'experimental', 'input_order', 'output_tooltips', 'output_matchtypes', 'api_node', 'python_module'];
// What the SDK only passes on: any value keeps the definition readable.
const unread: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.constantFrom(...FIELDS), odd).map(([field, value]): Mutation => ({ readable: true, apply: (d) => void (d[field] = value) })),
  fc.tuple(fc.string({ maxLength: 12 }), odd).map(([field, value]): Mutation => ({ readable: true, apply: (d) => void Object.defineProperty(d, field === 'input' ? 'inputs' : field, { value, enumerable: true, writable: true, configurable: true }) })),
  odd.map((value): Mutation => ({ readable: true, apply: (d) => void (d.input.hidden = value) })),
  fc.tuple(fc.constantFrom('tooltip', 'step', 'multiline', 'options', 'display', 'control_after_generate'), odd).map(([option, value]): Mutation => ({ readable: true, apply: (d) => void (d.input.required.n[1][option] = value) })),
  // The limits of a STRING input are not read.
  fc.tuple(fc.constantFrom('min', 'max'), odd).map(([option, value]): Mutation => ({ readable: true, apply: (d) => void (d.input.required.s[1][option] = value) })),
  // Input kinds of the newer node schema, with option shapes of their own.
  fc.tuple(fc.constantFrom('COMFY_AUTOGROW_V3', 'COMFY_DYNAMICCOMBO_V3', 'COMFY_MATCHTYPE_V3', '*'), odd).map(([kind, value]): Mutation => ({ readable: true, apply: (d) => void (d.input.optional.extra = [kind, { options: [{ key: 'a', inputs: value }], template: value }]) })),
  fc.constantFrom<Mutation>({ readable: true, apply: (d) => void (d.input.required.n[1].max = BEYOND_2_53) }),
);
// What the SDK reads: a value of another shape costs the node its checks.
const read: fc.Arbitrary<Mutation> = fc.oneof(
  notObject.map((value): Mutation => ({ readable: false, apply: (d) => void (d.input = value) })),
  notObject.map((value): Mutation => ({ readable: false, apply: (d) => void (d.input.required = value) })),
  fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.boolean(), fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })).map((value): Mutation => ({ readable: false, apply: (d) => void (d.input.required.n = value) })),
  fc.oneof(fc.integer(), fc.constant(null), fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 2 })).map((value): Mutation => ({ readable: false, apply: (d) => void (d.input.required.n[0] = value) })),
  fc.tuple(fc.constantFrom('min', 'max'), fc.oneof(fc.string(), fc.boolean(), fc.constant([1]), fc.constant({}))).map(([option, value]): Mutation => ({ readable: false, apply: (d) => void (d.input.required.n[1][option] = value) })),
);

const WORKFLOW: Workflow = {
  '1': { class_type: 'Odd', inputs: { n: 11, s: 'x' } },
  '2': { class_type: 'Plain', inputs: { n: -1, s: 'x' } },
};

describe('ObjectInfoSchema (GET /api/object_info)', () => {
  it('reads a catalog whatever one definition holds, and well-formed nodes keep their checks', () => {
    const mutations = fc.array(fc.oneof(unread, read), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(mutations, (applied) => {
        const odd = wellFormed();
        for (const mutation of applied) {
          try {
            mutation.apply(odd);
          } catch {
            // A later mutation may meet a shape an earlier one replaced: it changes nothing then.
          }
        }
        // The catalog arrives as JSON text.
        const body: unknown = JSON.parse(JSON.stringify({ Plain: wellFormed(), Odd: odd }));
        const parsed = ObjectInfoSchema.safeParse(body);
        expect(parsed.success).toBe(true);
        if (!parsed.success) return;
        expect(Object.keys(parsed.data)).toEqual(['Plain', 'Odd']);
        const issues = validateWorkflow(WORKFLOW, parsed.data);
        // The plain node is always checked.
        expect(issues.filter((issue) => issue.nodeId === '2')).toMatchObject([{ input: 'n', code: 'out_of_range' }]);
        const oddIssues = issues.filter((issue) => issue.nodeId === '1');
        const sent = JSON.parse(JSON.stringify(odd)) as Draft;
        if (!readableAfter(sent)) expect(oddIssues).toMatchObject([{ code: 'unchecked_node', severity: 'warning' }]);
        else if (outOfRange(11, sent.input.required.n[1])) expect(oddIssues).toMatchObject([{ input: 'n', code: 'out_of_range' }]);
        else expect(oddIssues).toEqual([]);
        // The same answer for a catalog the caller read themselves, as sent.
        expect(validateWorkflow(WORKFLOW, body as never)).toEqual(issues);
      }),
      params(500),
    );
  });
});

/**
 * The oracle: the definition's inputs are readable when `input` is an object whose `required` and
 * `optional` (when present) map names to `[type, options?]`, `type` a name or a list of plain
 * values, `options` an object; an INT or FLOAT input's `min` and `max` are numbers or null.
 * For `n` to be checked as an INT from 0 to 10, it must also still be that.
 */
function readableAfter(definition: Draft): boolean {
  const isObject = (value: unknown): value is Draft => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(definition.input)) return false;
  for (const group of ['required', 'optional']) {
    const specs = definition.input[group];
    if (specs === undefined) continue;
    if (!isObject(specs)) return false;
    for (const spec of Object.values(specs)) {
      if (!Array.isArray(spec) || spec.length < 1 || spec.length > 2) return false;
      const [type, options] = spec;
      const plain = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);
      if (!(typeof type === 'string' || (Array.isArray(type) && type.every(plain)))) return false;
      if (spec.length === 2 && !isObject(options)) return false;
      if ((type === 'INT' || type === 'FLOAT') && isObject(options) && [options.min, options.max].some((limit) => limit !== undefined && limit !== null && typeof limit !== 'number')) return false;
    }
  }
  return true;
}

/** Whether `value` is outside the limits of an INT input's options (an absent or null limit is none). */
function outOfRange(value: number, options: Record<string, unknown>): boolean {
  const { min, max } = options as { min?: number | null; max?: number | null };
  return (typeof min === 'number' && value < min) || (typeof max === 'number' && value > max);
}
