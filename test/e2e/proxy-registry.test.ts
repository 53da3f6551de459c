// The media proxy waits and the registry's pagination and permissions, through the BUILT package,
// against the simulator on 127.0.0.1.
import { afterEach, describe, expect, it } from 'vitest';
import { AuthenticationError, GraphcloudError, NotFoundError, PermissionDeniedError, ProxyClient, RegistryClient, TaskFailedError, TimeoutError } from 'graphcloud';
import { startSimulator, type Simulator } from 'graphcloud/testing';
import { FAST_RETRY, isPng, png, rejectionOf, until, within } from './helpers.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** Polls every 50 to 200 ms instead of 0.5 to 24 s (100 ms is the floor of poll.minDelayMs). */
const FAST_WAIT = { poll: { minDelayMs: 100, maxDelayMs: 200, growFactor: 1.5 }, waitTimeout: 15_000 };

async function proxyOn(options: Parameters<typeof startSimulator>[0] = {}): Promise<{ sim: Simulator; proxy: ProxyClient }> {
  sim = await within(startSimulator({ taskDurationMs: 150, ...options }), 5_000, 'startSimulator()');
  return { sim, proxy: new ProxyClient({ baseUrl: sim.proxyUrl, token: sim.token, wait: FAST_WAIT, retry: FAST_RETRY }) };
}

describe('proxy.waitForTask() end to end', () => {
  it('waits for an image task through every phase and returns a result URL that serves the image without credentials', async () => {
    // IN_PROGRESS lasts from 200 to 600 ms, reads come at most 200 ms apart: one always sees it
    // (with 150 ms the phase lasted 100 ms, and a late read could step over it).
    const { sim, proxy } = await proxyOn({ taskDurationMs: 600 });
    const task = await within(proxy.image.upscale({ image: png(32, 32), scale_factor: '2x' }), 5_000, 'upscale submission');
    expect(task).toMatchObject({ kind: 'upscale', status: 'CREATED' });
    const phases: string[] = [];
    const result = await within(proxy.waitForTask(task, { onUpdate: (s: ProxyClient.TaskStatus) => phases.push(s.phase) }), 10_000, 'waitForTask');
    expect(result).toMatchObject({ kind: 'upscale', taskId: task.taskId, status: 'COMPLETED' });
    expect(phases.at(-1)).toBe('succeeded');
    expect(phases).toContain('running');
    const response = await within(fetch(result.urls[0]!), 5_000, 'result download');
    expect(response.status).toBe(200);
    expect(isPng(new Uint8Array(await response.arrayBuffer()))).toBe(true);
    // Submission and polls went to the proxy with the Bearer token; nothing else saw it.
    const polls = sim.state.requests.filter((r) => r.path.startsWith(`/proxy/imagevendor/v1/ai/image-upscaler/${task.taskId}`));
    expect(polls.length).toBeGreaterThanOrEqual(2);
    expect(polls.every((r) => r.headers.authorization === `Bearer ${sim.token}`)).toBe(true);
  });

  it('submits and waits in one call with { wait: true } for a video task, returning its creations', async () => {
    const { proxy } = await proxyOn();
    const result = await within(proxy.video.referenceToVideo({ model: 'videoq2-pro', prompt: 'a lighthouse at dusk', images: ['https://example.com/start.png'], duration: 4 }, { wait: true }), 10_000, 'video');
    expect(result).toMatchObject({ kind: 'referenceToVideo', status: 'success' });
    expect(result.creations[0]?.url).toBe(result.urls[0]);
    expect(result.urls[0]).toMatch(/\/results\/.+\/video\.mp4$/);
  });

  it('rejects with TaskFailedError when an image task ends FAILED, and when a video task ends failed', async () => {
    const { proxy } = await proxyOn();
    const image = await proxy.image.relight({ image: 'https://example.com/a.png', prompt: 'please fail' });
    const imageError = await rejectionOf(proxy.waitForTask(image), 10_000, 'failed image task');
    expect(imageError).toBeInstanceOf(TaskFailedError);
    expect(imageError).toMatchObject({ kind: 'relight', taskId: image.taskId, status: 'FAILED', reason: 'failed' });

    const video = await proxy.video.referenceToVideo({ model: 'videoq2-turbo', prompt: 'fail on purpose', duration: 3 });
    const videoError = await rejectionOf(proxy.waitForTask(video), 10_000, 'failed video task');
    expect(videoError).toBeInstanceOf(TaskFailedError);
    expect(videoError).toMatchObject({ kind: 'referenceToVideo', status: 'failed', errCode: 'SimulatedGenerationFailure' });
  });

  it('takes 404 right after submission for lag and resolves once the task is found', async () => {
    const { sim, proxy } = await proxyOn();
    const task = await proxy.image.skinEnhancerFaithful({ image: png() }, { headers: { 'x-sim-fault': 'not-found-polls=3' } });
    const result = await within(proxy.waitForTask(task), 10_000, 'waitForTask after 404s');
    expect(result.status).toBe('COMPLETED');
    const answers = sim.state.requests.filter((r) => r.path.endsWith(task.taskId)).map((r) => r.status);
    expect(answers.slice(0, 3)).toEqual([404, 404, 404]);
    expect(answers.at(-1)).toBe(200);
  });

  it('gives up on a task that stays 404 past the grace period with NotFoundError', async () => {
    const { proxy } = await proxyOn();
    const task = await proxy.image.upscale({ image: png(), scale_factor: '2x' }, { headers: { 'x-sim-fault': 'not-found-polls=1000' } });
    const error = await rejectionOf(proxy.waitForTask(task, { notFoundGraceMs: 150 }), 10_000, 'waitForTask of a missing task');
    expect(error).toBeInstanceOf(NotFoundError);
  });

  it('reads style transfer in both envelopes and `task_status` instead of `status`', async () => {
    const { proxy } = await proxyOn();
    const plain = await proxy.image.styleTransfer({ image: png(), reference_image: png(8, 8, [0, 0, 255]) });
    const wrapped = await proxy.image.styleTransfer({ image: png(), reference_image: png() }, { headers: { 'x-sim-fault': 'wrap-style-transfer, task-status-field=task_status' } });
    const results = await within(Promise.all([proxy.waitForTask(plain), proxy.waitForTask(wrapped, { headers: { 'x-sim-fault': 'task-status-field=task_status' } })]), 10_000, 'style transfers');
    expect(results.map((r) => r.status)).toEqual(['COMPLETED', 'COMPLETED']);
  });
});

