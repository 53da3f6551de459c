import { describe, expect, it } from 'vitest';
import { toApiWorkflow } from '../../../src/cloud/workflow/index.js';
import { objectInfo } from './fixtures/object-info.js';
import { node, workflow } from './helpers.js';

const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, { inputs: Record<string, unknown>; class_type: string; _meta: { title: string } }>;
const convert = (ui: unknown, options = {}) => plain(toApiWorkflow(ui, objectInfo, options));

describe('toApiWorkflow() widget values', () => {
  it('skips the control_after_generate value after a seed and a combo with control (and its filter)', () => {
    const ui = workflow(
      [
        node({ id: 1, type: 'RandomPick', values: ['y', 'increment', '', 3] }),
        node({ id: 2, type: 'KSampler', values: [7, 'fixed', 30, 5.5, 'dpmpp_2m', 'karras', 0.5] }),
      ],
      [],
    );
    const prompt = convert(ui);
    expect(prompt['1']!.inputs).toEqual({ choice: 'y', count: 3 });
    expect(prompt['2']!.inputs).toEqual({ seed: 7, steps: 30, cfg: 5.5, sampler_name: 'dpmpp_2m', scheduler: 'karras', denoise: 0.5 });
  });

  it('skips the control_after_generate value after a FLOAT whose options set control_after_generate', () => {
    expect(convert(workflow([node({ id: 1, type: 'Jitter', values: [0.75, 'fixed', 9] })], []))['1']!.inputs).toEqual({ amount: 0.75, steps: 9 });
  });

  it('places the image and leaves out the upload button of an upload input', () => {
    const prompt = convert(workflow([node({ id: 1, type: 'LoadImage', values: ['b.png', 'image'] })], []));
    expect(prompt['1']!.inputs).toEqual({ image: 'b.png' });
  });

  it('gives audio nodes the audioUI input the web UI adds', () => {
    const prompt = convert(workflow([node({ id: 1, type: 'SaveAudio', values: ['audio/x'] })], []));
    expect(prompt['1']!.inputs).toEqual({ filename_prefix: 'audio/x', audioUI: '' });
  });

  it('uses the definition defaults when widgets_values is missing or short', () => {
    const prompt = convert(workflow([node({ id: 1, type: 'EmptyLatentImage', values: [1024] })], []));
    expect(prompt['1']!.inputs).toEqual({ width: 1024, height: 512, batch_size: 1 });
  });

  it('follows input_order for widget order', () => {
    const prompt = convert(workflow([node({ id: 1, type: 'Ordered', values: [10, 20, 'z'] })], []));
    expect(prompt['1']!.inputs).toEqual({ a: 10, b: 20, c: 'z' });
    expect(Object.keys(prompt['1']!.inputs)).toEqual(['a', 'b', 'c']);
  });

  it('drops a saved value of a forceInput (defaultInput) input, as old files hold one', () => {
    const prompt = convert(workflow([node({ id: 1, type: 'ForcedSeed', values: [0.25, 99] })], []));
    expect(prompt['1']!.inputs).toEqual({ value: 0.25 });
  });

  it('wraps array values as {__value__} so they do not read as links', () => {
    const prompt = convert(workflow([node({ id: 1, type: 'ListValue', values: [['a', 1]] })], []));
    expect(prompt['1']!.inputs).toEqual({ values: { __value__: ['a', 1] } });
  });

  it('resolves {a|b} choices and strips comments in dynamic-prompt text, with the given random', () => {
    const ui = workflow([node({ id: 1, type: 'CLIPTextEncode', values: ['a {red|blue} fox // note\n/* c */end'] })], []);
    expect(convert(ui, { random: () => 0 })['1']!.inputs.text).toBe('a red fox \nend');
    expect(convert(ui, { random: () => 0.99 })['1']!.inputs.text).toBe('a blue fox \nend');
  });

  it('fills %date:...% and %node.widget% in a save node file name prefix', () => {
    const ui = workflow(
      [node({ id: 1, type: 'EmptyLatentImage', title: 'Size', values: [640, 480, 1] }), node({ id: 2, type: 'SaveImage', values: ['%date:yyyy-MM-dd%/%Size.width%_%EmptyLatentImage.height%'] })],
      [],
    );
    const prompt = convert(ui, { now: new Date(2024, 0, 5) });
    expect(prompt['2']!.inputs.filename_prefix).toBe('2024-01-05/640_480');
  });

  it('keeps the widget key position when the widget input is linked', () => {
    const ui = workflow(
      [
        node({ id: 1, type: 'EmptyLatentImage', outputs: [['LATENT', []]] }),
        node({ id: 2, type: 'Ordered', inputs: [['a', 'INT', 1, 'a']], values: [1, 2, 'c'] }),
        node({ id: 3, type: 'ForcedSeed', outputs: [['FLOAT', [1]]], values: [0.5] }),
      ],
      [[1, 3, 0, 2, 0, 'INT']],
    );
    const prompt = convert(ui);
    expect(Object.entries(prompt['2']!.inputs)).toEqual([
      ['a', ['3', 0]],
      ['b', 2],
      ['c', 'c'],
    ]);
  });
});

