import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateWorkflowCost } from '../../../src/cloud/cost/estimate.js';
import type { Workflow } from '../../../src/index.js';
import { partnerCatalog, type PartnerDefinition } from './catalog.js';

const catalog = partnerCatalog();
type Spec = [unknown, Record<string, unknown>?];

/** A valid value for an input spec: an option, a number within its limits, a boolean, a string. */
function valueOf(spec: Spec): fc.Arbitrary<unknown> | undefined {
  const [type, options = {}] = spec;
  const list = Array.isArray(type) ? type : type === 'COMBO' || type === 'COMFY_DYNAMICCOMBO_V3' ? (options.options as unknown[] | undefined) : undefined;
  if (list) {
    const values = list.map((option) => (typeof option === 'object' && option !== null && 'key' in option ? (option as { key: unknown }).key : option));
    return values.length > 0 ? fc.constantFrom(...values) : undefined;
  }
  const min = typeof options.min === 'number' ? options.min : -1e6;
  const max = typeof options.max === 'number' ? Math.min(options.max, 2 ** 31) : 1e6;
  if (type === 'INT') return fc.integer({ min: Math.ceil(min), max: Math.max(Math.ceil(min), Math.floor(max)) });
  if (type === 'FLOAT') return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  if (type === 'BOOLEAN') return fc.boolean();
  if (type === 'STRING') return fc.string({ maxLength: 12 });
  return undefined;
}

/** Random valid inputs of a node: its widgets (some left out), its inputs linked or not, its groups' sockets. */
function inputsOf(definition: PartnerDefinition): fc.Arbitrary<Record<string, unknown>> {
  const deps = definition.price_badge?.depends_on ?? {};
  const top = { ...definition.input.required, ...definition.input.optional } as Record<string, Spec>;
  const widgets = (deps.widgets ?? []).map(({ name }) => {
    // A dotted widget: a spec of the option chosen in its combo; any option's spec will do for a value.
    const [combo, ...rest] = name.split('.');
    const options = rest.length > 0 ? ((top[combo!]?.[1]?.options ?? []) as Array<{ inputs?: { required?: Record<string, Spec>; optional?: Record<string, Spec> } }>) : [];
    const spec = top[name] ?? options.map((option) => ({ ...option.inputs?.required, ...option.inputs?.optional })[rest.join('.')]).find(Boolean);
    const value = spec ? valueOf(spec) : undefined;
    return value ? fc.option(value.map((v) => [name, v] as const), { nil: undefined }) : fc.constant(undefined);
  });
  const links = (deps.inputs ?? []).map((name) => fc.boolean().map((on) => (on ? ([name, ['99', 0]] as const) : undefined)));
  const groups = (deps.input_groups ?? []).map((group) => fc.nat({ max: 6 }).map((count) => Array.from({ length: count }, (_, i) => [`${group}.item_${i}`, ['99', 0]] as const)));
  return fc.tuple(fc.tuple(...widgets, ...links), fc.tuple(...groups)).map(([pairs, grouped]) => Object.fromEntries([...pairs.filter((pair) => pair !== undefined), ...grouped.flat()]));
}

describe('estimateWorkflowCost() on random valid nodes of the 0.33.0 catalog (property)', () => {
  const badged = Object.keys(catalog).filter((name) => catalog[name]!.price_badge);

  it('prices each node or names why not, with no exception and finite, ordered bounds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...badged).chain((classType) => inputsOf(catalog[classType]!).map((inputs) => ({ classType, inputs }))),
        async ({ classType, inputs }) => {
          const workflow: Workflow = { '7': { class_type: classType, inputs } };
          const estimate = await estimateWorkflowCost(workflow, catalog);
          expect(estimate.nodes.length + estimate.unpriced.length).toBe(1);
          for (const node of estimate.nodes) {
            expect(Number.isFinite(node.usd.min) && Number.isFinite(node.usd.max)).toBe(true);
            expect(node.usd.min).toBeGreaterThanOrEqual(0);
            expect(node.usd.max).toBeGreaterThanOrEqual(node.usd.min);
          }
          for (const node of estimate.unpriced) expect(node.reason).toMatch(/\S/);
          // Nothing else bounds the estimate here: a catalog badge never comes near the step or time bounds.
          for (const node of estimate.unpriced) expect(node.reason).not.toMatch(/steps|time bound|nested/);
        },
      ),
      { numRuns: 400 },
    );
  });
});
