// Every flow of the CloudClient against the simulator over real HTTP and WebSockets, through the
// BUILT package. test/cloud/flows.test.ts covers the same flows against src/ with simulator-wide
// switches; these drive the faults per request (the `x-sim-fault` header, as a user of a staging
// deployment would), check what went over the wire, and download every output they assert on.
import { afterEach, describe, expect, it } from 'vitest';
import { AuthenticationError, CloudClient, JobFailedError, listOutputFiles, type WatchEvent, type Workflow } from 'graphcloud';
import { FAULT_HEADER } from 'graphcloud/testing';
import { FAST_RETRY, FAST_WATCHER, harness, isPng, png, rejectionOf, scaleWorkflow, within, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A second client on the same simulator whose every request carries `x-sim-fault: <fault>`. */
function faultyClient(harnessed: Harness, fault: string, options: Partial<ConstructorParameters<typeof CloudClient>[0]> = {}): CloudClient {
  return new CloudClient({ baseUrl: harnessed.sim.cloudUrl, apiKey: harnessed.sim.apiKey, watcher: FAST_WATCHER, retry: FAST_RETRY, headers: { [FAULT_HEADER]: fault }, ...options });
}


/** Scale then save (node 3), then a node that fails: the run fails after node 3 has saved its output. */
function failsLate(image: string): Workflow {
  return {
    '1': { class_type: 'LoadImage', inputs: { image } },
    '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 20, height: 0, crop: 'disabled' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'before' } },
    '4': { class_type: 'FailNode', inputs: { message: 'late failure', image: ['2', 0] } },
    '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'never' } },
  };
}

describe('cloud.runWorkflow() through dist/, end to end', () => {
  it('resolves when the run finished before the submit response arrived (per-request fault)', async () => {
    h = await harness();
    const cloud = faultyClient(h, 'finish-before-response');
    try {
      const events: string[] = [];
      const result = await within(cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() }, onEvent: (e) => events.push(e.type), download: true }), 10_000, 'runWorkflow');
      expect(result).toMatchObject({ status: 'completed', via: 'socket', outputsComplete: true });
      // The whole run, in order, although every message was written before the POST's response.
      expect(events[0]).toBe('execution_start');
      expect(events).toContain('executed');
      expect(events.at(-1)).toBe('execution_success');
      expect(isPng(result.files?.[0]?.data)).toBe(true);
      const prompt = h.sim.state.requests.find((r) => r.path === '/api/prompt');
      expect(prompt?.headers[FAULT_HEADER]).toBe('finish-before-response');
      expect(cloud.jobs.stats().polls).toBe(0);
    } finally {
      await cloud.close();
    }
  });

  it('recovers a completion sent while the socket was down, and its outputs, from the server', async () => {
    h = await harness();
    const cloud = faultyClient(h, 'drop-mid-run');
    try {
      const workflow: Workflow = { ...scaleWorkflow('x', 24, 'outage'), '4': { class_type: 'PreviewImage', inputs: { images: ['2', 0] } } };
      const result = await within(cloud.runWorkflow(workflow, { uploads: { '1.image': png() }, download: true }), 15_000, 'runWorkflow');
      expect(result).toMatchObject({ status: 'completed', via: 'poll', outputsComplete: true });
      expect(Object.keys(result.outputs).sort()).toEqual(['3', '4']);
      expect(result.files?.map((f) => f.nodeId).sort()).toEqual(['3', '4']);
      expect(result.files?.every((f) => isPng(f.data))).toBe(true);
      // The job record the SDK polled agrees with what the simulator ran.
      expect(h.sim.state.jobs().find((j) => j.id === result.promptId)?.status).toBe('completed');
      // Learned by reading the job's status after the drop (at once, then on the reconnect).
      expect(cloud.jobs.stats().polls).toBeGreaterThanOrEqual(1);
    } finally {
      await cloud.close();
    }
  });

  it('resolves a fully cached re-run with the same outputs and no progress', async () => {
    h = await harness();
    const { cloud } = h;
    const { name } = await within(cloud.files.upload(png(), { filename: 'cached.png' }), 5_000, 'upload');
    const first = await within(cloud.runWorkflow(scaleWorkflow(name, 48, 'cached')), 10_000, 'first run');
    const types: string[] = [];
    const second = await within(cloud.runWorkflow(scaleWorkflow(name, 48, 'cached'), { onEvent: (e) => types.push(e.type) }), 10_000, 'cached run');
    expect(second).toMatchObject({ status: 'completed', outputsComplete: true });
    expect(second.promptId).not.toBe(first.promptId);
    expect(second.outputs['3']).toEqual(first.outputs['3']);
    expect(types).not.toContain('progress');
    expect(types.filter((t) => t === 'executing')).toHaveLength(0);
    expect(types).toContain('execution_cached');
  });

  it('rejects a failing run with JobFailedError whose result keeps the reason and the node', async () => {
    h = await harness();
    const workflow: Workflow = {
      '1': { class_type: 'FailNode', inputs: { message: 'GPU on fire' } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'never' } },
    };
    const error = await rejectionOf(h.cloud.runWorkflow(workflow), 10_000, 'failing run');
    expect(error).toBeInstanceOf(JobFailedError);
    const failed = error as JobFailedError;
    expect(failed.status).toBe('failed');
    expect(failed.message).toContain('GPU on fire');
    expect(failed.result.error).toMatchObject({ message: 'GPU on fire', nodeId: '1', nodeType: 'FailNode' });
    expect(h.sim.state.jobs().find((j) => j.id === failed.promptId)?.status).toBe('failed');
  });

  it('reports a failure learned by polling (socket dropped, raw status `error`) as JobFailedError', async () => {
    h = await harness();
    const { name } = await h.cloud.files.upload(png(), { filename: 'f.png' });
    // The scale node runs (and triggers the drop), then FailNode fails while the socket is down.
    const workflow = failsLate(name);
    const cloud = faultyClient(h, 'drop-mid-run, raw-status');
    try {
      const error = await rejectionOf(cloud.runWorkflow(workflow), 15_000, 'run failing during an outage');
      expect(error).toBeInstanceOf(JobFailedError);
      // The raw status route carries `error_message`: the reason survives the outage.
      expect((error as JobFailedError).result).toMatchObject({ status: 'failed', via: 'poll', error: { message: 'late failure' } });
    } finally {
      await cloud.close();
    }
  });

  // Was a gap: a failure learned by polling did not ask the output routes, so the outputs of the
  // nodes that did run (node 3 here; /api/jobs/{id} lists it) were lost.
  it('keeps the outputs of the nodes that ran when a failure is learned by polling', async () => {
    h = await harness();
    const { name } = await h.cloud.files.upload(png(), { filename: 'g.png' });
    const workflow = failsLate(name);
    const cloud = faultyClient(h, 'drop-mid-run');
    try {
      const error = (await rejectionOf(cloud.runWorkflow(workflow), 15_000, 'run failing during an outage')) as JobFailedError;
      expect(h.sim.state.jobs().find((j) => j.id === error.promptId)?.outputs['3']).toBeDefined();
      expect(error.result.outputs['3']).toMatchObject({ images: [{ filename: 'before_00001_.png' }] });
    } finally {
      await cloud.close();
    }
  });

  it('treats a non-terminal ExecutionBlocked as an event and completes the rest of the run', async () => {
    h = await harness();
    const { name } = await h.cloud.files.upload(png(), { filename: 'blocked.png' });
    const workflow: Workflow = {
      '1': { class_type: 'LoadImage', inputs: { image: name } },
      '2': { class_type: 'BlockExecution', inputs: { image: ['1', 0], message: 'policy says no' } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'blocked' } },
      '4': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'kept' } },
    };
    const events: WatchEvent[] = [];
    const result = await within(h.cloud.runWorkflow(workflow, { onEvent: (e) => events.push(e) }), 10_000, 'blocked run');
    expect(result.status).toBe('completed');
    const blocked = events.filter((e) => e.type === 'execution_blocked');
    expect(blocked).toHaveLength(1);
    expect(events.indexOf(blocked[0]!)).toBeLessThan(events.findIndex((e) => e.type === 'execution_success'));
    expect(result.outputs['4']).toMatchObject({ images: [{ filename: 'kept_00001_.png' }] });
    expect(result.outputs['3']).toBeUndefined();
  });

  it('delivers type-4 previews with metadata and type-3 text frames to the right job', async () => {
    h = await harness();
    const { name } = await h.cloud.files.upload(png(), { filename: 'frames.png' });
    const workflow: Workflow = {
      '1': { class_type: 'LoadImage', inputs: { image: name } },
      '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 8, height: 0, crop: 'disabled' } },
      '4': { class_type: 'UpscaleViaProxy', inputs: { image: ['2', 0], scale_factor: '2x' } },
      '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'partner' } },
    };
    const events: WatchEvent[] = [];
    const result = await within(h.cloud.runWorkflow(workflow, { partnerApiKey: true, onEvent: (e) => events.push(e) }), 15_000, 'partner run');
    const previews = events.flatMap((e) => (e.type === 'preview' ? [e.data] : []));
    expect(previews.length).toBeGreaterThan(0);
    expect(previews[0]).toMatchObject({ promptId: result.promptId, nodeId: '2', mimeType: 'image/png' });
    expect(isPng(previews[0]?.data)).toBe(true);
    const texts = events.flatMap((e) => (e.type === 'text' ? [e.data] : []));
    expect(texts.length).toBeGreaterThan(0);
    expect(texts[0]).toMatchObject({ nodeId: '4', mimeType: 'text/plain' });
    expect(typeof texts[0]?.data).toBe('string');
  });

  it('attributes type-1 previews (no metadata) to the running job when the client did not ask for metadata', async () => {
    h = await harness();
    // A socket that never sends `feature_flags`: the server then sends bare type-1 previews.
    class NoFeatureFlags extends WebSocket {
      override send(data: Parameters<WebSocket['send']>[0]): void {
        if (typeof data === 'string' && data.includes('feature_flags')) return;
        super.send(data);
      }
    }
    const cloud = new CloudClient({ baseUrl: h.sim.cloudUrl, apiKey: h.sim.apiKey, watcher: FAST_WATCHER, WebSocket: NoFeatureFlags });
    try {
      const previews: { promptId?: string | undefined; nodeId?: string | undefined; mimeType: string; data: Uint8Array }[] = [];
      const result = await within(cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() }, onEvent: (e) => e.type === 'preview' && previews.push(e.data) }), 10_000, 'run');
      expect(result.status).toBe('completed');
      expect(previews.length).toBeGreaterThan(0);
      expect(previews.every((p) => p.mimeType === 'image/png' && isPng(p.data) && p.nodeId === undefined)).toBe(true);
    } finally {
      await cloud.close();
    }
  });

  it('ignores garbage frames (unknown binary types, truncated frames, bad JSON, unknown types) and still resolves', async () => {
    h = await harness();
    const cloud = faultyClient(h, 'garbage-frames');
    try {
      const result = await within(cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() } }), 10_000, 'run with garbage');
      expect(result).toMatchObject({ status: 'completed', via: 'socket', outputsComplete: true });
      expect(cloud.jobs.stats().ignored).toBeGreaterThanOrEqual(8);
    } finally {
      await cloud.close();
    }
  });

  it('maps raw cloud status values while the job runs and after it ends', async () => {
    h = await harness({ stepDelayMs: 40 });
    const cloud = faultyClient(h, 'raw-status');
    try {
      const { name } = await cloud.files.upload(png(), { filename: 'raw.png' });
      h.sim.faults.set({ rawStatusVocabulary: true });
      const watcher = h.cloud.jobs.watch((await cloud.jobs.submit(scaleWorkflow(name, 40, 'raw'))).promptId);
      const seen = new Set<string>();
      const promptId = watcher.promptId;
      while (!watcher.settled) {
        const status = await within(cloud.jobs.getStatus(promptId), 5_000, 'jobs.getStatus');
        seen.add(`${status.raw}->${status.status}`);
        if (status.terminal) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await within(watcher.result(), 10_000, 'watcher');
      const final = await cloud.jobs.getStatus(promptId);
      expect(final).toMatchObject({ status: 'completed', raw: 'success', terminal: true });
      // In-flight raw values are mapped to documented ones, never surfaced unmapped.
      for (const pair of seen) expect(['submitted->pending', 'executing->in_progress', 'success->completed']).toContain(pair);
      expect([...seen].some((pair) => pair !== 'success->completed')).toBe(true);
    } finally {
      await cloud.close();
    }
  });

  it('downloads an output through the 302 to another origin without sending the key there', async () => {
    h = await harness();
    const result = await within(h.cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() } }), 10_000, 'run');
    const [ref] = listOutputFiles(result.outputs);
    h.sim.state.clearRequests();
    const bytes = await within(h.cloud.files.get(ref!.ref), 5_000, 'files.get');
    expect(isPng(bytes)).toBe(true);
    const view = h.sim.state.requests.find((r) => r.path === '/api/view');
    expect(view).toMatchObject({ area: 'cloud', status: 302 });
    expect(view?.headers['x-api-key']).toBe(h.sim.apiKey);
    const file = h.sim.state.requests.find((r) => r.area === 'files');
    expect(file?.status).toBe(200);
    expect(file?.headers['x-api-key']).toBeUndefined();
    expect(file?.headers.authorization).toBeUndefined();
    expect(h.sim.state.filesOriginSawCredentials()).toBe(false);
  });

  it('rejects with AuthenticationError (key redacted) for a refused key and starts no job', async () => {
    h = await harness();
    const cloud = new CloudClient({ baseUrl: h.sim.cloudUrl, apiKey: 'gcsim_wrong_key_e2e', watcher: FAST_WATCHER });
    try {
      const error = await rejectionOf(cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.image': png() } }), 10_000, 'run with a bad key');
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(JSON.stringify(error) + String(error) + (error as Error).message).not.toContain('gcsim_wrong_key_e2e');
      expect(h.sim.state.jobs()).toHaveLength(0);
    } finally {
      await cloud.close();
    }
  });

  it('runs 1,000 concurrent jobs on one socket, each resolving with its own outputs', async () => {
    h = await harness({ progressSteps: 1 });
    const { name } = await h.cloud.files.upload(png(), { filename: 'many.png' });
    const results = await within(Promise.all(Array.from({ length: 1000 }, (_, i) => h!.cloud.runWorkflow(scaleWorkflow(name, 8 + (i % 50), `job${i}`)))), 90_000, '1,000 runs');
    results.forEach((result, i) => {
      expect(result.status).toBe('completed');
      expect(result.outputs['3']).toEqual({ images: [{ filename: `job${i}_00001_.png`, subfolder: '', type: 'output' }] });
    });
    expect(new Set(results.map((r) => r.promptId)).size).toBe(1000);
    expect(h.cloud.jobs.stats().connections).toBe(1);
    expect(h.sim.state.jobs().filter((j) => j.status === 'completed')).toHaveLength(1000);
  }, 120_000);
});
