import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS, NotFoundError } from '../../src/index.js';
import { CloudClient } from '../../src/index.js';
import { type CloudClientOptions } from '../../src/cloud/client.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { png, scaleWorkflow, until } from './helpers.js';

// A job deleted from a local runtime's queue is in neither its queue nor its history afterwards
// (docs/wire-protocol.md#cloud-local-runtimes): a watch of it must end, not wait for waitTimeout.
let sim: Simulator | undefined;
const clients: CloudClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await sim?.close();
  sim = undefined;
});

// Reads come quickly: after 100 ms of silence, or on a short backoff while the socket is down.
const QUICK: CloudClientOptions['watcher'] = { socket: { idleCloseMs: 5 }, poll: { minDelayMs: 100, maxDelayMs: 200, silenceMs: 100 } };
const client = (s: Simulator): CloudClient => {
  const created = new CloudClient({ baseUrl: s.cloudUrl, apiKey: s.apiKey, watcher: QUICK });
  clients.push(created);
  return created;
};
const status = (s: Simulator, id: string) => s.state.jobs().find((job) => job.id === id)?.status;

/** One job running, one pending behind it (not watched). */
async function busy(s: Simulator, c: CloudClient): Promise<{ running: string; pending: string }> {
  await c.files.upload(png(), { filename: 'cat.png' });
  const running = (await c.jobs.submit(scaleWorkflow('cat.png', 20))).promptId;
  const pending = (await c.jobs.submit(scaleWorkflow('cat.png', 21))).promptId;
  await until(() => status(s, running) === 'in_progress');
  return { running, pending };
}

describe.each([
  ['a local runtime without the cancel route', { runtime: 'local', cancelRoutes: false }],
  ['a local runtime with the cancel route', { runtime: 'local', cancelRoutes: true }],
  ['the cloud', { runtime: 'cloud', cancelRoutes: false }],
] as const)('cloud.jobs.watch() of a queued job this client cancelled, on %s', (_name, options) => {
  it('ends as cancelled, though the job is nowhere to be found', async () => {
    sim = await startSimulator({ stepDelayMs: 100, progressSteps: 2, ...options });
    const cloud = client(sim);
    const { running, pending } = await busy(sim, cloud);
    expect(await cloud.jobs.cancel(pending)).toMatchObject({ cancelled: true });
    // Watched after the cancel: no watcher was there to be told.
    const result = await cloud.jobs.watch(pending, { waitTimeout: 10_000 }).result();
    expect(result).toMatchObject({ promptId: pending, status: 'cancelled', error: { message: expect.stringContaining('cancelled') } });
    await cloud.jobs.watch(running).result();
  });
});

describe('cloud.jobs.watch() of a job in neither the queue nor the history of a local runtime', () => {
  it(`fails with a NotFoundError after DEFAULTS.cloud.absentReads (${DEFAULTS.cloud.absentReads}) reads in a row when this client did not cancel it`, async () => {
    sim = await startSimulator({ runtime: 'local', cancelRoutes: false, stepDelayMs: 100, progressSteps: 2 });
    const cloud = client(sim);
    const { running, pending } = await busy(sim, cloud);
    // Another client takes it out of the queue.
    expect(await client(sim).jobs.cancel(pending)).toMatchObject({ cancelled: true, via: 'queue' });
    sim.state.clearRequests();
    const error = await cloud.jobs.watch(pending, { waitTimeout: 10_000 }).result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).message).toContain(`Job ${pending} is in neither the queue nor the history`);
    expect((error as NotFoundError).code).toBe('job_not_found');
    // Each read asks the history, then the queue, then the history again (a job that ended between
    // the first two is in it by then).
    expect(sim.state.requests.filter((r) => r.path === `/history/${pending}`)).toHaveLength(2 * DEFAULTS.cloud.absentReads);
    expect(sim.state.requests.filter((r) => r.path.endsWith('/queue'))).toHaveLength(DEFAULTS.cloud.absentReads);
    await cloud.jobs.watch(running).result();
  });
});
