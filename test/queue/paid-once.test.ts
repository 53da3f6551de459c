// Guarantee 1: nothing is paid twice. Real redis-server, real worker processes, the simulator.
import { afterEach, describe, expect, it } from 'vitest';
import { SubmissionUnknownError, type JobResult } from '../../src/index.js';
import { RunUnknownError } from '../../src/queue/index.js';
import { photoRun, reach, startWorld, type QueueWorld } from './setup.js';

let world: QueueWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('RunWorker: nothing is paid twice', { timeout: 60_000 }, () => {
  it('a worker killed mid-run leaves its run to another, which watches the stored prompt id and never submits again', async () => {
    world = await startWorld({ stepDelayMs: 60 });
    const first = await world.worker();
    const run = await world.queue.add(photoRun(), { id: 'killed-mid-run' });
    await reach(world.queue, run.id, 'running');
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await world.worker();
    const result = (await run.result()) as JobResult;
    expect(result.status).toBe('completed');
    expect(world.submissions()).toBe(1);
    expect(world.sim.state.jobs().map((job) => job.id)).toEqual([result.promptId]);
    expect(await world.queue.get(run.id)).toMatchObject({ state: 'completed', promptId: result.promptId, takeovers: 1 });
    await second.waitFor((line) => String(line.log).includes(`run ${run.id}: taken over, watching ${result.promptId}`));
  });

  it('a worker killed while it checks the workflow against the node catalog leaves the run unmarked: the next one sends it, once', async () => {
    world = await startWorld({ stepDelayMs: 20 });
    // The catalog read is held: the worker dies before its check ends, before anything is sent.
    world.sim.faults.failRequests({ path: /object_info/, method: 'GET', delayMs: 60_000, times: 1 });
    const first = await world.worker();
    const run = await world.queue.add(photoRun(), { id: 'killed-while-checking' });
    while (!world.sim.state.requests.some((r) => r.path.includes('object_info'))) await new Promise((resolve) => setTimeout(resolve, 10));
    // Checked before it is marked: nothing says "submitting", so no takeover needs to search for it.
    expect(await world.queue.get(run.id)).toMatchObject({ state: 'queued' });
    first.child.kill('SIGKILL');
    await first.exited;
    await world.worker();
    const result = (await run.result()) as JobResult;
    expect(result.status).toBe('completed');
    expect(world.submissions()).toBe(1);
  });

  it('a worker killed after sending but before storing the answer: the next one finds the tagged job and watches it', async () => {
    world = await startWorld({ stepDelayMs: 20 });
    // The job is created, and the answer's body held: the worker dies waiting for it.
    world.sim.faults.failRequests({ path: '/api/prompt', method: 'POST', stallBodyMs: 60_000, times: 1 });
    const first = await world.worker();
    const run = await world.queue.add(photoRun(), { id: 'killed-while-sending' });
    await reach(world.queue, run.id, 'submitting');
    while (world.sim.state.jobs().length === 0) await new Promise((resolve) => setImmediate(resolve));
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await world.worker();
    const result = (await run.result()) as JobResult;
    expect(result.status).toBe('completed');
    expect(world.submissions()).toBe(1);
    expect(world.sim.state.jobs().map((job) => job.id)).toEqual([result.promptId]);
    await second.waitFor((line) => String(line.log).includes(`found its submission ${result.promptId}`));
  });

  it('a run whose submission cannot be found ends unknown with everything known, and is never sent again', async () => {
    world = await startWorld({ stepDelayMs: 20 });
    // The request is held before the simulator reads it: no job exists when the worker dies.
    world.sim.faults.failRequests({ path: '/api/prompt', method: 'POST', delayMs: 60_000, times: 1 });
    // A recovery window shorter than the takeover: the search after it is final.
    const first = await world.worker({ GC_RECOVER_MS: '1000' });
    const run = await world.queue.add(photoRun(), { id: 'lost-submission' });
    await reach(world.queue, run.id, 'submitting');
    while (world.submissions() === 0) await new Promise((resolve) => setImmediate(resolve));
    first.child.kill('SIGKILL');
    await first.exited;
    await world.worker({ GC_RECOVER_MS: '1000' });
    const error = await run.result().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(RunUnknownError);
    expect(error).toBeInstanceOf(SubmissionUnknownError);
    expect(error).toMatchObject({ runId: run.id, runtime: world.sim.cloudUrl, searched: 0 });
    expect((error as Error).message).toContain('it was not submitted again');
    expect(await world.queue.get(run.id)).toMatchObject({ state: 'unknown', error: { name: 'RunUnknownError' }, takeovers: 1 });
    expect(world.submissions()).toBe(1);
    expect(world.sim.state.jobs()).toEqual([]);
  });

  it('on a local runtime, the run killed after sending is looked up by the prompt id chosen before sending', async () => {
    world = await startWorld({ runtime: 'local', stepDelayMs: 20 });
    world.sim.faults.failRequests({ path: '/api/prompt', method: 'POST', stallBodyMs: 60_000, times: 1 });
    const first = await world.worker();
    const run = await world.queue.add(photoRun(), { id: 'local-killed-while-sending' });
    await reach(world.queue, run.id, 'submitting');
    while (world.sim.state.jobs().length === 0) await new Promise((resolve) => setImmediate(resolve));
    const [job] = world.sim.state.jobs();
    // The id was stored before the request left: the queue names it already.
    expect((await world.queue.get(run.id))?.promptId).toBe(job?.id);
    first.child.kill('SIGKILL');
    await first.exited;
    await world.worker();
    const result = (await run.result()) as JobResult;
    expect(result).toMatchObject({ status: 'completed', promptId: job?.id });
    expect(world.submissions()).toBe(1);
  });
});
