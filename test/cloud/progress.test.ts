import { afterEach, describe, expect, it } from 'vitest';
import { CloudClient, type WatchEvent } from '../../src/index.js';
import { type CloudClientOptions } from '../../src/cloud/client.js';
import { type JobProgress } from '../../src/cloud/watch/events.js';
import { ValidationError } from '../../src/core/index.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { png, scaleWorkflow } from './helpers.js';

// The job's overall progress, on runs of the simulator on 127.0.0.1.
let sim: Simulator | undefined;
let cloud: CloudClient | undefined;
afterEach(async () => {
  await cloud?.close();
  await sim?.close();
  cloud = undefined;
  sim = undefined;
});

const FAST: CloudClientOptions['watcher'] = {
  socket: { minDelayMs: 10, maxDelayMs: 40, idleCloseMs: 5, connectionTimeoutMs: 2_000 },
  poll: { minDelayMs: 100, maxDelayMs: 200, silenceMs: 5_000 },
};

async function setup(): Promise<{ sim: Simulator; cloud: CloudClient }> {
  sim = await startSimulator({ stepDelayMs: 0, progressSteps: 2 });
  cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, watcher: FAST });
  return { sim, cloud };
}

const jobProgress = (events: WatchEvent[]): JobProgress[] => events.flatMap((e) => (e.type === 'job_progress' ? [e.data] : []));
const rounded = (values: (number | undefined)[]): (number | undefined)[] => values.map((v) => (v === undefined ? v : Math.round(v * 1000) / 1000));

describe('job_progress and onProgress', () => {
  it('count the nodes done and the running node share, from 0 to 1 (3 nodes, 2 steps each)', async () => {
    const { cloud } = await setup();
    const events: WatchEvent[] = [];
    const seen: [string, string | undefined, number, number | undefined][] = [];
    const result = await cloud.runWorkflow(scaleWorkflow('x'), {
      uploads: { '1.image': png() },
      onEvent: (e) => events.push(e),
      onProgress: (p, job) => seen.push([`${p.value}/${p.max}`, job.node, job.nodeFraction, job.fraction]),
    });
    const progress = jobProgress(events);
    // Node 1 starts, runs its 2 steps, node 2 starts (node 1 done)... node 3's executed ends it.
    expect(rounded(progress.map((p) => p.fraction))).toEqual(rounded([0, 1 / 6, 2 / 6, 1 / 3, 1 / 2, 2 / 3, 2 / 3, 5 / 6, 1, 1]));
    expect(progress.map((p) => p.done)).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2, 3]);
    expect(progress.at(-1)).toEqual({ promptId: result.promptId, done: 3, cached: 0, total: 3, node: undefined, nodeFraction: 0, fraction: 1 });
    expect(progress.every((p) => Object.isFrozen(p))).toBe(true);
    // A job_progress follows the message that changed it.
    expect(events.findIndex((e) => e.type === 'job_progress')).toBe(events.findIndex((e) => e.type === 'executing') + 1);
    expect(seen).toEqual([
      ['1/2', '1', 0.5, 0.5 / 3],
      ['2/2', '1', 1, 1 / 3],
      ['1/2', '2', 0.5, 1.5 / 3],
      ['2/2', '2', 1, 2 / 3],
      ['1/2', '3', 0.5, 2.5 / 3],
      ['2/2', '3', 1, 1],
    ]);
  });

  it('count cached nodes: a fully cached re-run is done on execution_cached', async () => {
    const { cloud } = await setup();
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    await cloud.runWorkflow(scaleWorkflow(name));
    const events: WatchEvent[] = [];
    let calls = 0;
    const again = await cloud.runWorkflow(scaleWorkflow(name), { onEvent: (e) => events.push(e), onProgress: () => calls++ });
    expect(calls).toBe(0);
    expect(jobProgress(events)).toEqual([{ promptId: again.promptId, done: 3, cached: 3, total: 3, node: undefined, nodeFraction: 0, fraction: 1 }]);
    const partly: WatchEvent[] = [];
    await cloud.runWorkflow(scaleWorkflow(name, 48), { onEvent: (e) => partly.push(e) });
    expect(jobProgress(partly)[0]).toMatchObject({ done: 1, cached: 1, total: 3, fraction: 1 / 3 });
    expect(jobProgress(partly).at(-1)).toMatchObject({ done: 3, cached: 1, fraction: 1 });
  });

  it('reach 1 when the completion was learned by polling', async () => {
    const { sim, cloud } = await setup();
    sim.faults.set({ dropSocketsMidRun: true });
    const events: WatchEvent[] = [];
    const result = await cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() }, onEvent: (e) => events.push(e) });
    expect(result.via).toBe('poll');
    expect(jobProgress(events).at(-1)).toMatchObject({ done: 3, total: 3, fraction: 1 });
  });
});

