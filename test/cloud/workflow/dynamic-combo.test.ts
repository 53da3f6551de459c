import { describe, expect, it } from 'vitest';
import { toApiWorkflow } from '../../../src/cloud/workflow/index.js';
import { objectInfo } from './fixtures/object-info.js';
import { node, workflow } from './helpers.js';

const convert = (ui: unknown) => JSON.parse(JSON.stringify(toApiWorkflow(ui, objectInfo))) as Record<string, { inputs: Record<string, unknown> }>;

describe('toApiWorkflow() V3 dynamic combos (COMFY_DYNAMICCOMBO_V3)', () => {
  it('places the saved values after the combo on the inputs of the chosen option, named combo.input', () => {
    const prompt = convert(workflow([node({ id: 1, type: 'ResizeBy', values: ['size', 1280, 'disabled', 'lanczos'] })], []));
    expect(Object.entries(prompt['1']!.inputs)).toEqual([
      ['resize', 'size'],
      ['resize.width', 1280],
      ['resize.crop', 'disabled'],
      ['method', 'lanczos'],
    ]);
  });

  it('gives another option its own inputs, and an option without inputs none', () => {
    expect(convert(workflow([node({ id: 1, type: 'ResizeBy', values: ['multiplier', 2, 'area'] })], []))['1']!.inputs).toEqual({ resize: 'multiplier', 'resize.factor': 2, method: 'area' });
    expect(convert(workflow([node({ id: 1, type: 'ResizeBy', values: ['none', 'area'] })], []))['1']!.inputs).toEqual({ resize: 'none', method: 'area' });
  });

  it('starts on the first option with its defaults when nothing is saved', () => {
    expect(convert(workflow([node({ id: 1, type: 'ResizeBy' })], []))['1']!.inputs).toEqual({ resize: 'size', 'resize.width': 512, 'resize.crop': 'center', method: 'area' });
  });

  it('links a socket input of the chosen option', () => {
    const ui = workflow(
      [
        node({ id: 1, type: 'LoadImage', outputs: [['IMAGE', [1]], ['MASK', []]], values: ['a.png', 'image'] }),
        node({ id: 2, type: 'ResizeBy', inputs: [['image', 'IMAGE', null], ['resize.match', 'IMAGE', 1]], values: ['size', 64, 'center', 'area'] }),
      ],
      [[1, 1, 0, 2, 1, 'IMAGE']],
    );
    expect(convert(ui)['2']!.inputs).toEqual({ resize: 'size', 'resize.width': 64, 'resize.crop': 'center', method: 'area', 'resize.match': ['1', 0] });
  });
});
