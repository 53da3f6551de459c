// Guarantee 2: nothing is lost. Results survive the adding process, the worker and a Redis
// restart (append-only file on); uploads go to the cloud when the run is added; a run's data is
// bounded in bytes.
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError, type JobResult } from '../../src/index.js';
import { RunQueue } from '../../src/queue/index.js';
import { photoRun, reach, startWorld, type QueueWorld } from './setup.js';

let world: QueueWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('RunQueue: nothing is lost', { timeout: 60_000 }, () => {
  it('a result outlives the process that added the run, the worker that ran it, and a Redis restart', async () => {
    world = await startWorld();
    const adder = new RunQueue({ connection: world.redis.url, name: world.name, cloud: { baseUrl: world.sim.cloudUrl, apiKey: world.sim.apiKey } });
    await adder.add(photoRun(), { id: 'outlives' });
    // The file went to the cloud when the run was added: no worker needs the adder's disk.
    expect(world.sim.state.files('input')).toHaveLength(1);
    await adder.close();
    const worker = await world.worker();
    const promptId = ((await world.queue.run('outlives').result()) as JobResult).promptId;
    await worker.stop();
    await world.queue.close();
    await world.redis.restart();
    await using later = new RunQueue({ connection: world.redis.url, name: world.name });
    expect(await later.get('outlives')).toMatchObject({ state: 'completed', promptId, result: { status: 'completed', promptId } });
    expect(((await later.run('outlives').result()) as JobResult).outputs['3']).toBeDefined();
  });

  it('a run in flight when Redis restarts ends with its result, submitted once', async () => {
    world = await startWorld({ stepDelayMs: 80 });
    await world.worker();
    const run = await world.queue.add(photoRun(), { id: 'through-restart' });
    await reach(world.queue, run.id, 'running');
    await world.redis.restart();
    const result = (await run.result()) as JobResult;
    expect(result.status).toBe('completed');
    expect(world.submissions()).toBe(1);
  });

  it('refuses, when added, a run beyond maxRunBytes, and file bytes in inputs: nothing is stored', async () => {
    world = await startWorld();
    await using small = new RunQueue({ connection: world.redis.url, name: world.name, maxRunBytes: 4096 });
    const big = { ...photoRun(), uploads: undefined, inputs: { '3.filename_prefix': 'x'.repeat(5000) } };
    const error = await small.add(big).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toContain('at most 4096 bytes');
    const bytes = await small.add({ ...photoRun(), uploads: undefined, inputs: { '3.filename_prefix': new Uint8Array(4) } }).then(() => undefined, (e: unknown) => e);
    expect(bytes).toBeInstanceOf(ValidationError);
    expect((await small.status()).counts).toEqual({ waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0 });
  });
});