describe('proxy waits that end early name the paid task', () => {
  it('rejects at waitTimeout when every status read of a queued task fails (0.1.0 waited forever)', async () => {
    const { sim, proxy } = await proxyOn({ taskDurationMs: 60_000 });
    const task = await within(proxy.image.upscale({ image: png(), scale_factor: '2x' }), 5_000, 'upscale submission');
    expect(task.status).toBe('CREATED');
    const broken = sim.faults.failRequests({ method: 'GET', path: '/proxy/imagevendor/v1/ai/image-upscaler/', status: 502 });
    const error = await rejectionOf(proxy.waitForTask(task, { waitTimeout: 800 }), 5_000, 'wait on a failing status route');
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ submitted: { kind: 'upscale', taskId: task.taskId } });
    expect(broken.hits).toBeGreaterThan(1);
  });

  it('proxy.close() ends a wait in progress with ClientClosedError naming the task; later calls fail the same way', async () => {
    const { sim, proxy } = await proxyOn({ taskDurationMs: 60_000 });
    const task = await within(proxy.image.relight({ image: png(), prompt: 'warm light' }), 5_000, 'relight submission');
    const wait = rejectionOf(proxy.waitForTask(task), 5_000, 'wait ended by close()');
    await until(() => sim.state.requests.some((r) => r.method === 'GET' && r.path.endsWith(task.taskId)), 5_000, 'the first status read');
    await within(proxy.close(), 5_000, 'proxy.close()');
    const error = await wait;
    expect(error).toBeInstanceOf(GraphcloudError);
    expect(error).toMatchObject({ name: 'ClientClosedError', submitted: { kind: 'relight', taskId: task.taskId } });
    expect(await rejectionOf(proxy.image.upscale({ image: png() }), 5_000, 'a call after close()')).toMatchObject({ name: 'ClientClosedError' });
  });
});