describe('cloud.jobs.watch() progress', () => {
  it('counts the nodes of the workflow option; without it the total is unknown until the end', async () => {
    const { cloud } = await setup();
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    const workflow = scaleWorkflow(name);
    for (const known of [true, false]) {
      const submitted = await cloud.jobs.submit(scaleWorkflow(name, known ? 24 : 40));
      const watcher = cloud.jobs.watch(submitted.promptId, known ? { workflow } : {});
      const progress: JobProgress[] = [];
      watcher.on('job_progress', (p) => progress.push(p));
      await watcher.result();
      expect(watcher.progress).toMatchObject({ promptId: submitted.promptId, total: known ? 3 : undefined, fraction: 1 });
      if (progress.length > 1) expect(progress.slice(0, -1).every((p) => (known ? p.fraction !== undefined : p.fraction === undefined))).toBe(true);
    }
  });

  it('gives job_progress to the watcher that listens to it, and the progress as of each message to one that only reads it', async () => {
    // Steps 20 ms apart: the watchers are attached before the first message.
    sim = await startSimulator({ stepDelayMs: 20, progressSteps: 2 });
    cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, watcher: FAST });
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    const workflow = scaleWorkflow(name, 56);
    const submitted = await cloud.jobs.submit(workflow);
    // Two watchers of one job: `reader` never listens to job_progress, `listener` does.
    const reader = cloud.jobs.watch(submitted.promptId, { workflow });
    const listener = cloud.jobs.watch(submitted.promptId, { workflow });
    const read: (number | undefined)[] = [];
    const heard: JobProgress[] = [];
    reader.on('progress', () => read.push(reader.progress.fraction));
    listener.on('job_progress', (p) => heard.push(p));
    await Promise.all([reader.result(), listener.result()]);
    // 3 nodes of 2 steps: each progress message moves the running node's share.
    expect(rounded(read)).toEqual(rounded([0.5 / 3, 1 / 3, 1.5 / 3, 2 / 3, 2.5 / 3, 1]));
    expect(rounded(heard.map((p) => p.fraction))).toEqual(expect.arrayContaining(rounded(read)));
    expect(heard.at(-1)).toMatchObject({ done: 3, total: 3, fraction: 1 });
    expect(heard.every((p) => Object.isFrozen(p))).toBe(true);
    expect(reader.progress).toBe(listener.progress);
  });

  it('tells a job_progress listener added during the job of the changes from then on, as if it had been there', async () => {
    // Nobody takes job_progress before the first progress message: the figures are then not
    // worked out per message, and the listener added in it must still hear that message's change.
    sim = await startSimulator({ stepDelayMs: 20, progressSteps: 2 });
    cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, watcher: FAST });
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    const workflow = scaleWorkflow(name);
    const submitted = await cloud.jobs.submit(workflow);
    const watcher = cloud.jobs.watch(submitted.promptId, { workflow });
    const heard: JobProgress[] = [];
    watcher.once('progress', () => watcher.on('job_progress', (p) => heard.push(p)));
    await watcher.result();
    expect(rounded(heard.map((p) => p.fraction))).toEqual(rounded([1 / 6, 2 / 6, 1 / 3, 1 / 2, 2 / 3, 2 / 3, 5 / 6, 1, 1]));
    expect(heard.map((p) => p.done)).toEqual([0, 0, 1, 1, 1, 2, 2, 2, 3]);
  });

  it('refuses a workflow option that is not a workflow', () => {
    const cloud = new CloudClient({ baseUrl: 'http://127.0.0.1:2', apiKey: 'k' });
    expect(() => cloud.jobs.watch('00000000-0000-4000-8000-000000000000', { workflow: 5 as never })).toThrow(ValidationError);
    expect(() => cloud.jobs.watch('00000000-0000-4000-8000-000000000000', { workflow: 5 as never })).toThrow(/workflow/);
  });
});
