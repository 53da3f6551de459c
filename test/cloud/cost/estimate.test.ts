import { describe, expect, it } from 'vitest';
import { estimateWorkflowCost } from '../../../src/cloud/cost/estimate.js';
import { buildContext, normalizeValue, readDependencies } from '../../../src/cloud/cost/context.js';
import type { Workflow } from '../../../src/index.js';
import { partnerCatalog } from './catalog.js';

const catalog = partnerCatalog();
const one = (classType: string, inputs: Record<string, unknown> = {}): Workflow => ({ '1': { class_type: classType, inputs } });
const link = ['99', 0];

describe('estimateWorkflowCost() over the 0.33.0 catalog', () => {
  it('prices every badge at its default widget values, or names why not; none fails', async () => {
    const workflow: Workflow = {};
    for (const classType of Object.keys(catalog)) workflow[classType] = { class_type: classType, inputs: {} };
    const estimate = await estimateWorkflowCost(workflow, catalog);
    const seen = [...estimate.nodes, ...estimate.unpriced].map((node) => node.id).sort();
    expect(seen).toEqual(Object.keys(catalog).sort());
    for (const node of estimate.unpriced) expect(node.reason).toMatch(/^(the node type has no price badge|the badge gives a rate|the badge shows text)/);
    expect(estimate.unpriced.filter((node) => node.reason.startsWith('the node type has no price badge')).map((node) => node.id).sort()).toEqual(
      Object.keys(catalog).filter((name) => !catalog[name]!.price_badge).sort(),
    );
    for (const node of estimate.nodes) {
      expect(node.usd.min).toBeGreaterThanOrEqual(0);
      expect(node.usd.max).toBeGreaterThanOrEqual(node.usd.min);
    }
    expect(estimate.usd.max).toBeGreaterThan(0);
    expect(estimate.credits.max).toBeCloseTo(estimate.usd.max * 211, 2);
  });

  it('reads a dotted widget from the dynamic combo option the node chose, and counts an input group', async () => {
    // GrokVideoReferenceNode: ($rate * $dur + $imgCost * $refs) * 1.43, grok-imagine-video-1.5 at 720p: rate 0.14, image 0.01.
    const inputs = { model: 'grok-imagine-video-1.5', 'model.resolution': '720p', 'model.duration': 10, 'model.reference_images.reference_1': link, 'model.reference_images.reference_2': link, 'model.reference_images.reference_3': 'not a link' };
    const estimate = await estimateWorkflowCost(one('GrokVideoReferenceNode', inputs), catalog);
    expect(estimate.nodes[0]!.usd.max).toBeCloseTo((0.14 * 10 + 0.01 * 2) * 1.43, 9);
    // Left out, the values are the widgets' defaults: the first option, its duration (6) and resolution (480p: 0.08).
    const defaults = await estimateWorkflowCost(one('GrokVideoReferenceNode'), catalog);
    expect(defaults.nodes[0]!.usd.max).toBeCloseTo(0.08 * 6 * 1.43, 9);
  });

  it('gives the badges of the catalog the values the frontend gives: lower-cased options, booleans of dotted widgets, connected inputs', async () => {
    // Flux2ProImageNode: 2 MP out, 0.03 + 0.015 per extra MP; a connected `images` makes it a range (+0.015 to +0.12).
    const flux = await estimateWorkflowCost(one('Flux2ProImageNode', { width: 2048, height: 1024, images: link }), catalog);
    expect(flux.nodes[0]!.usd.min).toBeCloseTo(0.06, 9);
    expect(flux.nodes[0]!.usd.max).toBeCloseTo(0.165, 9);
    expect(flux.nodes[0]!.price).toMatchObject({ type: 'range_usd', format: { approximate: true } });
    // TencentImageToModelNode: ("Normal" read as "normal": 25 + a side view 10 + pbr 10 + a face count other than 500000 10) x 0.02.
    const tencent = await estimateWorkflowCost(one('TencentImageToModelNode', { generate_type: ' Normal ', 'generate_type.pbr': 'TRUE', face_count: 300000, image_left: link }), catalog);
    expect(tencent.nodes[0]!.usd.max).toBeCloseTo(1.1, 9);
    // IdeogramV3: a character image connected at "Quality" speed, 2 images: round(0.286 x 2, 2).
    const ideogram = await estimateWorkflowCost(one('IdeogramV3', { rendering_speed: 'QUALITY', num_images: 2, character_image: link }), catalog);
    expect(ideogram.nodes[0]!.usd.max).toBe(0.57);
  });

  it('lists a node whose priced widget is fed by a link as unpriced', async () => {
    const estimate = await estimateWorkflowCost(one('GrokVideoReferenceNode', { 'model.duration': link }), catalog);
    expect(estimate.unpriced).toEqual([{ id: '1', classType: 'GrokVideoReferenceNode', reason: expect.stringContaining('widget "model.duration" is fed by a link') }]);
  });

  it('counts a list_usd as the range of its values, and a range by its bounds', async () => {
    const info = {
      L: { api_node: true, input: {}, price_badge: { engine: 'jsonata', expr: '{"type":"list_usd","usd":[0.3, "0.1", null, 0.2]}' } },
      R: { api_node: true, input: {}, price_badge: { engine: 'jsonata', expr: '{"type":"range_usd","min_usd":0.5,"max_usd":0.25}' } },
      O: { api_node: true, input: {}, price_badge: { expr: '{"usd":0.1}' } },
    };
    const estimate = await estimateWorkflowCost({ a: { class_type: 'L', inputs: {} }, b: { class_type: 'R', inputs: {} }, c: { class_type: 'O', inputs: {} } }, info);
    expect(estimate.nodes.map((node) => node.usd)).toEqual([{ min: 0.1, max: 0.3 }, { min: 0.25, max: 0.5 }, { min: 0.1, max: 0.1 }]);
    expect(estimate.usd).toEqual({ min: 0.45, max: 0.9 });
    expect(estimate.credits).toEqual({ min: 94.95, max: 189.9 });
  });

  it('treats a rate and text as unpriced, and a "/Run" suffix as the price of a run', async () => {
    const badge = (expr: string) => ({ api_node: true, input: {}, price_badge: { engine: 'jsonata', expr } });
    const info = { S: badge('{"type":"usd","usd":0.1,"format":{"suffix":"/second"}}'), T: badge('{"type":"text","text":"Token-based"}'), R: badge('{"type":"usd","usd":0.1,"format":{"suffix":" /Run ","approximate":true}}') };
    const estimate = await estimateWorkflowCost({ s: { class_type: 'S', inputs: {} }, t: { class_type: 'T', inputs: {} }, r: { class_type: 'R', inputs: {} } }, info);
    expect(estimate.nodes.map((node) => node.id)).toEqual(['r']);
    expect(estimate.unpriced).toEqual([
      { id: 's', classType: 'S', reason: 'the badge gives a rate ("/second"), not the price of a run' },
      { id: 't', classType: 'T', reason: 'the badge shows text ("Token-based"), not a price' },
    ]);
  });

  it('leaves out nodes that are not partner nodes, and names the title', async () => {
    const info = { ...catalog, KSampler: { input: {} } };
    const estimate = await estimateWorkflowCost({ k: { class_type: 'KSampler', inputs: {} }, x: { class_type: 'Unknown', inputs: {} }, f: { class_type: 'FluxProUltraImageNode', inputs: {}, _meta: { title: 'Hero shot' } } }, info);
    expect(estimate.nodes).toMatchObject([{ id: 'f', classType: 'FluxProUltraImageNode', title: 'Hero shot' }]);
    expect(estimate.unpriced).toEqual([]);
  });
});

