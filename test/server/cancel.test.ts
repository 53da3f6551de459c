import { afterEach, describe, expect, it } from 'vitest';
import { JOB_TOKEN_HEADER } from '../../src/server/index.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { png, scaleByWorkflow, startRelay, submit, upload, type RunningRelay } from './helpers.js';

async function until(predicate: () => boolean): Promise<void> {
  for (let turn = 0; turn < 5_000 && !predicate(); turn++) await new Promise((resolve) => setTimeout(resolve, 1));
  if (!predicate()) throw new Error('condition never became true');
}

describe('relay: cancelling a job', () => {
  let sim: Simulator;
  let relay: RunningRelay;
  /** A simulator whose steps are slow enough that a second job waits while the first runs. */
  const start = async (cancelRoutes: boolean) => {
    sim = await startSimulator({ stepDelayMs: 40, progressSteps: 3, cancelRoutes });
    relay = await startRelay(sim);
  };
  const cancel = (promptId: string, token: string) => fetch(`${relay.url}/api/jobs/${promptId}/cancel`, { method: 'POST', headers: { [JOB_TOKEN_HEADER]: token } });
  const status = (promptId: string) => sim.state.jobs().find((job) => job.id === promptId)?.status;
  /** Two jobs: the first running, the second waiting in the queue. */
  const twoJobs = async () => {
    const name = await upload(relay.url, png(6, 6, 41));
    const running = await submit(relay.url, scaleByWorkflow(name, 2, 'c1'));
    const pending = await submit(relay.url, scaleByWorkflow(name, 3, 'c1'));
    await until(() => status(running.prompt_id) === 'in_progress');
    return { running, pending };
  };

  afterEach(async () => {
    await relay.close();
    await sim.close();
  });

  it('refuses a cancel without the job’s token', async () => {
    await start(true);
    const name = await upload(relay.url, png(4, 4, 40));
    const job = await submit(relay.url, scaleByWorkflow(name, 2, 'c0'));
    const other = await submit(relay.url, scaleByWorkflow(name, 3, 'c0'));
    expect((await fetch(`${relay.url}/api/jobs/${job.prompt_id}/cancel`, { method: 'POST' })).status).toBe(403);
    expect((await cancel(job.prompt_id, other.relay_token)).status).toBe(403);
    await sim.state.waitForIdle();
  });

  it('forwards the cancel route to a server that has it: a running job stops', async () => {
    await start(true);
    const { running } = await twoJobs();
    expect(await (await cancel(running.prompt_id, running.relay_token)).json()).toEqual({ cancelled: true });
    await sim.state.waitForIdle();
    expect(status(running.prompt_id)).toBe('cancelled');
  });

  it('on a server without the cancel route: dequeues a pending job itself, and never interrupts a running one', async () => {
    await start(false);
    const { running, pending } = await twoJobs();
    const dequeued = await cancel(pending.prompt_id, pending.relay_token);
    expect(await dequeued.json()).toEqual({ cancelled: true });
    expect(status(pending.prompt_id)).toBe('cancelled');
    const refused = await cancel(running.prompt_id, running.relay_token);
    expect(await refused.json()).toEqual({ cancelled: false, reason: 'running_not_cancellable' });
    await sim.state.waitForIdle();
    expect(status(running.prompt_id)).toBe('completed');
    // The account-wide interrupt was never sent.
    expect(sim.state.requests.filter((r) => r.path === '/api/interrupt')).toEqual([]);
    expect(await (await cancel(running.prompt_id, running.relay_token)).json()).toEqual({ cancelled: false, reason: 'ended_or_unknown' });
  });
});
