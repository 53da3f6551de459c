import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/index.js';
import { workflow } from '../../../src/cloud/workflow/builder.js';
import { ejectWorkflow } from '../../../src/cloud/workflow/eject.js';
import { literal, Names } from '../../../src/cloud/workflow/eject-code.js';
import { WorkflowConversionError } from '../../../src/cloud/workflow/index.js';
import { objectInfo } from './fixtures/object-info.js';
import { textToImage } from './fixtures/text-to-image.js';

const options = { typesImport: './nodes.js' };

/** Runs ejected code with the builder in place of its imports: the module's build().toJSON(). */
function run(code: string): unknown {
  const body = code
    .replace(/^import .*$/gm, '')
    .replace('export default function build(): WorkflowBuilder<Nodes>', 'return function build()')
    .replace(/<Nodes>/g, '')
    .replace(': WorkflowBuilder = wf', ' = wf');
  const build = new Function('workflow', body) as (w: typeof workflow) => () => { toJSON(): unknown };
  return JSON.parse(JSON.stringify(build(workflow)().toJSON()));
}

describe('ejectWorkflow()', () => {
  it('writes a saved workflow as builder code: names from titles, links as variables, ids and titles kept', () => {
    expect(ejectWorkflow(textToImage, objectInfo, { ...options, source: 'text-to-image.json' })).toBe(
      [
        '// Ejected by graphcloud from text-to-image.json: build().toJSON() is the API workflow',
        '// toApiWorkflow() makes of the saved file, with its node ids and titles (docs: "Ejecting a saved workflow").',
        "import { workflow, type WorkflowBuilder } from 'graphcloud';",
        "import type { Nodes } from './nodes.js';",
        '',
        'export default function build(): WorkflowBuilder<Nodes> {',
        '  const wf = workflow<Nodes>({',
        '    outputs: {',
        "      CLIPTextEncode: ['CONDITIONING'],",
        "      CheckpointLoaderSimple: ['MODEL', 'CLIP', 'VAE'],",
        "      EmptyLatentImage: ['LATENT'],",
        "      KSampler: ['LATENT'],",
        "      VAEDecode: ['IMAGE'],",
        '    },',
        '  });',
        "  const loadCheckpoint = wf.CheckpointLoaderSimple({ ckpt_name: 'sd15.safetensors' }, { id: '4', title: 'Load Checkpoint' });",
        "  const positive = wf.CLIPTextEncode({ text: 'a red fox', clip: loadCheckpoint.CLIP }, { id: '6', title: 'Positive' });",
        "  const clipTextEncodePrompt = wf.CLIPTextEncode({ text: 'blurry', clip: loadCheckpoint.CLIP }, { id: '7', title: 'CLIP Text Encode (Prompt)' });",
        "  const emptyLatentImage = wf.EmptyLatentImage({ width: 512, height: 768, batch_size: 1 }, { id: '5', title: 'Empty Latent Image' });",
        '  const kSampler = wf.KSampler({',
        '    seed: 156680208700286,',
        '    steps: 20,',
        '    cfg: 8,',
        "    sampler_name: 'euler',",
        "    scheduler: 'normal',",
        '    denoise: 1,',
        '    model: loadCheckpoint.MODEL,',
        '    positive: positive.CONDITIONING,',
        '    negative: clipTextEncodePrompt.CONDITIONING,',
        '    latent_image: emptyLatentImage.LATENT,',
        "  }, { id: '3', title: 'KSampler' });",
        "  const vaeDecode = wf.VAEDecode({ samples: kSampler.LATENT, vae: loadCheckpoint.VAE }, { id: '8', title: 'VAE Decode' });",
        "  wf.SaveImage({ filename_prefix: 'ComfyUI', images: vaeDecode.IMAGE }, { id: '9', title: 'Save Image' });",
        '  return wf;',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('leaves out an id that call order gives, and writes nodes after those they link to', () => {
    const api = {
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
      '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } },
      '5:1': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    };
    const code = ejectWorkflow(api, objectInfo, options);
    expect(code).toContain("  const loadImage = wf.LoadImage({ image: 'a.png' });\n  wf.SaveImage({ images: loadImage.IMAGE, filename_prefix: 'x' });\n  wf.ImageInvert({ image: loadImage.IMAGE }, { id: '5:1' });");
    expect(run(code)).toEqual(api);
  });

  it('adds a node whose required link is unconnected through the untyped view, and what it feeds too', () => {
    // A node the server never runs: VAEDecode without its vae; the SaveImage it feeds follows it.
    const api = {
      '1': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } },
      '2': { class_type: 'VAEDecode', inputs: { samples: ['1', 0] } },
      '3': { class_type: 'SaveImage', inputs: { filename_prefix: 'x', images: ['2', 0] } },
      '4': { class_type: 'FancyNode', inputs: { any: ['1', 0] } },
    };
    const code = ejectWorkflow(api, objectInfo, options);
    expect(code).toContain('  const untyped: WorkflowBuilder = wf;\n');
    expect(code).toContain(
      [
        '  // Untyped: its required input vae is not connected (the server does not run it).',
        "  const vaeDecode = untyped.node('VAEDecode', { samples: emptyLatentImage.LATENT });",
        '  // Untyped: it takes images from a node written untyped.',
        "  untyped.node('SaveImage', { filename_prefix: 'x', images: vaeDecode.out('IMAGE') });",
        '  // Untyped: the catalog has no class FancyNode.',
        "  untyped.node('FancyNode', { any: emptyLatentImage.LATENT });",
      ].join('\n'),
    );
    expect(run(code)).toEqual(api);
  });

  it('writes untyped a value that is not an option, a literal where a link goes, a link of another type', () => {
    const api = {
      '1': { class_type: 'LoadImage', inputs: { image: 'c.png' } },
      '2': { class_type: 'ImageInvert', inputs: { image: 'not a link' } },
      '3': { class_type: 'ImageInvert', inputs: { image: ['4', 0] } },
      '4': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } },
      '5': { class_type: 'EmptyLatentImage', inputs: { width: '64', height: 64, batch_size: 1 } },
    };
    const code = ejectWorkflow(api, objectInfo, options);
    expect(code.split('\n').filter((line) => line.includes('// Untyped'))).toEqual([
      "  // Untyped: image 'c.png' is not one of the catalog's options.",
      '  // Untyped: image is a literal where the catalog takes a link of type IMAGE.',
      '  // Untyped: image is linked to an output of type LATENT, not IMAGE.',
      '  // Untyped: width is a string, not a number.',
    ]);
    expect(run(code)).toEqual(api);
  });

  it('writes a link to a node the file lacks as the array it is, untyped', () => {
    const api = { '1': { class_type: 'SaveImage', inputs: { images: ['9', 0], filename_prefix: 'x' } } };
    const code = ejectWorkflow(api, objectInfo, options);
    expect(code).toContain("untyped.node('SaveImage', { images: ['9', 0], filename_prefix: 'x' });");
    expect(run(code)).toEqual(api);
  });

  it('gives every node a readable, unique name that is no reserved word', () => {
    const names = new Names();
    expect([names.take('Load Checkpoint'), names.take('Load Checkpoint'), names.take('new'), names.take('2nd pass'), names.take('提示词', 'CLIPTextEncode'), names.take('', ''), names.take('wf')]).toEqual([
      'loadCheckpoint',
      'loadCheckpoint2',
      'newNode',
      'node2ndPass',
      'clipTextEncode',
      'node',
      'wfNode',
    ]);
  });

  it('writes literals that read back as the very value (property)', () => {
    // Saved files are JSON: any JSON value, keys like __proto__ included, and the numbers a converter may make.
    const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'a b', "it's", '0'));
    const value = fc.oneof(fc.jsonValue(), fc.constantFrom(-0, Number.NaN, Infinity, -Infinity, '\u2028', '\ud800x', '\udc00', "it's \\ \n\r\t\u0000"));
    fc.assert(
      fc.property(fc.oneof(value, fc.dictionary(key, value), fc.array(fc.dictionary(key, value))), (v) => {
        const back = new Function(`return ${literal(v)};`)() as unknown;
        expect(back).toEqual(v);
        expect(JSON.stringify(back)).toBe(JSON.stringify(v));
      }),
    );
    expect(literal({ ['__proto__']: 1 })).toBe("{ ['__proto__']: 1 }");
  });

  it('rebuilds any API-format workflow it is given (property)', () => {
    // Random graphs: ids numeric or not, known and unknown classes, literal inputs, and links to
    // nodes made before (any output index, so past a class's outputs too), titles or none.
    const classes = ['LoadImage', 'ImageInvert', 'KSampler', 'CheckpointLoaderSimple', 'SaveImage', 'FancyNode', 'toJSON', 'then', 'constructor', 'Image Blend (x)', 'Two\nlines\u2028'];
    const node = fc.record({
      id: fc.oneof(fc.nat(40).map(String), fc.string({ minLength: 1, maxLength: 6 }).filter((id) => id !== '__proto__')),
      class_type: fc.constantFrom(...classes),
      title: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
      literals: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
      links: fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.nat(), fc.nat(3)), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(node, { selector: (n) => n.id, maxLength: 12 }), (nodes) => {
        const api: Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: { title: string } }> = {};
        nodes.forEach((n, at) => {
          const inputs: Record<string, unknown> = { ...n.literals };
          if (at > 0) for (const [name, source, index] of n.links) inputs[name] = [nodes[source % at]!.id, index];
          api[n.id] = { class_type: n.class_type, inputs, ...(n.title === undefined ? {} : { _meta: { title: n.title } }) };
        });
        if (nodes.length === 0) return;
        expect(run(ejectWorkflow(api, objectInfo, { ...options, source: 'a\nb.json' }))).toEqual(JSON.parse(JSON.stringify(api)));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses missing or unknown options, a file in neither format, and links in a circle', () => {
    expect(() => ejectWorkflow(textToImage, objectInfo, {} as never)).toThrow(/options\.typesImport: expected the module of the generated node types/);
    expect(() => ejectWorkflow(textToImage, objectInfo, { typesImport: './n.js', typesImprot: 1 } as never)).toThrow(/did you mean "typesImport"/);
    expect(() => ejectWorkflow({ nodes: 3 }, objectInfo, options)).toThrow(ValidationError);
    const circle = { '1': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } }, '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } } };
    expect(() => ejectWorkflow(circle, objectInfo, options)).toThrow(/links that do not go round in a circle/);
    expect(() => ejectWorkflow({ ...textToImage, nodes: [{ id: 1, type: 'Nope' }] }, objectInfo, options)).toThrow(WorkflowConversionError);
    expect(() => ejectWorkflow({ '1': { class_type: 'LoadImage', inputs: 'x' }, ['__proto__']: { class_type: 'LoadImage', inputs: {} } }, objectInfo, options)).toThrow(/saved\["1"\]\.inputs: expected an object/);
    expect(() => ejectWorkflow(JSON.parse('{"__proto__": {"class_type": "LoadImage", "inputs": {}}}'), objectInfo, options)).toThrow(/a node id the builder accepts/);
  });
});
