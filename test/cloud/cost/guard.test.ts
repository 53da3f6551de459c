import { afterEach, describe, expect, it } from 'vitest';
import { BudgetExceededError, CloudClient, type Workflow } from '../../../src/index.js';
import { type CloudClientOptions } from '../../../src/cloud/client.js';
import { workflow } from '../../../src/index.js';
import { startSimulator, type Simulator } from '../../../src/testing/index.js';
import { CREDITS_PER_USD, PRICED_NODES } from '../../../src/testing/cloud/priced-nodes.js';
import { png } from '../helpers.js';

let sim: Simulator | undefined;
let cloud: CloudClient | undefined;
afterEach(async () => {
  await cloud?.close();
  await sim?.close();
  cloud = sim = undefined;
});

const FAST: CloudClientOptions['watcher'] = { socket: { minDelayMs: 10, maxDelayMs: 40, idleCloseMs: 5 }, poll: { minDelayMs: 100, maxDelayMs: 200 } };

async function setup(client: Partial<CloudClientOptions> = {}): Promise<{ sim: Simulator; cloud: CloudClient }> {
  sim = await startSimulator({ stepDelayMs: 0, progressSteps: 1 });
  cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, watcher: FAST, ...client });
  return { sim, cloud };
}

/** A loaded image into four priced partner nodes (widgets, a dynamic combo, a connected input, an input group), each saved. */
function pricedWorkflow(): Workflow {
  return {
    '1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
    '2': { class_type: 'SimPricedVideo', inputs: { duration: 8, resolution: '1080P', generate_audio: true }, _meta: { title: 'Video' } },
    '3': { class_type: 'SimPricedModelVideo', inputs: { model: 'Sim-Pro', 'model.duration': 6, 'model.resolution': '1080p' } },
    '4': { class_type: 'SimPricedEdit', inputs: { prompt: 'x', image: ['1', 0] } },
    '5': { class_type: 'SimPricedMulti', inputs: { prompt: 'x', 'images.image0': ['1', 0], 'images.image1': ['1', 0] } },
    ...Object.fromEntries(['2', '3', '4', '5'].map((id) => [`s${id}`, { class_type: 'SaveImage', inputs: { images: [id, 0], filename_prefix: `p${id}` } }])),
  };
}

/** What the simulator charges each node: its own plain-code price (an oracle apart from the badge). */
const charged = (workflow: Workflow, id: string, linkedInputs: Record<string, unknown> = {}) => PRICED_NODES[workflow[id]!.class_type]!.charge({ ...workflow[id]!.inputs, ...linkedInputs });
const sent = (sim: Simulator) => sim.state.requests.filter((request) => /\/upload\/|\/api\/prompt$/.test(request.path) && request.method === 'POST');

