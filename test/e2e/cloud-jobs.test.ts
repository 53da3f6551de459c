// Job control, listing, UI-format workflows and saved outputs through the BUILT package against
// the simulator, and examples/cloud-jobs.ts run as a user runs it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CloudClient, JobFailedError, toApiWorkflow, WorkflowAddressError } from 'graphcloud';
import { harness, isPng, png, rejectionOf, scaleWorkflow, until, within, type Harness } from './helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const RESIZE = JSON.parse(readFileSync(join(root, 'examples/workflows/resize.json'), 'utf8')) as CloudClient.UiWorkflow;
let h: Harness | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});
const folder = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'graphcloud-e2e-jobs-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

describe.each(['cloud', 'local'] as const)('cloud jobs through dist/ on a %s runtime', (runtime) => {
  it('cancels a pending and a running job, each watcher settling as cancelled', async () => {
    h = await harness({ runtime, stepDelayMs: 50 });
    const { cloud, sim } = h;
    await cloud.files.upload(png(), { filename: 'cat.png' });
    const running = await cloud.jobs.submit(scaleWorkflow('cat.png', 20));
    const pending = await cloud.jobs.submit(scaleWorkflow('cat.png', 21));
    const watchers = [cloud.jobs.watch(running.promptId), cloud.jobs.watch(pending.promptId)];
    await until(() => sim.state.jobs()[0]?.status === 'in_progress', 5_000, 'the first job to run');
    expect((await cloud.jobs.getQueue()).pending.map((item) => [item.promptId, item.position])).toEqual([[pending.promptId, 1]]);
    expect(await cloud.jobs.cancel(pending.promptId)).toMatchObject({ cancelled: true });
    expect(await cloud.jobs.cancel(running.promptId)).toMatchObject({ cancelled: true });
    const results = await within(Promise.all(watchers.map((w) => w.result())), 10_000, 'the watchers');
    expect(results.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
  });

  it('lists jobs lazily with filters, and reads one job with its outputs', async () => {
    h = await harness({ runtime });
    const { cloud } = h;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await cloud.runWorkflow(scaleWorkflow('x', 20 + i), { uploads: { '1.image': png() } })).promptId);
    const listed: string[] = [];
    for await (const job of cloud.jobs.listAll({ status: 'completed', limit: 2, sortOrder: 'asc' })) listed.push(job.promptId);
    expect(listed).toEqual(ids);
    const job = await cloud.jobs.get(ids[0]!);
    expect(job?.status).toBe('completed');
    expect(job?.createdAt).toBeGreaterThan(Date.UTC(2020, 0, 1));
    expect(Object.keys(job?.outputs ?? {})).toEqual(['3']);
  });
});

describe('UI-format workflows and saved outputs through dist/', () => {
  it('runs a saved UI workflow with inputs by title, and saves its outputs into a folder', async () => {
    h = await harness();
    const { cloud } = h;
    const result = await cloud.runWorkflow(RESIZE, { uploads: { 'Photo.image': png() }, inputs: { 'Resize.width': 24 } });
    const dir = folder();
    const saved = await cloud.files.saveOutputs(result, dir);
    expect(saved.map((s) => s.nodeId)).toEqual(['12']);
    expect(readdirSync(dir)).toEqual(['resized_00001_.png']);
    expect(isPng(new Uint8Array(readFileSync(join(dir, 'resized_00001_.png'))))).toBe(true);
    expect(Object.keys(await toApiWorkflow(RESIZE, await cloud.nodes.list()))).toEqual(['10', '11', '12']);
  });

  it('refuses a misspelled address before uploading, and cancels the job when the wait is abandoned', async () => {
    h = await harness({ stepDelayMs: 40 });
    const { cloud, sim } = h;
    expect(await rejectionOf(cloud.runWorkflow(RESIZE, { uploads: { 'Photo.img': png() } }), 5_000, 'runWorkflow')).toBeInstanceOf(WorkflowAddressError);
    expect(sim.state.requests.some((r) => r.path === '/api/upload/image')).toBe(false);
    const stop = new AbortController();
    let promptId = '';
    const error = await rejectionOf(cloud.runWorkflow(RESIZE, { uploads: { 'Photo.image': png() }, signal: stop.signal, onSubmitted: (s) => ((promptId = s.promptId), stop.abort()) }), 10_000, 'runWorkflow');
    expect(error).toBe(stop.signal.reason);
    await within(sim.state.waitForIdle(), 10_000, 'the simulator');
    expect(sim.state.jobs().find((job) => job.id === promptId)?.status).toBe('cancelled');
    const cancelled = await rejectionOf(cloud.runWorkflow(RESIZE, { uploads: { 'Photo.image': png() }, onSubmitted: (s) => void cloud.jobs.cancel(s.promptId) }), 10_000, 'runWorkflow');
    expect(cancelled).toBeInstanceOf(JobFailedError);
  });
});

describe('examples/cloud-jobs.ts', () => {
  it('runs against the in-process simulator, cancels its second run, saves its output and exits 0', async () => {
    const dir = folder();
    const child = spawn(join(root, 'node_modules', '.bin', 'tsx'), ['examples/cloud-jobs.ts'], { cwd: root, env: { ...process.env, GRAPHCLOUD_CLOUD_URL: '', GRAPHCLOUD_OUTPUT: dir, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await within(new Promise<number | null>((resolve) => child.on('close', resolve)), 60_000, 'the example to exit');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^run \S+ completed$/m);
    expect(stdout).toMatch(/^second run is now cancelled$/m);
    expect(readdirSync(dir)).toEqual(['resized_00001_.png']);
  });
});
