import { afterEach, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/index.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/testing/index.js';
import { png, scaleWorkflow, until } from './helpers.js';

// cloud.jobs.list(), listAll(), get() and getQueue() against the simulator, on both runtimes
// (the exact wire of each: listing-wire.test.ts).
let sim: Simulator | undefined;
let cloud: CloudClient | undefined;
afterEach(async () => {
  await cloud?.close();
  await sim?.close();
  cloud = undefined;
  sim = undefined;
});

async function setup(options: SimulatorOptions = {}): Promise<{ sim: Simulator; cloud: CloudClient }> {
  sim = await startSimulator({ stepDelayMs: 0, progressSteps: 1, ...options });
  cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, watcher: { socket: { idleCloseMs: 5 } } });
  await cloud.files.upload(png(), { filename: 'cat.png' });
  return { sim, cloud };
}

async function finished(c: CloudClient, s: Simulator, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await c.jobs.submit(scaleWorkflow('cat.png', 20 + i))).promptId);
  await s.state.waitForIdle();
  return ids;
}

describe.each(['cloud', 'local'] as const)('listing jobs on a %s runtime', (runtime) => {
  it('iterates every job lazily, page by page, newest first, with times in milliseconds', async () => {
    const { sim, cloud } = await setup({ runtime });
    const ids = await finished(cloud, sim, 5);
    const before = Date.now() - 60_000;
    sim.state.clearRequests();
    const seen = [];
    for await (const job of cloud.jobs.listAll({ limit: 2 })) seen.push(job);
    expect(seen.map((j) => j.promptId)).toEqual([...ids].reverse());
    expect(sim.state.requests.filter((r) => r.path.endsWith('/jobs')).map((r) => r.query)).toEqual(['?offset=0&limit=2', '?offset=2&limit=2', '?offset=4&limit=2']);
    expect(seen[0]).toMatchObject({ status: 'completed', outputsCount: 1, preview: { filename: expect.stringMatching(/\.png$/), type: 'output' } });
    expect(seen[0]?.createdAt).toBeGreaterThan(before);
    expect(seen[0]?.createdAt).toBeLessThanOrEqual(Date.now());
    expect(seen[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('stops fetching when the loop breaks', async () => {
    const { sim, cloud } = await setup({ runtime });
    await finished(cloud, sim, 3);
    sim.state.clearRequests();
    for await (const job of cloud.jobs.listAll({ limit: 1, sortOrder: 'asc' })) if (job) break;
    expect(sim.state.requests.filter((r) => r.path.endsWith('/jobs'))).toHaveLength(1);
  });

  it('filters by status, sorts by the runtime’s own names, and reads one job with its outputs and workflow', async () => {
    const { sim, cloud } = await setup({ runtime });
    const [id] = await finished(cloud, sim, 2);
    const failed = (await cloud.jobs.submit({ '1': { class_type: 'FailNode', inputs: { message: 'boom' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } }, { validate: false })).promptId;
    await sim.state.waitForIdle();
    const page = await cloud.jobs.list({ status: ['failed'], sortBy: 'executionTime' });
    expect(page).toMatchObject({ total: 1, hasMore: false, jobs: [{ promptId: failed, status: 'failed', error: { message: expect.stringContaining('boom'), nodeType: 'FailNode' } }] });
    const job = await cloud.jobs.get(id!);
    expect(job).toMatchObject({ promptId: id, status: 'completed', outputs: { '3': { images: [{ type: 'output' }] } }, workflow: { '2': { class_type: 'ImageScale' } } });
    expect(await cloud.jobs.get('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });

  it('reads back the extra_data a job was submitted with, without the partner key', async () => {
    const { sim, cloud } = await setup({ runtime });
    const { promptId } = await cloud.jobs.submit(scaleWorkflow('cat.png'), { extraData: { tag: 'nightly' }, partnerApiKey: sim.apiKey });
    await sim.state.waitForIdle();
    const job = await cloud.jobs.get(promptId);
    expect(job?.extraData).toMatchObject({ tag: 'nightly' });
    expect(job?.extraData).not.toHaveProperty('api_key_platform_org');
  });

  it('shows the queue with the position of each pending job', async () => {
    const { sim, cloud } = await setup({ runtime, stepDelayMs: 60 });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await cloud.jobs.submit(scaleWorkflow('cat.png', 30 + i))).promptId);
    await until(() => sim.state.jobs()[0]?.status === 'in_progress');
    const queue = await cloud.jobs.getQueue();
    expect(queue.running).toEqual([expect.objectContaining({ promptId: ids[0], status: 'in_progress', position: 0, outputNodes: ['3'] })]);
    expect(queue.pending.map((item) => [item.promptId, item.position])).toEqual([[ids[1], 1], [ids[2], 2]]);
    expect(queue.pending[0]?.workflow?.['2']?.inputs.width).toBe(31);
    await cloud.jobs.interruptAll();
  });
});

const FAILING = { '1': { class_type: 'FailNode', inputs: { message: 'boom' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } };

// A local runtime without GET /api/jobs (ComfyUI 0.3.77 answers it 404): the list comes from its
// queue and GET /history, in the same shape, with paging and filters applied by the client
// (docs/cloud.md, "Listing").
describe('cloud.jobs.list() on a local runtime without /api/jobs', () => {
  it('lists from /history, newest first, page by page, in the same shape', async () => {
    const { sim, cloud } = await setup({ runtime: 'local', jobsRoutes: false });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await cloud.jobs.submit(scaleWorkflow('cat.png', 20 + i))).promptId);
      await sim.state.waitForIdle();
    }
    const failed = (await cloud.jobs.submit(FAILING, { validate: false })).promptId;
    await sim.state.waitForIdle();
    sim.state.clearRequests();
    const page = await cloud.jobs.list({ limit: 2 });
    // Newest first, only the newest entries are asked for: the total is not known then.
    expect(page).toMatchObject({ offset: 0, limit: 2, total: undefined, hasMore: true });
    expect(sim.state.requests.filter((r) => r.path === '/history').map((r) => r.query)).toEqual(['?max_items=2']);
    expect(page.jobs.map((job) => job.promptId)).toEqual([failed, ids[3]]);
    expect(page.jobs[0]).toMatchObject({ status: 'failed', error: { message: expect.stringContaining('boom'), nodeType: 'FailNode' } });
    expect(page.jobs[1]).toMatchObject({ status: 'completed', raw: 'success', outputsCount: 1, preview: { filename: expect.stringMatching(/\.png$/), type: 'output' } });
    expect(page.jobs[1]?.durationMs).toBeGreaterThanOrEqual(0);
    expect(page.jobs[1]?.number).toBeTypeOf('number');
    const all = [];
    for await (const job of cloud.jobs.listAll({ limit: 2 })) all.push(job.promptId);
    expect(all).toEqual([failed, ...[...ids].reverse()]);
    // The missing route is asked once per client.
    expect(sim.state.requests.filter((r) => r.path === '/api/jobs')).toHaveLength(1);
  });

  it('filters by status and sorts on the client, and lists queued jobs from the queue', async () => {
    const { sim, cloud } = await setup({ runtime: 'local', jobsRoutes: false });
    const done = (await cloud.jobs.submit(scaleWorkflow('cat.png', 20))).promptId;
    await sim.state.waitForIdle();
    const failed = (await cloud.jobs.submit(FAILING, { validate: false })).promptId;
    await sim.state.waitForIdle();
    expect((await cloud.jobs.list({ status: 'failed' })).jobs.map((job) => job.promptId)).toEqual([failed]);
    expect((await cloud.jobs.list({ sortOrder: 'asc' })).jobs.map((job) => job.promptId)).toEqual([done, failed]);
    expect(await cloud.jobs.list({ status: ['completed'], offset: 1 })).toMatchObject({ jobs: [], total: 1, hasMore: false });
    expect(await cloud.jobs.list({ status: ['completed', 'failed'], limit: 1 })).toMatchObject({ jobs: [{ promptId: failed }], total: 2, hasMore: true });
  });

  it('lists running and pending jobs from the queue', async () => {
    const { sim, cloud } = await setup({ runtime: 'local', jobsRoutes: false, stepDelayMs: 80 });
    const running = (await cloud.jobs.submit(scaleWorkflow('cat.png', 20))).promptId;
    const pending = (await cloud.jobs.submit(scaleWorkflow('cat.png', 21))).promptId;
    await until(() => sim.state.jobs()[0]?.status === 'in_progress');
    const page = await cloud.jobs.list({ status: ['pending', 'in_progress'] });
    expect(page.jobs.map((job) => [job.promptId, job.status])).toEqual([[pending, 'pending'], [running, 'in_progress']]);
    await cloud.jobs.interruptAll();
    await cloud.jobs.cancel(pending);
  });
});