describe('cloud.estimateCost() on the simulator', () => {
  it("prices each partner node as the simulator charges it: widgets, a dotted widget, a connected input, an input group", async () => {
    const { cloud } = await setup();
    await cloud.files.upload(png(), { filename: 'placeholder.png', overwrite: true });
    const workflow = pricedWorkflow();
    const estimate = await cloud.estimateCost(workflow, { inputs: { 'Video.duration': 10 } });
    const image = { kind: 'image' };
    const expected = { '2': charged({ ...workflow, '2': { ...workflow['2']!, inputs: { ...workflow['2']!.inputs, duration: 10 } } }, '2'), '3': charged(workflow, '3'), '4': charged(workflow, '4', { image }), '5': charged(workflow, '5', { 'images.image0': image, 'images.image1': image }) };
    expect(estimate.nodes.map((node) => [node.id, node.title])).toEqual([['2', 'Video'], ['3', 'Priced Video (dynamic combo, simulator)'], ['4', 'Priced Image Edit (connected input, simulator)'], ['5', 'Priced Image (input group, simulator)']]);
    for (const node of estimate.nodes) expect(node.usd.max).toBeCloseTo(expected[node.id as keyof typeof expected], 9);
    expect(estimate.usd.max).toBeCloseTo(Object.values(expected).reduce((a, b) => a + b, 0), 9);
    expect(estimate.credits.max).toBeCloseTo(estimate.usd.max * CREDITS_PER_USD, 2);
    expect(estimate.unpriced).toEqual([]);
  });

  it('converts a UI-format workflow first, and takes the rate from the client options', async () => {
    const { cloud } = await setup({ creditsPerUsd: 100 });
    const ui = {
      last_node_id: 2, last_link_id: 1, version: 0.4, links: [[1, 1, 0, 2, 0, 'IMAGE']],
      nodes: [
        { id: 1, type: 'SimPricedVideo', mode: 0, inputs: [], outputs: [{ name: 'IMAGE', type: 'IMAGE', links: [1] }], widgets_values: [4, '480p', false] },
        { id: 2, type: 'SaveImage', mode: 0, inputs: [{ name: 'images', type: 'IMAGE', link: 1 }], outputs: [], widgets_values: ['x'] },
      ],
    };
    const estimate = await cloud.estimateCost(ui as unknown as CloudClient.UiWorkflow);
    expect(estimate.nodes).toMatchObject([{ id: '1', classType: 'SimPricedVideo', price: { type: 'usd', usd: 0.2 } }]);
    expect(estimate.credits).toEqual({ min: 20, max: 20 });
  });

  it("writes a builder's workflow first (the lead's typed workflows), and its titles address inputs", async () => {
    const { cloud } = await setup();
    const wf = workflow();
    const video = wf.node('SimPricedVideo', { duration: 2, resolution: '1080P', generate_audio: false }, { title: 'Clip' });
    wf.node('SaveImage', { images: video.out(0), filename_prefix: 'b' });
    const estimate = await cloud.estimateCost(wf, { inputs: { 'Clip.duration': 4 } });
    expect(estimate.nodes).toMatchObject([{ classType: 'SimPricedVideo', title: 'Clip', usd: { min: 0.6, max: 0.6 } }]);
  });

  it('lists the text badge and the rate as unpriced', async () => {
    const { cloud } = await setup();
    const estimate = await cloud.estimateCost({ '1': { class_type: 'SimPricedText', inputs: { prompt: 'hi' } }, '2': { class_type: 'SimPricedRate', inputs: { seconds: 3 } } }, { validate: false });
    expect(estimate.unpriced.map((node) => node.id)).toEqual(['1', '2']);
    expect(estimate.usd).toEqual({ min: 0, max: 0 });
  });
});

