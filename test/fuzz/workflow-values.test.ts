// Hostile saved values in a UI-format workflow: a primitive's value that is not a number, linked to
// a numeric widget, is passed on as saved (the server's validation names it), never a TypeError.
import { describe, expect, it } from 'vitest';
import { toApiWorkflow } from '../../src/cloud/workflow/index.js';
import { objectInfo } from '../cloud/workflow/fixtures/object-info.js';

/** A PrimitiveNode whose value feeds ImageScaleBy.scale_by (FLOAT), or EmptyLatentImage.width (INT). */
function graph(value: unknown, target: 'float' | 'int') {
  const to = target === 'float'
    ? { id: 1, type: 'ImageScaleBy', mode: 0, inputs: [{ name: 'image', type: 'IMAGE', link: null }, { name: 'scale_by', type: 'FLOAT', link: 11, widget: { name: 'scale_by' } }], outputs: [], widgets_values: ['bilinear', 1] }
    : { id: 1, type: 'EmptyLatentImage', mode: 0, inputs: [{ name: 'width', type: 'INT', link: 11, widget: { name: 'width' } }], outputs: [{ name: 'LATENT', type: 'LATENT', links: [] }], widgets_values: [512, 512, 1] };
  return {
    version: 0.4,
    nodes: [{ id: 0, type: 'PrimitiveNode', mode: 0, inputs: [], outputs: [{ name: 'connect to widget input', type: target === 'float' ? 'FLOAT' : 'INT', links: [11], widget: { name: target === 'float' ? 'scale_by' : 'width' } }], widgets_values: [value, 'fixed'] }, to],
    links: [[11, 0, 0, 1, target === 'float' ? 1 : 0, target === 'float' ? 'FLOAT' : 'INT']],
  };
}

describe('toApiWorkflow() with a primitive value that is not a number', () => {
  it.each([
    ['a null-prototype object', Object.create(null) as unknown, undefined],
    ['an object', { a: 1 }, undefined],
    ['a string', '1.5', undefined],
    // An array is wrapped, as the web UI does, so that it is not read as a link.
    ['an array', [1], { __value__: [1] }],
  ])('passes %s on to a FLOAT and an INT widget as saved', (_name, value, sent) => {
    for (const target of ['float', 'int'] as const) {
      const prompt = toApiWorkflow(graph(value, target) as never, objectInfo, { random: () => 0.5, now: new Date(0) });
      const inputs = prompt['1']?.inputs as Record<string, unknown>;
      expect(inputs[target === 'float' ? 'scale_by' : 'width']).toEqual(sent ?? value);
    }
  });
});
