import { afterEach, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../src/core/index.js';
import { CloudClient, JobFailedError, type WatchEvent } from '../../src/index.js';
import { type CloudClientOptions } from '../../src/cloud/client.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/testing/index.js';
import { png, scaleWorkflow, until } from './helpers.js';

// cloud.jobs.cancel(), interruptAll() and runWorkflow's cancelOnAbort against the simulator, with
// and without the cancel route, on both runtimes (docs/wire-protocol.md#cloud-job-control-listing-and-queue).
let sim: Simulator | undefined;
let cloud: CloudClient | undefined;
afterEach(async () => {
  await cloud?.close();
  await sim?.close();
  cloud = undefined;
  sim = undefined;
});

const FAST: CloudClientOptions['watcher'] = { socket: { minDelayMs: 10, maxDelayMs: 40, idleCloseMs: 5 }, poll: { minDelayMs: 100, maxDelayMs: 200, silenceMs: 5_000 } };

async function setup(options: SimulatorOptions = {}, client: Partial<CloudClientOptions> = {}): Promise<{ sim: Simulator; cloud: CloudClient }> {
  sim = await startSimulator({ stepDelayMs: 60, progressSteps: 2, ...options });
  cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, watcher: FAST, ...client });
  await cloud.files.upload(png(), { filename: 'cat.png' });
  return { sim, cloud };
}

const posts = (s: Simulator, path: string): number => s.state.requests.filter((r) => r.method === 'POST' && r.path === path).length;
const status = (s: Simulator, id: string) => s.state.jobs().find((job) => job.id === id)?.status;

// The running job of busy() must outlast the calls that cancel it, on a loaded machine too: at
// 60 ms a step it could end before cancel() reached the simulator (one run in about eight at load 8).
const SLOW_STEPS = { stepDelayMs: 250 };

/** One job running and one pending behind it, both watched. */
async function busy(c: CloudClient, s: Simulator) {
  const running = await c.jobs.submit(scaleWorkflow('cat.png', 20));
  const pending = await c.jobs.submit(scaleWorkflow('cat.png', 21));
  const watchers = { running: c.jobs.watch(running.promptId), pending: c.jobs.watch(pending.promptId) };
  await until(() => status(s, running.promptId) === 'in_progress');
  return { running: running.promptId, pending: pending.promptId, watchers };
}

describe.each(['cloud', 'local'] as const)('cloud.jobs.cancel() on a %s runtime', (runtime) => {
  it('uses the cancel route: a pending job is dequeued and a running one interrupted; each watcher settles as cancelled', async () => {
    const { sim, cloud } = await setup({ runtime, ...SLOW_STEPS });
    const { running, pending, watchers } = await busy(cloud, sim);
    expect(await cloud.jobs.cancel(pending)).toEqual({ cancelled: true, via: 'cancel', reason: undefined });
    expect(await cloud.jobs.cancel(running)).toEqual({ cancelled: true, via: 'cancel', reason: undefined });
    expect(await watchers.pending.result()).toMatchObject({ status: 'cancelled' });
    expect(await watchers.running.result()).toMatchObject({ status: 'cancelled' });
    await sim.state.waitForIdle();
    expect([status(sim, running), status(sim, pending)]).toEqual(['cancelled', 'cancelled']);
    expect(await cloud.jobs.cancel(running)).toEqual({ cancelled: false, via: undefined, reason: 'ended_or_unknown' });
    expect(posts(sim, '/api/interrupt') + posts(sim, '/interrupt')).toBe(0);
  });

  it('without the cancel route, removes a pending job from the queue, and its watcher settles as cancelled', async () => {
    const { sim, cloud } = await setup({ runtime, cancelRoutes: false, ...SLOW_STEPS });
    const { running, pending, watchers } = await busy(cloud, sim);
    expect(await cloud.jobs.cancel(pending)).toEqual({ cancelled: true, via: 'queue', reason: undefined });
    expect(await watchers.pending.result()).toMatchObject({ status: 'cancelled', via: 'poll', cancelRequested: true });
    expect(status(sim, pending)).toBe('cancelled');
    await cloud.jobs.cancel(running);
    await cloud.jobs.interruptAll();
    await watchers.running.result();
  });
});