describe('cloud.runWorkflow({ maxCost })', () => {
  it('refuses a run over budget before anything is uploaded or sent', async () => {
    const { sim, cloud } = await setup();
    const error = await cloud.runWorkflow(pricedWorkflow(), { maxCost: { usd: 0.5 }, uploads: { '1.image': { file: png(), filename: 'in.png' } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ code: 'over_budget', limit: { usd: 0.5 }, estimate: { nodes: [{ id: '2' }, { id: '3' }, { id: '4' }, { id: '5' }] } });
    expect((error as BudgetExceededError).message).toMatch(/may cost up to \$[\d.]+, over maxCost.usd \$0.5/);
    expect(sent(sim)).toEqual([]);
    expect(sim.state.jobs.length).toBe(0);
  });

  it('runs within budget, and the server reports the credits each priced node spent', async () => {
    const { sim, cloud } = await setup();
    await cloud.files.upload(png(), { filename: 'in.png', overwrite: true });
    const workflow = { ...pricedWorkflow(), '1': { class_type: 'LoadImage', inputs: { image: 'in.png' } } };
    const texts: Array<{ node: string; text: string }> = [];
    const result = await cloud.runWorkflow(workflow, { maxCost: { usd: 10 }, onEvent: (event) => void (event.type === 'text' && texts.push({ node: event.data.nodeId ?? '', text: event.data.data })) });
    expect(result.status).toBe('completed');
    expect(sent(sim).filter((request) => request.path.endsWith('/prompt'))).toHaveLength(1);
    // The last `Price:` line of each node, as the server repeats it while the node runs.
    const last = new Map(texts.flatMap(({ node, text }) => [...text.matchAll(/^Price: ([\d,.]+) credits$/gm)].map((m) => [node, Number(m[1]!.replace(/,/g, ''))] as const)));
    const image = { kind: 'image' };
    expect(last.get('2')).toBeCloseTo(charged(workflow, '2') * CREDITS_PER_USD, 2);
    expect(last.get('5')).toBeCloseTo(charged(workflow, '5', { 'images.image0': image, 'images.image1': image }) * CREDITS_PER_USD, 2);
    expect(texts.some(({ text }) => /^Status: /m.test(text))).toBe(true);
  });

  it('refuses an unpriced partner node unless allowUnpriced', async () => {
    const { sim, cloud } = await setup();
    const workflow: Workflow = { '1': { class_type: 'SimPricedText', inputs: { prompt: 'hi' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 't' } } };
    await expect(cloud.runWorkflow(workflow, { maxCost: { usd: 5 } })).rejects.toMatchObject({ name: 'BudgetExceededError', code: 'unpriced', estimate: { unpriced: [{ id: '1', classType: 'SimPricedText' }] } });
    expect(sent(sim)).toEqual([]);
    await expect(cloud.runWorkflow(workflow, { maxCost: { usd: 5 }, allowUnpriced: true })).resolves.toMatchObject({ status: 'completed' });
  });

  it('changes nothing without maxCost: no estimate, no definitions fetched with validate off', async () => {
    const { sim, cloud } = await setup();
    const result = await cloud.runWorkflow({ '1': { class_type: 'SimPricedFixed', inputs: { prompt: 'hi' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'f' } } }, { validate: false });
    expect(result.status).toBe('completed');
    expect(sim.state.requests.filter((request) => request.path.endsWith('/object_info'))).toEqual([]);
  });

  it('checks maxCost like every option', async () => {
    const { cloud } = await setup();
    const workflow: Workflow = { '1': { class_type: 'SimPricedFixed', inputs: { prompt: 'hi' } } };
    await expect(cloud.runWorkflow(workflow, { maxCost: {} as never })).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining('options.maxCost.usd') });
    await expect(cloud.runWorkflow(workflow, { maxCost: { usd: -1 } })).rejects.toMatchObject({ name: 'ValidationError' });
    await expect(cloud.estimateCost(workflow, { maxCost: { usd: 1 } } as never)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining('options.maxCost') });
  });
});

describe('cloud.jobs.submit({ maxCost })', () => {
  it('refuses a submission over budget before it is sent, and sends one within it', async () => {
    const { sim, cloud } = await setup();
    const workflow: Workflow = { '1': { class_type: 'SimPricedFixed', inputs: { prompt: 'hi' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'f' } } };
    await expect(cloud.jobs.submit(workflow, { maxCost: { usd: 0.01 } })).rejects.toBeInstanceOf(BudgetExceededError);
    expect(sent(sim)).toEqual([]);
    await expect(cloud.jobs.submit(workflow, { maxCost: { usd: 0.04 } })).resolves.toMatchObject({ promptId: expect.any(String) });
    expect(sent(sim)).toHaveLength(1);
  });
});

describe('new CloudClient({ creditsPerUsd })', () => {
  it('refuses a rate that is not a positive finite number', () => {
    for (const creditsPerUsd of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '211']) {
      expect(() => new CloudClient({ baseUrl: 'http://127.0.0.1:2', creditsPerUsd: creditsPerUsd as number })).toThrow(/options.creditsPerUsd.*credits per US dollar, above 0/s);
    }
  });
});
