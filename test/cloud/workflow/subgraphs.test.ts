import { describe, expect, it } from 'vitest';
import { toApiWorkflow } from '../../../src/cloud/workflow/index.js';
import { objectInfo } from './fixtures/object-info.js';
import { subgraphWorkflow } from './fixtures/subgraph.js';
import { node } from './helpers.js';

const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('toApiWorkflow() subgraphs', () => {
  it('expands a subgraph into outer:inner nodes linked across its inputs and outputs', () => {
    expect(plain(toApiWorkflow(subgraphWorkflow(), objectInfo))).toEqual({
      '1': { inputs: { image: 'a.png' }, class_type: 'LoadImage', _meta: { title: 'Load Image' } },
      '3': { inputs: { filename_prefix: 'out', images: ['2:11', 0] }, class_type: 'SaveImage', _meta: { title: 'Save Image' } },
      '2:10': { inputs: { image: ['1', 0] }, class_type: 'ImageInvert', _meta: { title: 'Inner invert' } },
      '2:11': { inputs: { upscale_method: 'bilinear', scale_by: 1.5, image: ['2:10', 0] }, class_type: 'ImageScaleBy', _meta: { title: 'Upscale Image By' } },
    });
  });

  it('takes promoted values from the subgraph definition, not from the subgraph node widgets_values (web UI 1.45 ignores those)', () => {
    const prompt = plain(toApiWorkflow(subgraphWorkflow([10, 11], [3]), objectInfo)) as Record<string, { inputs: Record<string, unknown> }>;
    expect(prompt['2:11']!.inputs.scale_by).toBe(1.5);
    const unset = plain(toApiWorkflow(subgraphWorkflow([10, 11], [null]), objectInfo)) as Record<string, { inputs: Record<string, unknown> }>;
    expect(unset['2:11']!.inputs.scale_by).toBe(1.5);
  });

  it('resolves a subgraph input whose unlinked widget input the saved node leaves out (exported files drop them)', () => {
    const ui = subgraphWorkflow();
    ui.nodes[1]!.inputs = [ui.nodes[1]!.inputs![0]!];
    const prompt = plain(toApiWorkflow(ui, objectInfo)) as Record<string, { inputs: Record<string, unknown> }>;
    expect(prompt['2:10']!.inputs).toEqual({ image: ['1', 0] });
    expect(prompt['2:11']!.inputs).toEqual({ upscale_method: 'bilinear', scale_by: 1.5, image: ['2:10', 0] });
  });

  it('writes a PrimitiveNode linked to a subgraph node input into the inner widget that input shows', () => {
    const ui = subgraphWorkflow();
    ui.nodes.push({ ...node({ id: 4, type: 'PrimitiveNode', values: [2.5, 'fixed'] }), outputs: [{ name: 'FLOAT', type: 'FLOAT', links: [30], widget: { name: 'scale_by' } }] });
    ui.nodes[1]!.inputs![1] = { name: 'scale_by', type: 'FLOAT', link: 30, widget: { name: 'scale_by' } };
    (ui.links as unknown[]).push({ id: 30, origin_id: 4, origin_slot: 0, target_id: 2, target_slot: 1, type: 'FLOAT' });
    const prompt = plain(toApiWorkflow(ui, objectInfo)) as Record<string, { inputs: Record<string, unknown> }>;
    expect(Object.keys(prompt)).toEqual(['1', '3', '2:10', '2:11']);
    expect(prompt['2:11']!.inputs.scale_by).toBe(2.5);
  });

  it('binds saved subgraph node inputs to the definition inputs by name and type, whatever their saved order', () => {
    const ui = subgraphWorkflow();
    ui.nodes[1]!.inputs = [ui.nodes[1]!.inputs![1]!, ui.nodes[1]!.inputs![0]!];
    const prompt = plain(toApiWorkflow(ui, objectInfo)) as Record<string, { inputs: Record<string, unknown> }>;
    expect(prompt['2:10']!.inputs).toEqual({ image: ['1', 0] });
    expect(prompt['2:11']!.inputs.scale_by).toBe(1.5);
  });

  it('gives inner nodes whose ids clash with root nodes the next free ids, as the web UI does', () => {
    const prompt = plain(toApiWorkflow(subgraphWorkflow([1, 3]), objectInfo)) as Record<string, { inputs: Record<string, unknown> }>;
    expect(Object.keys(prompt)).toEqual(['1', '3', '2:12', '2:13']);
    expect(prompt['2:13']!.inputs.image).toEqual(['2:12', 0]);
    expect(prompt['3']!.inputs.images).toEqual(['2:13', 0]);
  });

  it('leaves a muted subgraph node and everything inside it out', () => {
    const ui = subgraphWorkflow();
    (ui.nodes[1] as { mode: number }).mode = 2;
    expect(Object.keys(plain(toApiWorkflow(ui, objectInfo)) as object)).toEqual(['1', '3']);
  });

  it('passes a bypassed subgraph node input through', () => {
    const ui = subgraphWorkflow();
    (ui.nodes[1] as { mode: number }).mode = 4;
    const prompt = plain(toApiWorkflow(ui, objectInfo)) as Record<string, { inputs: Record<string, unknown> }>;
    expect(Object.keys(prompt)).toEqual(['1', '3']);
    expect(prompt['3']!.inputs.images).toEqual(['1', 0]);
  });
});
