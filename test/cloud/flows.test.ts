import { afterEach, describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../src/core/index.js';
import { CloudClient, JobFailedError, WatcherClosedError, type WatchEvent, type Workflow } from '../../src/index.js';
import { type CloudClientOptions } from '../../src/cloud/client.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/testing/index.js';
import { png, scaleWorkflow, until } from './helpers.js';

// End-to-end flows against the simulator on 127.0.0.1 (real HTTP and real WebSockets).
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

async function setup(options: SimulatorOptions = {}, client: Partial<CloudClientOptions> = {}): Promise<{ sim: Simulator; cloud: CloudClient }> {
  sim = await startSimulator({ stepDelayMs: 0, progressSteps: 2, taskDurationMs: 20, ...options });
  cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, watcher: FAST, ...client });
  return { sim, cloud };
}

describe('cloud.runWorkflow() end to end', () => {
  it('resolves with the outputs of a normal run, learned on the socket', async () => {
    const { cloud } = await setup();
    const events: string[] = [];
    const result = await cloud.runWorkflow(scaleWorkflow('placeholder.png'), {
      uploads: { '1.image': { file: png(), filename: 'cat.png' } },
      onProgress: (p) => events.push(`${p.value}/${p.max}`),
    });
    expect(result).toMatchObject({ status: 'completed', via: 'socket', outputsComplete: true });
    expect(result.outputs['3']).toEqual({ images: [{ filename: 'sim_00001_.png', subfolder: '', type: 'output' }] });
    expect(events).toContain('2/2');
    expect(cloud.jobs.stats().connections).toBe(1);
  });

  it('closes the shared socket once no job is left, and reopens it for the next run', async () => {
    const { sim, cloud } = await setup();
    await cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() } });
    await until(() => sim.state.socketCount() === 0);
    await cloud.runWorkflow(scaleWorkflow('x', 40), { uploads: { '1.image': png() } });
    expect(cloud.jobs.stats().connections).toBe(2);
    const watcher = cloud.jobs.watch('00000000-0000-4000-8000-000000000000');
    await until(() => sim.state.socketCount() === 1);
    await cloud.close();
    await expect(watcher.result()).rejects.toBeInstanceOf(WatcherClosedError);
    await until(() => sim.state.socketCount() === 0);
  });

  it('resolves when the run finished before the submit response arrived', async () => {
    const { sim, cloud } = await setup();
    sim.faults.set({ finishBeforeResponse: true });
    const result = await cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() } });
    expect(result).toMatchObject({ status: 'completed', via: 'socket', outputsComplete: true });
    expect(result.outputs['3']).toMatchObject({ images: [{ filename: 'sim_00001_.png' }] });
    // Every message of the run arrived before the id was known: all were held, none lost.
    expect(cloud.jobs.stats().held).toBeGreaterThanOrEqual(5);
    expect(cloud.jobs.stats().polls).toBe(0);
  });

  it('recovers a completion sent while the socket was down, with its outputs', async () => {
    const { sim, cloud } = await setup();
    sim.faults.set({ dropSocketsMidRun: true });
    const workflow: Workflow = {
      ...scaleWorkflow('x'),
      '4': { class_type: 'PreviewImage', inputs: { images: ['2', 0] } },
    };
    const result = await cloud.runWorkflow(workflow, { uploads: { '1.image': png() } });
    expect(result.status).toBe('completed');
    expect(result.via).toBe('poll');
    // The outputs sent during the outage come from the server's job record.
    expect(Object.keys(result.outputs).sort()).toEqual(['3', '4']);
    expect(result.outputsComplete).toBe(true);
    // Learned by reading the job's status after the drop (at once, then on the reconnect).
    expect(cloud.jobs.stats().polls).toBeGreaterThanOrEqual(1);
  });

  it('maps the raw status vocabulary when the end is learned by polling', async () => {
    const { sim, cloud } = await setup();
    sim.faults.set({ dropSocketsMidRun: true, rawStatusVocabulary: true });
    const result = await cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() } });
    expect(result).toMatchObject({ status: 'completed', via: 'poll' });
    const status = await cloud.jobs.getStatus(result.promptId);
    expect(status).toMatchObject({ status: 'completed', raw: 'success', terminal: true });
  });

  it('resolves a fully cached re-run (no executing, no progress)', async () => {
    const { cloud } = await setup();
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    await cloud.runWorkflow(scaleWorkflow(name));
    const types: string[] = [];
    const second = await cloud.runWorkflow(scaleWorkflow(name), { onProgress: () => types.push('progress') });
    expect(second).toMatchObject({ status: 'completed', outputsComplete: true });
    expect(second.outputs['3']).toMatchObject({ images: [{ filename: 'sim_00001_.png' }] });
    expect(types).toEqual([]);
  });

  it('takes the outputs of a cached re-run whose output nodes sent no executed from the job record', async () => {
    const { sim, cloud } = await setup();
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    await cloud.runWorkflow(scaleWorkflow(name));
    sim.faults.set({ cachedWithoutExecuted: true });
    for (const validate of [true, false]) {
      const types: string[] = [];
      const second = await cloud.runWorkflow(scaleWorkflow(name), { validate, onEvent: (e) => types.push(e.type) });
      expect(types).toEqual(expect.arrayContaining(['execution_start', 'execution_cached', 'execution_success']));
      expect(types).not.toContain('executed');
      expect(second).toMatchObject({ status: 'completed', via: 'socket', outputsComplete: true });
      expect(second.outputs['3']).toMatchObject({ images: [{ filename: 'sim_00001_.png' }] });
    }
  });

  it('cloud.jobs.watch() of such a run (no workflow known) reads its outputs from the job record too', async () => {
    const { sim, cloud } = await setup();
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    await cloud.runWorkflow(scaleWorkflow(name));
    sim.faults.set({ cachedWithoutExecuted: true });
    const submitted = await cloud.jobs.submit(scaleWorkflow(name));
    const result = await cloud.jobs.watch(submitted.promptId).result();
    expect(result).toMatchObject({ status: 'completed', outputsComplete: true });
    expect(result.outputs['3']).toMatchObject({ images: [{ filename: 'sim_00001_.png' }] });
  });

  it('says outputsComplete: false when the job record of such a run cannot be read', async () => {
    const { sim, cloud } = await setup();
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    await cloud.runWorkflow(scaleWorkflow(name));
    sim.faults.set({ cachedWithoutExecuted: true });
    sim.faults.failRequests({ path: /\/(jobs|history_v2|history)\//, status: 404 });
    const second = await cloud.runWorkflow(scaleWorkflow(name));
    expect(second).toMatchObject({ status: 'completed', via: 'socket', outputsComplete: false });
    expect(second.outputs).toEqual({});
  });

  it('reads no job record when the outputs came on the socket (partly cached run)', async () => {
    const { sim, cloud } = await setup();
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    await cloud.runWorkflow(scaleWorkflow(name));
    sim.faults.set({ cachedWithoutExecuted: true });
    sim.state.clearRequests();
    // The loader is cached; the scale and the save run again and send their executed.
    const result = await cloud.runWorkflow(scaleWorkflow(name, 48));
    expect(result).toMatchObject({ status: 'completed', via: 'socket', outputsComplete: true });
    expect(result.outputs['3']).toMatchObject({ images: [{ filename: 'sim_00002_.png' }] });
    expect(sim.state.requests.filter((r) => /\/(jobs|history_v2|history)\//.test(r.path))).toEqual([]);
  });

  it('rejects a failing run with JobFailedError carrying the reason', async () => {
    const { cloud } = await setup();
    const workflow: Workflow = {
      '1': { class_type: 'FailNode', inputs: { message: 'boom' } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
    };
    const error = await cloud.runWorkflow(workflow).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect((error as JobFailedError).result).toMatchObject({ status: 'failed', error: { message: 'boom', exceptionType: 'RuntimeError', nodeId: '1', nodeType: 'FailNode' } });
  });

  it('treats ExecutionBlocked as an event, not as the end of the run', async () => {
    const { cloud } = await setup();
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    const workflow: Workflow = {
      '1': { class_type: 'LoadImage', inputs: { image: name } },
      '2': { class_type: 'BlockExecution', inputs: { image: ['1', 0], message: 'not today' } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'blocked' } },
      '4': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'kept' } },
    };
    const blocked: string[] = [];
    const result = await cloud.runWorkflow(workflow, {
      onEvent: (e) => e.type === 'execution_blocked' && blocked.push(String(e.data.exception_message)),
    });
    expect(blocked).toEqual(['Execution Blocked: not today']);
    expect(result.status).toBe('completed');
    expect(result.outputs['4']).toMatchObject({ images: [{ filename: 'kept_00001_.png' }] });
  });

  it('decodes preview (type 4) and text (type 3) frames and survives garbage frames', async () => {
    const { sim, cloud } = await setup();
    sim.faults.set({ garbageFrames: true });
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    const workflow: Workflow = {
      '1': { class_type: 'LoadImage', inputs: { image: name } },
      '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 8, height: 0, crop: 'disabled' } },
      '4': { class_type: 'UpscaleViaProxy', inputs: { image: ['2', 0], scale_factor: '2x' } },
      '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'partner' } },
    };
    const seen: WatchEvent[] = [];
    const { promptId } = await cloud.runWorkflow(workflow, { partnerApiKey: true, onEvent: (e) => seen.push(e) });
    const previews = seen.filter((e) => e.type === 'preview');
    expect(previews.length).toBeGreaterThan(0);
    expect(previews[0]?.data).toMatchObject({ promptId, nodeId: '2', mimeType: 'image/png' });
    const text = seen.find((e) => e.type === 'text');
    expect(text?.data).toMatchObject({ promptId, nodeId: '4', mimeType: 'text/plain' });
    expect(seen.at(-1)?.type).toBe('execution_success');
    // Unknown binary types, truncated frames, bad JSON, unknown text types: ignored and counted.
    expect(cloud.jobs.stats().ignored).toBeGreaterThanOrEqual(8);
  });

  it('delivers the previews a run sent before the submission\'s answer named it, in order with its progress', async () => {
    // The whole run (events and previews) reaches the socket before the client knows its prompt id.
    const { sim, cloud } = await setup({ stepDelayMs: 0, progressSteps: 3 });
    sim.faults.set({ finishBeforeResponse: true });
    const seen: WatchEvent[] = [];
    // The job's overall progress (job_progress, not a wire message) is left out here.
    const { promptId, via } = await cloud.runWorkflow(scaleWorkflow('placeholder.png'), { uploads: { '1.image': png() }, onEvent: (e) => e.type !== 'job_progress' && seen.push(e) });
    expect(via).toBe('socket');
    // The simulator sends a preview after each progress step of a node that computes an image
    // (ImageScale, node 2): three of them, each right after its progress message.
    const previews = seen.filter((e) => e.type === 'preview');
    expect(previews).toHaveLength(3);
    expect(previews.every((e) => e.data.promptId === promptId && e.data.nodeId === '2' && e.data.data.byteLength > 0)).toBe(true);
    const before = previews.map((preview) => seen[seen.indexOf(preview) - 1]);
    expect(before).toEqual([1, 2, 3].map((value) => ({ type: 'progress', data: { prompt_id: promptId, node: '2', value, max: 3 } })));
  });

  it('downloads outputs through the 302 to another origin without sending the key', async () => {
    const { sim, cloud } = await setup();
    const result = await cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() }, download: true });
    expect(result.files).toHaveLength(1);
    expect(result.files?.[0]).toMatchObject({ nodeId: '3', kind: 'images', mimeType: 'image/png' });
    expect([...(result.files?.[0]?.data.subarray(1, 4) ?? [])]).toEqual([0x50, 0x4e, 0x47]);
    const files = sim.state.requests.filter((r) => r.area === 'files');
    expect(files.length).toBe(1);
    expect(sim.state.filesOriginSawCredentials()).toBe(false);
  });

  it('falls back to polling when the socket cannot be opened at all', async () => {
    const { sim, cloud } = await setup();
    sim.faults.refuseSockets(60_000);
    const result = await cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() } });
    expect(result).toMatchObject({ status: 'completed', via: 'poll', outputsComplete: true });
    expect(result.outputs['3']).toMatchObject({ images: [{ filename: 'sim_00001_.png' }] });
    expect(cloud.jobs.stats().connections).toBe(0);
  });

  it('rejects with AuthenticationError for a refused key, before any job runs', async () => {
    const { sim } = await setup();
    cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: 'wrong-key-123456', watcher: FAST });
    const error = await cloud.runWorkflow(scaleWorkflow('x')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(String((error as Error).message)).not.toContain('wrong-key-123456');
    expect(sim.state.jobs()).toHaveLength(0);
  });

  it('watches a job submitted elsewhere that has already finished', async () => {
    const { sim, cloud } = await setup();
    const result = await cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() } });
    await sim.state.waitForIdle();
    const again = await cloud.jobs.watch(result.promptId).result();
    expect(again).toMatchObject({ status: 'completed', via: 'poll', outputsComplete: true });
    expect(again.outputs).toEqual(result.outputs);
  });

  it('runs 1,000 concurrent jobs on one socket, each with its own outputs', async () => {
    const { sim, cloud } = await setup({ progressSteps: 1 });
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => cloud.runWorkflow(scaleWorkflow(name, i + 1, `job${i}`))));
    results.forEach((result, i) => {
      expect(result.status).toBe('completed');
      expect(result.outputs['3']).toEqual({ images: [{ filename: `job${i}_00001_.png`, subfolder: '', type: 'output' }] });
    });
    expect(new Set(results.map((r) => r.promptId)).size).toBe(1000);
    expect(cloud.jobs.stats().connections).toBe(1);
    expect(sim.state.jobs()).toHaveLength(1000);
  }, 60_000);
});

