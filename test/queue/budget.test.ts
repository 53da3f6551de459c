// Guarantee 7: a budget across workers. Real redis-server, real worker processes, the simulator's
// partner nodes (priced by their badges, charged by their `Price:` texts).
import { afterEach, describe, expect, it } from 'vitest';
import { CloudClient, type JobResult } from '../../src/index.js';
import { reach, startWorld, until, type QueueWorld } from './setup.js';
import { PRICED_NODE, pricedRun } from './priced.js';

let world: QueueWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The estimate's maximum of one priced run, as a worker reads it. */
async function estimateOf(w: QueueWorld): Promise<number> {
  await using cloud = new CloudClient({ baseUrl: w.sim.cloudUrl, apiKey: w.sim.apiKey, runtime: 'cloud' });
  return (await cloud.estimateCost(pricedRun(0).workflow)).usd.max;
}

describe('RunQueue.setBudget(): a budget across every worker', { timeout: 90_000 }, () => {
  it('is never crossed when 12 runs on three worker processes race for the last dollars; the queue pauses with the reason budget', async () => {
    world = await startWorld({ stepDelayMs: 5, accountConcurrency: 12 });
    const each = await estimateOf(world);
    expect(each).toBeGreaterThan(0);
    // Room for 4 runs and a half: the 5th would cross.
    await world.queue.setBudget({ usd: each * 4.5 });
    const runs = await Promise.all(Array.from({ length: 12 }, (_, i) => world!.queue.add(pricedRun(i), { id: `race-${i}` })));
    await Promise.all([world.worker({ GC_CONCURRENCY: '4' }), world.worker({ GC_CONCURRENCY: '4' }), world.worker({ GC_CONCURRENCY: '4' })]);
    await until(async () => (await world!.queue.getPauseReason())?.kind === 'budget');
    // Every run sent completes; the others stay in line, never sent.
    const states = async () => (await Promise.all(runs.map((run) => run.get()))).map((info) => info?.state);
    await until(async () => (await states()).filter((state) => state === 'completed').length === world!.submissions() && (await world!.queue.status()).budget?.reserved === 0);
    expect(world.submissions()).toBe(4);
    const infos = await Promise.all(runs.map((run) => run.get()));
    const completed = infos.filter((info) => info?.state === 'completed');
    expect(completed).toHaveLength(4);
    expect(infos.filter((info) => info?.state === 'queued')).toHaveLength(8);
    // Settled with what each spent (the server's price texts), within the budget.
    const spent = completed.reduce((sum, info) => sum + (info?.cost?.usd ?? each), 0);
    const status = await world.queue.status();
    expect(status.pauseReason).toMatchObject({ kind: 'budget', error: { name: 'BudgetExceededError' } });
    expect(status.budget?.spent).toBeCloseTo(spent, 5);
    expect(status.budget!.spent).toBeLessThanOrEqual(each * 4.5);
  });

  it('settles a run with what the server said it spent, not with its estimate', async () => {
    // Slow enough for the worker's socket, opened once the submission is answered, to hear the price.
    world = await startWorld({ stepDelayMs: 250 });
    await world.queue.setBudget({ usd: 10 });
    await world.worker();
    // A badge that gives a range ($0.10 to $0.30): the server charges $0.20.
    const run = await world.queue.add(pricedRun(7, 'SimPricedRange'), { id: 'ranged' });
    const result = (await run.result()) as JobResult;
    expect(result.cost).toEqual({ credits: 42.2, usd: 0.2, byNode: { [PRICED_NODE]: 42.2 } });
    expect((await run.get())?.cost).toEqual(result.cost);
    expect((await world.queue.status()).budget).toMatchObject({ limit: 10, reserved: 0, spent: 0.2 });
  });

  it('a killed worker leaves its reservation to the worker that takes the run over, which settles it', async () => {
    world = await startWorld({ stepDelayMs: 150 });
    await world.queue.setBudget({ usd: 100 });
    const first = await world.worker();
    const run = await world.queue.add(pricedRun(1, 'SimPricedRange', 3), { id: 'killed' });
    await reach(world.queue, run.id, 'running');
    expect((await world.queue.status()).budget).toMatchObject({ reserved: 0.3, spent: 0 });
    first.child.kill('SIGKILL');
    await first.exited;
    await world.worker();
    const result = (await run.result()) as JobResult;
    expect(result.status).toBe('completed');
    expect(world.submissions()).toBe(1);
    // What the taking-over worker heard of the run's price, or (a price sent before it watched) the reservation.
    await until(async () => (await world!.queue.status()).budget?.reserved === 0);
    expect((await world.queue.status()).budget).toMatchObject({ reserved: 0, spent: result.cost?.usd ?? 0.3 });
  });

  it('a workflow with a partner node of unknown price fails under a budget, and is never sent', async () => {
    world = await startWorld({ stepDelayMs: 5 });
    await world.queue.setBudget({ usd: 100 });
    await world.worker();
    const run = await world.queue.add(pricedRun(2, 'SimPricedText'), { id: 'unpriced' });
    await expect(run.result()).rejects.toMatchObject({ error: { name: 'UnpricedRunError' } });
    expect(world.submissions()).toBe(0);
    expect((await world.queue.status()).budget).toMatchObject({ reserved: 0, spent: 0 });
  });
});
