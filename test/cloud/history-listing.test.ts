import { afterEach, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/cloud/index.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { png, scaleWorkflow, until } from './helpers.js';

// A local runtime without GET /api/jobs (ComfyUI 0.3.77 answers it 404): the list comes from its
// queue and GET /history, in the same shape, with paging and filters applied by the client
// (docs/cloud.md, "Listing").
let sim: Simulator | undefined;
let cloud: CloudClient | undefined;
afterEach(async () => {
  await cloud?.close();
  await sim?.close();
  cloud = undefined;
  sim = undefined;
});

async function setup(stepDelayMs = 0): Promise<{ sim: Simulator; cloud: CloudClient }> {
  sim = await startSimulator({ runtime: 'local', jobsRoutes: false, stepDelayMs, progressSteps: 1 });
  cloud = new CloudClient({ baseUrl: sim.cloudUrl, watcher: { socket: { idleCloseMs: 5 } } });
  await cloud.files.upload(png(), { filename: 'cat.png' });
  return { sim, cloud };
}

const FAILING = { '1': { class_type: 'FailNode', inputs: { message: 'boom' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } };

describe('cloud.jobs.list() on a local runtime without /api/jobs', () => {
  it('lists from /history, newest first, page by page, in the same shape', async () => {
    const { sim, cloud } = await setup();
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
    const { sim, cloud } = await setup();
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
    const { sim, cloud } = await setup(80);
    const running = (await cloud.jobs.submit(scaleWorkflow('cat.png', 20))).promptId;
    const pending = (await cloud.jobs.submit(scaleWorkflow('cat.png', 21))).promptId;
    await until(() => sim.state.jobs()[0]?.status === 'in_progress');
    const page = await cloud.jobs.list({ status: ['pending', 'in_progress'] });
    expect(page.jobs.map((job) => [job.promptId, job.status])).toEqual([[pending, 'pending'], [running, 'in_progress']]);
    await cloud.jobs.interruptAll();
    await cloud.jobs.cancel(pending);
  });
});