// Vectors from the official frontend's normalization (useNodePricing: normalizeWidgetValue and
// buildJsonataContext), docs/cost.md#what-a-badge-reads.
describe('the context a badge reads', () => {
  it.each([
    ['INT', 5, 5],
    ['INT', ' 7 ', 7],
    ['FLOAT', '2.5', 2.5],
    ['INT', '', null],
    ['INT', 'abc', null],
    ['INT', true, null],
    ['FLOAT', Infinity, null],
    ['BOOLEAN', true, true],
    ['BOOLEAN', ' TRUE ', true],
    ['BOOLEAN', 'False', false],
    ['BOOLEAN', 1, null],
    ['BOOLEAN', 'yes', null],
    ['COMBO', '  Pro-Mode ', 'pro-mode'],
    ['COMBO', 10, 10],
    ['COMBO', false, false],
    ['STRING', ' Hello ', 'hello'],
    ['STRING', 10, '10'],
    ['COMFY_DYNAMICCOMBO_V3', 'Grok-Imagine-Video', 'grok-imagine-video'],
    ['combo', 'A', 'a'],
    ['INT', null, null],
    ['STRING', undefined, null],
  ])('normalizes a %s value %j to %j', (type, raw, expected) => {
    expect(normalizeValue(raw, type)).toBe(expected);
  });

  it('gives inputs as {connected}, input groups as counts of connected "<group>." inputs, in prototype-free maps', () => {
    const deps = readDependencies({ widgets: [{ name: '__proto__', type: 'INT' }], inputs: ['image', 'mask'], input_groups: ['images', 'model.images'] });
    if (typeof deps === 'string') throw new Error(deps);
    const definition = { input: { required: { ['__proto__']: ['INT', { default: 3 }] } } };
    const context = buildContext({ image: link, mask: 'a.png', 'images.image0': link, 'images.image1': link, 'images.image2': 'x', imagesx: link, 'model.images.a': link }, JSON.parse(JSON.stringify(definition).replace('"required":{', '"required":{')), deps);
    if (typeof context === 'string') throw new Error(context);
    expect({ ...context.inputs }).toEqual({ image: { connected: true }, mask: { connected: false } });
    expect({ ...context.inputGroups }).toEqual({ images: 2, 'model.images': 1 });
    expect(Object.getPrototypeOf(context.widgets)).toBeNull();
  });

  it('refuses a badge that reads a widget the node type lacks in every form', () => {
    const deps = readDependencies({ widgets: [{ name: 'model.nothing', type: 'INT' }] });
    if (typeof deps === 'string') throw new Error(deps);
    expect(buildContext({}, catalog.GrokVideoReferenceNode, deps)).toBe('the badge reads widget "model.nothing", which the node type does not have');
    // An input of another option of the combo: the frontend has no such widget, so null.
    const voice = readDependencies({ widgets: [{ name: 'model.voice_1', type: 'COMBO' }] });
    if (typeof voice === 'string') throw new Error(voice);
    const context = buildContext({ model: 'grok-imagine-video' }, catalog.GrokVideoReferenceNode, voice);
    expect(typeof context === 'string' ? context : context.widgets['model.voice_1']).toBeNull();
  });
});
