import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GraphcloudError } from '../../../src/core/index.js';
import { toApiWorkflow } from '../../../src/cloud/workflow/index.js';
import { objectInfo } from './fixtures/object-info.js';

const TYPES = ['KSampler', 'LoadImage', 'ImageInvert', 'ImageScaleBy', 'EmptyLatentImage', 'CLIPTextEncode', 'Reroute', 'PrimitiveNode', 'Note', 'SaveImage', 'Unknown', '__proto__', 'constructor'];
const SLOT_TYPES = ['IMAGE', 'INT', 'FLOAT', 'LATENT', '*', 'MODEL'];
const ids = fc.oneof(fc.integer({ min: -1, max: 12 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'a:b'));
const value = fc.oneof(fc.integer(), fc.double(), fc.string(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(fc.constantFrom('__proto__', 'x', 'length'), fc.integer()));

/** Random UI graphs: random node types, modes, sockets and links (array or object form), some broken. */
const uiGraph = fc
  .record({
    nodes: fc.array(
      fc.record({
        id: ids,
        type: fc.constantFrom(...TYPES),
        mode: fc.constantFrom(0, 0, 0, 2, 4),
        title: fc.option(fc.constantFrom('A', 'B.c', '__proto__'), { nil: undefined }),
        inputs: fc.array(fc.record({ name: fc.constantFrom('image', 'seed', 'width', '', '__proto__', 'samples'), type: fc.constantFrom(...SLOT_TYPES), link: fc.option(fc.integer({ min: 0, max: 15 }), { nil: null }), widget: fc.option(fc.record({ name: fc.constantFrom('seed', 'width', 'value') }), { nil: undefined }) }), { maxLength: 4 }),
        outputs: fc.array(fc.record({ name: fc.constant('out'), type: fc.constantFrom(...SLOT_TYPES), links: fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 3 }) }), { maxLength: 3 }),
        widgets_values: fc.option(fc.array(value, { maxLength: 8 }), { nil: undefined }),
      }),
      { maxLength: 10 },
    ),
    links: fc.array(fc.tuple(fc.integer({ min: 0, max: 15 }), ids, fc.integer({ min: -1, max: 3 }), ids, fc.integer({ min: -1, max: 3 }), fc.constantFrom(...SLOT_TYPES)), { maxLength: 15 }),
    objectLinks: fc.boolean(),
  })
  .map(({ nodes, links, objectLinks }) => ({
    version: objectLinks ? 1 : 0.4,
    nodes,
    links: objectLinks ? links.map(([id, origin_id, origin_slot, target_id, target_slot, type]) => ({ id, origin_id, origin_slot, target_id, target_slot, type })) : links,
  }));

describe('toApiWorkflow() on random UI graphs', () => {
  it('throws only SDK errors, references only emitted nodes, and never changes Object.prototype', () => {
    fc.assert(
      fc.property(uiGraph, (ui) => {
        let prompt;
        try {
          prompt = toApiWorkflow(ui, objectInfo, { random: () => 0.5, now: new Date(0) });
        } catch (error) {
          expect(error).toBeInstanceOf(GraphcloudError);
          return;
        }
        for (const node of Object.values(prompt)) {
          expect(typeof node.class_type).toBe('string');
          for (const input of Object.values(node.inputs)) {
            if (Array.isArray(input)) expect(Object.hasOwn(prompt, String(input[0]))).toBe(true);
          }
        }
        expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('inputs');
        expect(({} as Record<string, unknown>).class_type).toBeUndefined();
        expect(JSON.parse(JSON.stringify(prompt))).toBeTypeOf('object');
      }),
      { numRuns: 500 },
    );
  });
});