describe('registry.versions.listAll() and permissions end to end', () => {
  it('walks every page lazily and yields each version once', async () => {
    sim = await startSimulator();
    const registry = new RegistryClient({ baseUrl: sim.registryUrl, token: sim.token });
    const first = await within(registry.versions.list({ pageSize: 30 }), 5_000, 'first page');
    expect(first.totalPages).toBeGreaterThan(2);
    sim.state.clearRequests();
    const ids: string[] = [];
    await within(
      (async () => {
        for await (const version of registry.versions.listAll({ pageSize: 30 })) ids.push(version.id!);
      })(),
      10_000,
      'listAll',
    );
    expect(ids).toHaveLength(first.total!);
    expect(new Set(ids).size).toBe(first.total!);
    const pages = sim.state.requests.filter((r) => r.path === '/versions').map((r) => new URLSearchParams(r.query).get('page'));
    expect(pages).toEqual(Array.from({ length: first.totalPages! }, (_, i) => String(i + 1)));
  });

  it('filters by repeated statuses across pages and stops fetching on break', async () => {
    sim = await startSimulator();
    const registry = new RegistryClient({ baseUrl: sim.registryUrl });
    const statuses = ['NodeVersionStatusFlagged', 'NodeVersionStatusPending'] as const;
    const seen: string[] = [];
    for await (const version of registry.versions.listAll({ statuses: [...statuses], pageSize: 5 })) {
      seen.push(version.status!);
      if (seen.length === 12) break;
    }
    expect(seen).toHaveLength(12);
    expect(seen.every((s) => (statuses as readonly string[]).includes(s))).toBe(true);
    // 12 items at 5 per page: pages 1 to 3, then nothing more.
    expect(sim.state.requests.filter((r) => r.path === '/versions')).toHaveLength(3);
  });

  it('rejects a write with a member token with PermissionDeniedError, and without a token with AuthenticationError', async () => {
    sim = await startSimulator();
    const owner = new RegistryClient({ baseUrl: sim.registryUrl, token: sim.token });
    const member = new RegistryClient({ baseUrl: sim.registryUrl, token: sim.memberToken });
    const anonymous = new RegistryClient({ baseUrl: sim.registryUrl });
    const { versions } = await owner.versions.list({ nodeId: 'demo-node', pageSize: 1 });
    const version = versions[0]!;
    const denied = await rejectionOf(member.versions.update('demo-publisher', 'demo-node', version.id!, { deprecated: true }), 5_000, 'member update');
    expect(denied).toBeInstanceOf(PermissionDeniedError);
    expect(denied).toMatchObject({ status: 403, method: 'PUT' });
    expect(JSON.stringify(denied) + String(denied)).not.toContain(sim.memberToken);
    expect(await rejectionOf(anonymous.publishers.deleteToken('demo-publisher', 'token-1'), 5_000, 'anonymous delete')).toBeInstanceOf(AuthenticationError);
    const updated = await owner.versions.update('demo-publisher', 'demo-node', version.id!, { deprecated: true });
    expect(updated.deprecated).toBe(true);
  });

  it('follows the 302 of a node alias to its canonical id', async () => {
    sim = await startSimulator();
    const registry = new RegistryClient({ baseUrl: sim.registryUrl, token: sim.token });
    const node = await within(registry.nodes.get('demo-node-alias'), 5_000, 'nodes.get');
    expect(node.id).toBe('demo-node');
  });
});
