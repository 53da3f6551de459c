// result.cost on the simulator's priced partner nodes (src/testing/cloud/priced-nodes.ts): what the
// server's `Price:` texts said, per node, in credits and in dollars at the client's rate; nothing
// when no price came, and nothing rather than a guess when two runs run the same node at once.
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { CloudClient, type JobResult, type RunCost, type Workflow } from '../../src/index.js';
import type { QueueStatus, RunInfo } from '../../src/queue/index.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';

let sim: Simulator | undefined;
let cloud: CloudClient | undefined;
afterEach(async () => {
  await cloud?.close();
  await sim?.close();
  sim = cloud = undefined;
});

async function connect(options: { creditsPerUsd?: number; accountConcurrency?: number; stepDelayMs?: number } = {}): Promise<CloudClient> {
  sim = await startSimulator({ stepDelayMs: options.stepDelayMs ?? 2, accountConcurrency: options.accountConcurrency });
  cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, runtime: 'cloud', ...(options.creditsPerUsd ? { creditsPerUsd: options.creditsPerUsd } : {}) });
  return cloud;
}

/** Two priced nodes ($0.20 and $0.10 a second at 720p), each saved; `tag` makes the run new. */
function priced(tag: string, duration = 5): Workflow {
  return {
    '4': { class_type: 'SimPricedRange', inputs: { prompt: tag } },
    '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: tag } },
    '7': { class_type: 'SimPricedVideo', inputs: { duration, resolution: '720p', generate_audio: false } },
    '8': { class_type: 'SaveImage', inputs: { images: ['7', 0], filename_prefix: `${tag}v` } },
  };
}

describe('result.cost', () => {
  it('runWorkflow: each node\'s last price, their sum, and dollars at the client\'s rate', async () => {
    const client = await connect({ creditsPerUsd: 100 });
    const result = await client.runWorkflow(priced('a'));
    // The simulated server charges at 211 credits a dollar: 42.2 and 105.5 credits.
    expect(result.cost).toEqual({ credits: 147.7, usd: expect.closeTo(1.477, 9), byNode: { '4': 42.2, '7': 105.5 } });
    expect(Object.getPrototypeOf(result.cost?.byNode)).toBeNull();
  });

  it('leaves cached partner nodes out, and is undefined when no priced node ran', async () => {
    const client = await connect();
    const free = await client.runWorkflow({ '1': { class_type: 'ImageScaleBy', inputs: { image: ['2', 0], upscale_method: 'bilinear', scale_by: 1 } }, '2': { class_type: 'SimPricedFixed', inputs: { prompt: 'x' } }, '3': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'f' } } });
    expect(free.cost).toEqual({ credits: 8.44, usd: 0.04, byNode: { '2': 8.44 } });
    // The same inputs again: served from the cache, nothing runs, nothing is charged.
    const again = await client.runWorkflow({ '1': { class_type: 'ImageScaleBy', inputs: { image: ['2', 0], upscale_method: 'bilinear', scale_by: 2 } }, '2': { class_type: 'SimPricedFixed', inputs: { prompt: 'x' } }, '3': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'f' } } });
    expect(again.cost).toBeUndefined();
  });

  it('two runs of one workflow whose priced node runs at the same moment: no guess, counted as unattributed', async () => {
    const client = await connect({ accountConcurrency: 2, stepDelayMs: 20 });
    const [a, b] = await Promise.all([client.runWorkflow(priced('twin-a', 3)), client.runWorkflow(priced('twin-b', 4))]);
    // Node 4 of both runs runs at once: its prices are nobody's. Whatever is charged to a run is its own.
    for (const [result, video] of [[a, 63.3], [b, 84.4]] as const) {
      for (const [node, credits] of Object.entries(result.cost?.byNode ?? {})) expect(credits).toBe(node === '4' ? 42.2 : video);
    }
    const missed = [a, b].filter((result) => result.cost?.byNode['4'] === undefined).length;
    if (missed > 0) expect(client.jobs.stats().unattributedPrices).toBeGreaterThan(0);
  });
});

describe('the spent types', () => {
  it('types cost on results and run infos, and the budget on the queue status', () => {
    expectTypeOf<JobResult['cost']>().toEqualTypeOf<RunCost | undefined>();
    expectTypeOf<Awaited<ReturnType<CloudClient['runWorkflow']>>['cost']>().toEqualTypeOf<RunCost | undefined>();
    expectTypeOf<RunInfo['cost']>().toEqualTypeOf<RunCost | undefined>();
    expectTypeOf<RunCost>().toEqualTypeOf<{ credits: number; usd: number; byNode: Record<string, number> }>();
    expectTypeOf<NonNullable<QueueStatus['budget']>>().toEqualTypeOf<{ limit: number; spent: number; reserved: number; windowSeconds: number | undefined }>();
  });
});