describe('cloud.jobs.cancel() of a running job without the cancel route', () => {
  it('never interrupts on the cloud, where an interrupt stops every running job: it says so instead', async () => {
    const { sim, cloud } = await setup({ cancelRoutes: false, ...SLOW_STEPS });
    const { running, watchers } = await busy(cloud, sim);
    expect(await cloud.jobs.cancel(running)).toEqual({ cancelled: false, via: undefined, reason: 'running_not_cancellable' });
    expect(posts(sim, '/api/interrupt')).toBe(0);
    expect(status(sim, running)).toBe('in_progress');
    // The explicit call stops it.
    await cloud.jobs.interruptAll();
    expect(await watchers.running.result()).toMatchObject({ status: 'cancelled' });
    const interrupt = sim.state.requests.find((r) => r.path === '/api/interrupt');
    expect(interrupt?.headers['content-length'] ?? '0').toBe('0');
  });

  it('interrupts only that job on a local runtime', async () => {
    const { sim, cloud } = await setup({ runtime: 'local', cancelRoutes: false, ...SLOW_STEPS });
    const { running, pending, watchers } = await busy(cloud, sim);
    expect(await cloud.jobs.cancel(running)).toEqual({ cancelled: true, via: 'interrupt', reason: undefined });
    expect(await watchers.running.result()).toMatchObject({ status: 'cancelled' });
    expect(await watchers.pending.result()).toMatchObject({ status: 'completed' });
    expect(status(sim, pending)).toBe('completed');
  });
});

describe('cloud.runWorkflow() cancelOnAbort', () => {
  it('cancels the job when the signal aborts during the wait (the default), and rejects with the reason', async () => {
    const { sim, cloud } = await setup();
    const controller = new AbortController();
    let promptId = '';
    const run = cloud.runWorkflow(scaleWorkflow('cat.png'), {
      signal: controller.signal,
      onSubmitted: (s) => (promptId = s.promptId),
      onEvent: (e: WatchEvent) => e.type === 'executing' && controller.abort(new Error('user stopped')),
    });
    await expect(run).rejects.toThrow('user stopped');
    expect(posts(sim, `/api/jobs/${promptId}/cancel`)).toBe(1);
    await sim.state.waitForIdle();
    expect(status(sim, promptId)).toBe('cancelled');
  });

  it('cancels the job when waitTimeout passes; the TimeoutError still names it', async () => {
    const { sim, cloud } = await setup({ stepDelayMs: 300 });
    const error = await cloud.runWorkflow(scaleWorkflow('cat.png'), { waitTimeout: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    const promptId = (error as TimeoutError).submitted?.kind === 'job' ? ((error as TimeoutError).submitted as { promptId: string }).promptId : '';
    expect(posts(sim, `/api/jobs/${promptId}/cancel`)).toBe(1);
    await sim.state.waitForIdle();
    expect(status(sim, promptId)).toBe('cancelled');
  });

  it('leaves the job running with cancelOnAbort: false', async () => {
    const { sim, cloud } = await setup();
    const controller = new AbortController();
    let promptId = '';
    const run = cloud.runWorkflow(scaleWorkflow('cat.png'), { signal: controller.signal, cancelOnAbort: false, onSubmitted: (s) => (promptId = s.promptId), onEvent: (e) => e.type === 'executing' && controller.abort() });
    await expect(run).rejects.toBeDefined();
    await sim.state.waitForIdle();
    expect(status(sim, promptId)).toBe('completed');
    expect(sim.state.requests.some((r) => r.path.endsWith('/cancel'))).toBe(false);
  });

  it('rejects with JobFailedError (status cancelled) when the job is cancelled from elsewhere', async () => {
    const { cloud } = await setup();
    const error = await cloud.runWorkflow(scaleWorkflow('cat.png'), { onSubmitted: ({ promptId }) => void cloud.jobs.cancel(promptId) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect((error as JobFailedError).status).toBe('cancelled');
  });

  it('refuses a cancelOnAbort that is not a boolean before anything is sent', async () => {
    const { sim, cloud } = await setup();
    sim.state.clearRequests();
    await expect(cloud.runWorkflow(scaleWorkflow('cat.png'), { cancelOnAbort: 'yes' as never })).rejects.toThrow('options.cancelOnAbort');
    expect(sim.state.requests).toHaveLength(0);
  });
});