describe('toApiWorkflow() graph rules', () => {
  const image = () => node({ id: 1, type: 'LoadImage', outputs: [['IMAGE', [1]], ['MASK', []]], values: ['a.png', 'image'] });

  it('follows links through Reroute nodes', () => {
    const ui = workflow(
      [image(), node({ id: 2, type: 'Reroute', inputs: [['', '*', 1]], outputs: [['IMAGE', [2]]] }), node({ id: 3, type: 'ImageInvert', inputs: [['image', 'IMAGE', 2]], outputs: [['IMAGE', []]] })],
      [
        [1, 1, 0, 2, 0, 'IMAGE'],
        [2, 2, 0, 3, 0, 'IMAGE'],
      ],
    );
    const prompt = convert(ui);
    expect(Object.keys(prompt)).toEqual(['1', '3']);
    expect(prompt['3']!.inputs).toEqual({ image: ['1', 0] });
  });

  it('passes a bypassed node input of the same type through and leaves the node out', () => {
    const ui = workflow(
      [image(), node({ id: 2, type: 'ImageInvert', mode: 4, inputs: [['image', 'IMAGE', 1]], outputs: [['IMAGE', [2]]] }), node({ id: 3, type: 'ImageInvert', inputs: [['image', 'IMAGE', 2]], outputs: [['IMAGE', []]] })],
      [
        [1, 1, 0, 2, 0, 'IMAGE'],
        [2, 2, 0, 3, 0, 'IMAGE'],
      ],
    );
    const prompt = convert(ui);
    expect(Object.keys(prompt)).toEqual(['1', '3']);
    expect(prompt['3']!.inputs).toEqual({ image: ['1', 0] });
  });

  it('leaves a muted node out, and the inputs it fed', () => {
    const ui = workflow(
      [image(), node({ id: 2, type: 'ImageInvert', mode: 2, inputs: [['image', 'IMAGE', 1]], outputs: [['IMAGE', [2]]] }), node({ id: 3, type: 'ImageInvert', inputs: [['image', 'IMAGE', 2]], outputs: [['IMAGE', []]] })],
      [
        [1, 1, 0, 2, 0, 'IMAGE'],
        [2, 2, 0, 3, 0, 'IMAGE'],
      ],
    );
    const prompt = convert(ui);
    expect(Object.keys(prompt)).toEqual(['1', '3']);
    expect(prompt['3']!.inputs).toEqual({});
  });

  it('copies a PrimitiveNode value into the widget it feeds and leaves the primitive out', () => {
    const ui = workflow(
      [
        node({ id: 1, type: 'PrimitiveNode', outputs: [['INT', [1, 2]]], values: [1024, 'fixed'] }),
        node({ id: 2, type: 'EmptyLatentImage', inputs: [['width', 'INT', 1, 'width'], ['height', 'INT', 2, 'height']], values: [512, 512, 1] }),
      ],
      [
        [1, 1, 0, 2, 0, 'INT'],
        [2, 1, 0, 2, 1, 'INT'],
      ],
    );
    const prompt = convert(ui);
    expect(Object.keys(prompt)).toEqual(['2']);
    expect(prompt['2']!.inputs).toEqual({ width: 1024, height: 1024, batch_size: 1 });
  });

  it('leaves Note and MarkdownNote nodes out', () => {
    const ui = workflow([node({ id: 5, type: 'Note', values: ['hi'] }), node({ id: 6, type: 'MarkdownNote', values: ['# hi'] }), image()], []);
    expect(Object.keys(convert(ui))).toEqual(['1']);
  });

  it('reads links in the object form of newer files', () => {
    const ui = {
      version: 1,
      state: { lastNodeId: 3, lastLinkId: 1 },
      nodes: [image(), node({ id: 3, type: 'ImageInvert', inputs: [['image', 'IMAGE', 1]] })],
      links: [{ id: 1, origin_id: 1, origin_slot: 0, target_id: 3, target_slot: 0, type: 'IMAGE' }],
    };
    expect(convert(ui)['3']!.inputs).toEqual({ image: ['1', 0] });
  });

  it('emits nodes in execution order with numeric ids first, as the web UI object does', () => {
    const ui = workflow(
      [node({ id: 20, type: 'ImageInvert', inputs: [['image', 'IMAGE', 1]] }), node({ id: 10, type: 'LoadImage', outputs: [['IMAGE', [1]]], values: ['a.png', 'image'] })],
      [[1, 10, 0, 20, 0, 'IMAGE']],
    );
    expect(Object.keys(convert(ui))).toEqual(['10', '20']);
  });

  it('does not change the workflow it is given', () => {
    const ui = workflow([image(), node({ id: 2, type: 'PrimitiveNode', outputs: [['INT', [2]]], values: [9] }), node({ id: 3, type: 'EmptyLatentImage', inputs: [['width', 'INT', 2, 'width']] })], [[2, 2, 0, 3, 0, 'INT']]);
    const before = JSON.stringify(ui);
    toApiWorkflow(ui, objectInfo);
    expect(JSON.stringify(ui)).toBe(before);
  });
});

describe('toApiWorkflow() primitive values go through the target widget', () => {
  const feed = (type: string, target: ReturnType<typeof node>, value: unknown) =>
    workflow([{ ...node({ id: 1, type: 'PrimitiveNode', values: [value, 'fixed'] }), outputs: [{ name: type, type, links: [1], widget: { name: 'x' } }] }, target], [[1, 1, 0, 2, 0, type]]);

  it('rounds a FLOAT to the precision its step gives and clamps it to min and max (2048 when the definition has none)', () => {
    const scale = () => node({ id: 2, type: 'ImageScaleBy', inputs: [['scale_by', 'FLOAT', 1, 'scale_by'], ['image', 'IMAGE', null]], values: ['bilinear', 1] });
    expect(convert(feed('FLOAT', scale(), 0.75))['2']!.inputs.scale_by).toBe(0.8);
    expect(convert(feed('FLOAT', scale(), 3000))['2']!.inputs.scale_by).toBe(2048);
  });

  it('rounds an INT to its step', () => {
    const ordered = () => node({ id: 2, type: 'Ordered', inputs: [['a', 'INT', 1, 'a']], values: [1, 2, 'c'] });
    expect(convert(feed('INT', ordered(), 2.6))['2']!.inputs.a).toBe(3);
  });
});