describe('cloud.runWorkflow() on a local runtime', () => {
  it('sends its client_id, receives the run on its socket and resolves', async () => {
    const { sim, cloud } = await setup({ runtime: 'local' }, { apiKey: undefined });
    const result = await cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() } });
    expect(result).toMatchObject({ status: 'completed', via: 'socket' });
    expect(sim.state.jobs()[0]?.clientId).toBe(cloud.clientId);
  });

  it('takes the outputs of a cached re-run that sent no executed from /history', async () => {
    const { sim, cloud } = await setup({ runtime: 'local' }, { apiKey: undefined });
    const { name } = await cloud.files.upload(png(), { filename: 'cat.png' });
    await cloud.runWorkflow(scaleWorkflow(name));
    sim.faults.set({ cachedWithoutExecuted: true });
    // A runtime of 0.3.77's kind: no /api/jobs (docs/wire-protocol.md).
    sim.faults.failRequests({ path: /\/(jobs|history_v2)\//, status: 404 });
    sim.state.clearRequests();
    const second = await cloud.runWorkflow(scaleWorkflow(name));
    expect(second).toMatchObject({ status: 'completed', via: 'socket', outputsComplete: true });
    expect(second.outputs['3']).toMatchObject({ images: [{ filename: 'sim_00001_.png' }] });
    expect(sim.state.requests.some((r) => r.path === `/history/${second.promptId}`)).toBe(true);
  });

  it('falls back to /history when the status route answers 404', async () => {
    const { sim, cloud } = await setup({ runtime: 'local' }, { apiKey: undefined });
    sim.faults.set({ dropSocketsMidRun: true });
    const result = await cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() } });
    expect(result).toMatchObject({ status: 'completed', via: 'poll', outputsComplete: true });
    expect(sim.state.requests.some((r) => r.path === `/history/${result.promptId}`)).toBe(true);
    expect(await cloud.jobs.getStatus(result.promptId)).toMatchObject({ status: 'completed', raw: 'success' });
  });
});
