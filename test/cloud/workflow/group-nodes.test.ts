import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toApiWorkflow } from '../../../src/cloud/workflow/index.js';
import type { ObjectInfo } from '../../../src/cloud/workflow/validate.js';
import { objectInfo as base } from './fixtures/object-info.js';

// test/cloud/fixtures/group-node-stable-cascade-inpaint.json: the group node "StableCascadeInpaintCnet"
// of a public workflow ("Stable Cascade Inpainting ControlNet" by ZHO, as published), its instance
// and its definition copied as saved (a Reroute inside, hidden widgets, a renamed input), wired to
// a LoadImage and a PreviewImage. The expected prompt follows the frontend's groupNode extension
// (GroupNodeConfig, GroupNodeHandler.getInnerNodes).
const fixture = (): Record<string, unknown> => JSON.parse(readFileSync(new URL('../fixtures/group-node-stable-cascade-inpaint.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, { class_type: string; inputs: Record<string, unknown>; _meta: { title: string } }>;

// The definitions of ComfyUI's own nodes, in their order (nodes.py, comfy_extras/nodes_mask.py, nodes_compositing.py).
const def = (name: string, display: string, required: Record<string, unknown>, output: string[], optional: Record<string, unknown> = {}) => ({ name, display_name: display, category: 'test', input: { required, optional }, output, output_name: output });
const objectInfo: ObjectInfo = {
  ...base,
  EmptyImage: def('EmptyImage', 'EmptyImage', { width: ['INT', { default: 512, min: 1, max: 16384, step: 1 }], height: ['INT', { default: 512, min: 1, max: 16384, step: 1 }], batch_size: ['INT', { default: 1, min: 1, max: 4096 }], color: ['INT', { default: 0, min: 0, max: 0xffffff, step: 1, display: 'color' }] }, ['IMAGE']),
  ThresholdMask: def('ThresholdMask', 'ThresholdMask', { mask: ['MASK'], value: ['FLOAT', { default: 0.5, min: 0, max: 1, step: 0.01 }] }, ['MASK']),
  InvertMask: def('InvertMask', 'InvertMask', { mask: ['MASK'] }, ['MASK']),
  ImageCompositeMasked: def('ImageCompositeMasked', 'ImageCompositeMasked', { destination: ['IMAGE'], source: ['IMAGE'], x: ['INT', { default: 0, min: 0, max: 16384, step: 8 }], y: ['INT', { default: 0, min: 0, max: 16384, step: 8 }], resize_source: ['BOOLEAN', { default: false }] }, ['IMAGE'], { mask: ['MASK'] }),
  JoinImageWithAlpha: def('JoinImageWithAlpha', 'Join Image with Alpha', { image: ['IMAGE'], alpha: ['MASK'] }, ['IMAGE']),
  PreviewImage: def('PreviewImage', 'Preview Image', { images: ['IMAGE'] }, []),
} as ObjectInfo;
// The same, but KSampler's seed without control_after_generate, as catalogs of older servers give it.
const olderCatalog: ObjectInfo = { ...objectInfo, KSampler: structuredClone(objectInfo.KSampler!) };
delete (olderCatalog.KSampler!.input.required!.seed as [string, Record<string, unknown>])[1].control_after_generate;

describe('toApiWorkflow() legacy group nodes', () => {
  it('expands a group node into <id>:<index> nodes, its widget values and links mapped (a public workflow)', () => {
    expect(plain(toApiWorkflow(fixture(), objectInfo))).toEqual({
      '50': { class_type: 'LoadImage', inputs: { image: 'clipspace/clipspace-mask-870079.5.png [input]' }, _meta: { title: 'Load Image' } },
      '68:0': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 1, color: 16777215 }, _meta: { title: 'EmptyImage' } },
      '68:1': { class_type: 'ThresholdMask', inputs: { value: 0.5, mask: ['50', 1] }, _meta: { title: 'ThresholdMask' } },
      '68:2': { class_type: 'InvertMask', inputs: { mask: ['50', 1] }, _meta: { title: 'InvertMask' } },
      '68:3': { class_type: 'ImageCompositeMasked', inputs: { x: 0, y: 0, resize_source: true, destination: ['50', 0], source: ['68:0', 0], mask: ['68:1', 0] }, _meta: { title: 'ImageCompositeMasked' } },
      '68:5': { class_type: 'JoinImageWithAlpha', inputs: { image: ['68:3', 0], alpha: ['68:2', 0] }, _meta: { title: 'Join Image with Alpha' } },
      '78': { class_type: 'PreviewImage', inputs: { images: ['68:5', 0] }, _meta: { title: 'Preview Image' } },
    });
  });

  it("takes each instance's own widget values (two instances of one group), the workflow/ and workflow> spellings alike", () => {
    const ui = fixture();
    const nodes = ui.nodes as Record<string, unknown>[];
    const second = { ...structuredClone(nodes[1]!), id: 90, type: 'workflow>StableCascadeInpaintCnet', widgets_values: [64, 32, 2, 255, 0.25, 8, 16, false], outputs: [{ name: 'IMAGE', type: 'IMAGE', links: [400] }] } as unknown as Record<string, unknown> & { inputs: { link: number }[] };
    nodes.push(second, { id: 91, type: 'PreviewImage', inputs: [{ name: 'images', type: 'IMAGE', link: 400 }] });
    (nodes[0]!.outputs as { links: number[] }[])[0]!.links.push(401);
    (nodes[0]!.outputs as { links: number[] }[])[1]!.links.push(402);
    second.inputs[0]!.link = 401;
    second.inputs[1]!.link = 402;
    (ui.links as unknown[]).push([400, 90, 0, 91, 0, 'IMAGE'], [401, 50, 0, 90, 0, 'IMAGE'], [402, 50, 1, 90, 1, 'MASK']);
    const prompt = plain(toApiWorkflow(ui, objectInfo));
    expect(prompt['68:0']!.inputs).toEqual({ width: 512, height: 512, batch_size: 1, color: 16777215 });
    expect(prompt['90:0']!.inputs).toEqual({ width: 64, height: 32, batch_size: 2, color: 255 });
    expect(prompt['90:3']!.inputs).toEqual({ x: 8, y: 16, resize_source: false, destination: ['50', 0], source: ['90:0', 0], mask: ['90:1', 0] });
    expect(prompt['91']!.inputs).toEqual({ images: ['90:5', 0] });
  });

  it('maps a seed with its control_after_generate widget, and an unlinked inner input to a group input', () => {
    const ui = {
      last_node_id: 3,
      last_link_id: 2,
      nodes: [
        { id: 1, type: 'CheckpointLoaderSimple', outputs: [{ name: 'MODEL', type: 'MODEL', links: [1] }], widgets_values: ['sd15.safetensors'] },
        { id: 2, type: 'workflow>Sampler', inputs: [{ name: 'model', type: 'MODEL', link: 1 }, { name: 'positive', type: 'CONDITIONING', link: null }, { name: 'negative', type: 'CONDITIONING', link: null }], outputs: [{ name: 'LATENT', type: 'LATENT', links: [2] }], widgets_values: [64, 64, 1, 7, 'fixed', 30, 5.5, 'dpmpp_2m', 'karras', 0.75] },
        { id: 3, type: 'VAEDecode', inputs: [{ name: 'samples', type: 'LATENT', link: 2 }, { name: 'vae', type: 'VAE', link: null }] },
      ],
      links: [[1, 1, 0, 2, 0, 'MODEL'], [2, 2, 0, 3, 0, 'LATENT']],
      extra: {
        groupNodes: {
          Sampler: {
            nodes: [
              { type: 'EmptyLatentImage', outputs: [{ name: 'LATENT', type: 'LATENT', links: [] }], widgets_values: [512, 512, 1], index: 0 },
              { type: 'KSampler', inputs: [{ name: 'model', type: 'MODEL', link: null }, { name: 'positive', type: 'CONDITIONING', link: null }, { name: 'negative', type: 'CONDITIONING', link: null }, { name: 'latent_image', type: 'LATENT', link: null }], outputs: [{ name: 'LATENT', type: 'LATENT', links: [] }], widgets_values: [1, 'randomize', 20, 8, 'euler', 'normal', 1], index: 1 },
            ],
            links: [[0, 0, 1, 3, 5, 'LATENT']],
            external: [[1, 0, 'LATENT']],
          },
        },
      },
      version: 0.4,
    };
    const prompt = plain(toApiWorkflow(ui, objectInfo));
    expect(prompt['2:0']!.inputs).toEqual({ width: 64, height: 64, batch_size: 1 });
    // The group's inputs: model, positive, negative (latent_image is linked inside); its widgets: the latent's, then the sampler's.
    expect(prompt['2:1']!.inputs).toEqual({ seed: 7, steps: 30, cfg: 5.5, sampler_name: 'dpmpp_2m', scheduler: 'karras', denoise: 0.75, model: ['1', 0], latent_image: ['2:0', 0] });
    expect(prompt['3']!.inputs).toEqual({ samples: ['2:1', 0] });
  });

  it('keeps the control_after_generate widget of a seed the group renames (GroupNodeConfig.getInputConfig)', () => {
    const ui = {
      last_node_id: 1,
      last_link_id: 0,
      nodes: [{ id: 1, type: 'workflow>Noise', outputs: [{ name: 'LATENT', type: 'LATENT', links: [] }], widgets_values: [64, 64, 1, 7, 'fixed', 30, 5.5, 'dpmpp_2m', 'karras', 0.75] }],
      links: [],
      extra: {
        groupNodes: {
          Noise: {
            nodes: [
              { type: 'EmptyLatentImage', outputs: [{ name: 'LATENT', type: 'LATENT', links: [] }], widgets_values: [512, 512, 1], index: 0 },
              { type: 'KSampler', inputs: ['model', 'positive', 'negative', 'latent_image'].map((name) => ({ name, type: 'X', link: null })), outputs: [{ name: 'LATENT', type: 'LATENT', links: [] }], widgets_values: [1, 'randomize', 20, 8, 'euler', 'normal', 1], index: 1 },
            ],
            links: [[0, 0, 1, 3, 5, 'LATENT']],
            external: [[1, 0, 'LATENT']],
            config: { '1': { input: { seed: { name: 'my seed' } } } },
          },
        },
      },
      version: 0.4,
    };
    // Older catalogs do not mark a seed with control_after_generate: the web UI goes by its name.
    const sampler = structuredClone(objectInfo.KSampler!);
    delete (sampler.input.required!.seed as [string, Record<string, unknown>])[1].control_after_generate;
    expect(plain(toApiWorkflow(ui, { ...objectInfo, KSampler: sampler }))['1:1']!.inputs).toEqual({ seed: 7, steps: 30, cfg: 5.5, sampler_name: 'dpmpp_2m', scheduler: 'karras', denoise: 0.75, latent_image: ['1:0', 0] });
  });

  it('reads a widget socket as a converted widget when the instance shows it as an input, else as a widget', () => {
    const sampler = { type: 'KSampler', inputs: [{ name: 'model', type: 'MODEL', link: null }, { name: 'positive', type: 'CONDITIONING', link: null }, { name: 'negative', type: 'CONDITIONING', link: null }, { name: 'latent_image', type: 'LATENT', link: null }, { name: 'seed', type: 'INT', widget: { name: 'seed' }, link: null }], outputs: [{ name: 'LATENT', type: 'LATENT', links: [] }], widgets_values: [1, 'fixed', 20, 8, 'euler', 'normal', 1], index: 0 };
    const ui = (instanceInputs: { name: string; type: string; link: number | null }[], values: unknown[]) => ({
      last_node_id: 2,
      last_link_id: 1,
      nodes: [
        { id: 1, type: 'Ordered', outputs: [{ name: 'INT', type: 'INT', links: [1] }], widgets_values: [1, 2, 'c'] },
        { id: 2, type: 'workflow>Sampler', inputs: instanceInputs, outputs: [{ name: 'LATENT', type: 'LATENT', links: [] }], widgets_values: values },
      ],
      links: [[1, 1, 0, 2, 4, 'INT']],
      extra: { groupNodes: { Sampler: { nodes: [sampler], links: [], external: [[0, 0, 'LATENT']] } } },
      version: 0.4,
    });
    const sockets = ['model', 'positive', 'negative', 'latent_image'].map((name) => ({ name, type: 'X', link: null }));
    // Converted (an older web UI): the instance has the seed input, linked; its widgets start at steps.
    const linked = plain(toApiWorkflow(ui([...sockets, { name: 'seed', type: 'INT', link: 1 }], [30, 5.5, 'dpmpp_2m', 'karras', 0.75]), objectInfo));
    expect(linked['2:0']!.inputs).toEqual({ steps: 30, cfg: 5.5, sampler_name: 'dpmpp_2m', scheduler: 'karras', denoise: 0.75, seed: ['1', 0] });
    // A socket the web UI (1.16 on) writes for every widget: the group shows the seed widget.
    const shown = plain(toApiWorkflow(ui(sockets, [7, 'fixed', 30, 5.5, 'dpmpp_2m', 'karras', 0.75]), objectInfo));
    expect(shown['2:0']!.inputs).toEqual({ seed: 7, steps: 30, cfg: 5.5, sampler_name: 'dpmpp_2m', scheduler: 'karras', denoise: 0.75 });
  });

  // Files written by hand for these tests (test/cloud/workflow/fixtures/group-node-*.json, shaped as
  // the web UI saves): the expected prompts follow the web UI's groupNode extension, worked out by hand.
  const savedFile = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
  // group-node-renamed-widgets.json: the group "Sampler" (id 68) as web UIs before 1.16 saved it: an
  // EmptyLatentImage (index 0), a Reroute (1), a KSampler (2); its config shows width as "image width",
  // seed as "noise seed" and cfg as "guidance". The group's widgets, in order: image width, height,
  // batch_size, noise seed, its control_after_generate, steps, guidance, sampler_name, scheduler,
  // denoise; the instance saved [768, 640, 2, 42, 'fixed', 30, 5.5, 'dpmpp_2m', 'karras', 0.8], the
  // inner nodes [512, 512, 1] and [1, 'randomize', 20, 8, 'euler', 'normal', 1]. Inner ids are
  // <group node id>:<index>; the Reroute makes no node, and the KSampler's latent goes through it.
  const renamedPrompt = {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd15.safetensors' }, _meta: { title: 'Load Checkpoint' } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a lighthouse at dusk', clip: ['4', 1] }, _meta: { title: 'Positive' } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] }, _meta: { title: 'Negative' } },
    '68:0': { class_type: 'EmptyLatentImage', inputs: { width: 768, height: 640, batch_size: 2 }, _meta: { title: 'Empty Latent Image' } },
    '68:2': {
      class_type: 'KSampler',
      inputs: { seed: 42, steps: 30, cfg: 5.5, sampler_name: 'dpmpp_2m', scheduler: 'karras', denoise: 0.8, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['68:0', 0] },
      _meta: { title: 'KSampler' },
    },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['68:2', 0], vae: ['4', 2] }, _meta: { title: 'VAE Decode' } },
    '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'lighthouse', images: ['8', 0] }, _meta: { title: 'Save Image' } },
  };

  it('gives a widget the group config renames the group node’s value, not the inner node’s (a hand-written file)', () => {
    expect(plain(toApiWorkflow(savedFile('group-node-renamed-widgets'), objectInfo))).toEqual(renamedPrompt);
  });

  it('keeps a renamed seed’s control_after_generate when the catalog does not mark it, so later values stay in place (a hand-written file)', () => {
    // Catalogs of older servers do not mark KSampler's seed; the web UI adds the widget by the name.
    expect(plain(toApiWorkflow(savedFile('group-node-renamed-widgets'), olderCatalog))).toEqual(renamedPrompt);
  });

  it('uses the group node’s values when the definition carries a socket for every widget, as web UIs 1.16+ save (a hand-written file)', () => {
    // group-node-widget-sockets.json: the group "EncodeAndSample" (id 12), saved by frontend 1.17:
    // every inner widget has an unlinked socket ({ widget: { name } }); the group node's inputs are
    // the inner link inputs left unlinked (clip, model, negative), none of the sockets. Its widgets:
    // text, width, height, batch_size, seed, control_after_generate, steps, cfg, sampler_name,
    // scheduler, denoise. This is the prompt the session that saved the file ran; a web UI loading
    // the file again (GroupNodeConfig.processWidgetInputs) takes every socket for a converted widget
    // and sends the inner nodes' saved values, which is what the converter did before.
    expect(plain(toApiWorkflow(savedFile('group-node-widget-sockets'), objectInfo))).toEqual({
      '3': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sdxl.safetensors' }, _meta: { title: 'Load Checkpoint' } },
      '5': { class_type: 'CLIPTextEncode', inputs: { text: 'watermark, text', clip: ['3', 1] }, _meta: { title: 'Negative' } },
      '12:0': { class_type: 'CLIPTextEncode', inputs: { text: 'a fox in the snow, red fur', clip: ['3', 1] }, _meta: { title: 'CLIP Text Encode (Prompt)' } },
      '12:1': { class_type: 'EmptyLatentImage', inputs: { width: 1024, height: 768, batch_size: 1 }, _meta: { title: 'Empty Latent Image' } },
      '12:2': {
        class_type: 'KSampler',
        inputs: { seed: 123456789012345, steps: 25, cfg: 6.5, sampler_name: 'dpmpp_2m', scheduler: 'karras', denoise: 1, model: ['3', 0], positive: ['12:0', 0], negative: ['5', 0], latent_image: ['12:1', 0] },
        _meta: { title: 'KSampler' },
      },
      '14': { class_type: 'VAEDecode', inputs: { samples: ['12:2', 0], vae: ['3', 2] }, _meta: { title: 'VAE Decode' } },
      '15': { class_type: 'SaveImage', inputs: { filename_prefix: 'fox', images: ['14', 0] }, _meta: { title: 'Save Image' } },
    });
  });

  it('ignores links of a definition that name no node of the group or an absurd slot (no hang, no TypeError)', () => {
    const ui = fixture();
    const group = (ui.extra as { groupNodes: Record<string, { links: unknown[] }> }).groupNodes['StableCascadeInpaintCnet']!;
    group.links.push([0, 0, 99, 0, 1, 'IMAGE'], [0, 0, 3, 1e9, 1, 'IMAGE'], ['x', 0, 1, 0], [0, -1, 1, 0], null, 'junk');
    expect(plain(toApiWorkflow(ui, objectInfo))['68:3']!.inputs).toEqual({ x: 0, y: 0, resize_source: true, destination: ['50', 0], source: ['68:0', 0], mask: ['68:1', 0] });
  });

  it('still refuses a group node whose definition is missing, naming it', () => {
    const ui = fixture();
    (ui.extra as { groupNodes: Record<string, unknown> }).groupNodes = {};
    expect(() => toApiWorkflow(ui, objectInfo)).toThrow(/extra\.groupNodes/);
  });
});
