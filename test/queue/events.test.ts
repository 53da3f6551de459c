// run.events(), queue.list() and media tasks, with a real redis-server and a worker process.
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError, type JobResult } from '../../src/index.js';
import { RunQueue, type RunEvent } from '../../src/queue/index.js';
import { photoRun, startWorld, type QueueWorld } from './setup.js';

let world: QueueWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('Run.events() and RunQueue.list()', { timeout: 60_000 }, () => {
  it('yields the states in order and the progress of a run that another process runs, to any process', async () => {
    world = await startWorld({ stepDelayMs: 30 });
    const run = await world.queue.add(photoRun(), { id: 'watched' });
    // Followed from a process that did not add it (another handle, another connection).
    await using elsewhere = new RunQueue({ connection: world.redis.url, name: world.name });
    const events: RunEvent[] = [];
    const following = (async () => {
      for await (const event of elsewhere.run(run.id).events()) events.push(event);
    })();
    await world.worker();
    await following;
    const states = events.filter((event) => event.type === 'state').map((event) => (event.type === 'state' ? event.state : ''));
    expect(states[0]).toBe('queued');
    expect(states.at(-1)).toBe('completed');
    expect(states).toEqual([...new Set(states)]);
    expect(['queued', 'submitting', 'running', 'completed']).toEqual(expect.arrayContaining(states));
    const fractions = events.flatMap((event) => (event.type === 'progress' ? [event.progress.fraction] : []));
    expect(fractions.length).toBeGreaterThan(0);
    expect(fractions.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= fractions[i - 1]!))).toBe(true);
    expect((await run.get())?.progress).toEqual({ fraction: 1 });
    const result = (await run.result()) as JobResult;
    expect(Object.keys(result.outputs)).toEqual(['3']);
    expect(await world.queue.get(run.id)).toMatchObject({ state: 'completed', kind: 'workflow', promptId: result.promptId, takeovers: 0 });
    expect(world.submissions()).toBe(1);
  });

  it("takes a run's outputs from the socket: no read of its job record when its output node sent them, cached nodes or not", async () => {
    world = await startWorld();
    await world.worker();
    await (await world.queue.add(photoRun(16), { id: 'first' })).result();
    // The same image again: its LoadImage is cached (no `executed`), its SaveImage is not.
    const result = (await (await world.queue.add(photoRun(17), { id: 'second' })).result()) as JobResult;
    expect(Object.keys(result.outputs)).toEqual(['3']);
    expect(result.outputsComplete).toBe(true);
    expect(world.sim.state.requests.filter((r) => r.method === 'GET' && r.path === `/api/jobs/${result.promptId}`)).toEqual([]);
  });

  it('lists runs by state, a page at a time', async () => {
    world = await startWorld();
    for (let i = 0; i < 5; i += 1) await world.queue.add({ ...photoRun(16 + i), uploads: undefined, workflow: { ...photoRun(16 + i).workflow, '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } } } }, { id: `listed-${i}` });
    const first = await world.queue.list({ state: 'queued', limit: 2 });
    expect(first.runs.map((run) => run.id)).toEqual(['listed-0', 'listed-1']);
    expect(first.hasMore).toBe(true);
    const last = await world.queue.list({ state: 'queued', offset: 4, limit: 2 });
    expect(last).toMatchObject({ offset: 4, hasMore: false });
    expect(last.runs.map((run) => run.id)).toEqual(['listed-4']);
    expect((await world.queue.list({ state: 'completed' })).runs).toEqual([]);
    expect((await world.queue.status()).counts.waiting).toBe(5);
  });

  it('checks its options and arguments when given, naming them, before Redis is touched', async () => {
    world = await startWorld();
    expect(() => new RunQueue({ connection: 'http://x', name: 'a' })).toThrow(/options\.connection/);
    expect(() => new RunQueue({ connection: world!.redis.url, name: 'a:b' })).toThrow(ValidationError);
    expect(() => new RunQueue({ connection: world!.redis.url, name: 'a', maxRunBytes: -1 } as never)).toThrow(/options\.maxRunBytes/);
    await expect(world.queue.add({ task: 'image.nope!', params: {} })).rejects.toThrow(/spec\.task/);
    await expect(world.queue.add(photoRun(), { id: '1234' })).rejects.toThrow(/options\.id/);
    await expect(world.queue.setConcurrency(0)).rejects.toThrow(ValidationError);
    await expect(world.queue.list({ state: 'lost' as never })).rejects.toThrow(/options\.state/);
    expect((await world.queue.status()).counts.waiting).toBe(0);
  });

  it('runs a media task with the proxy and stores its task id', async () => {
    world = await startWorld({ taskDurationMs: 200 });
    await world.worker({ GC_PROXY_URL: world.sim.proxyUrl });
    const run = await world.queue.add({ task: 'image.upscale', params: { image: 'https://example.com/a.png', scale_factor: '2x' } }, { id: 'task-1' });
    const result = (await run.result()) as { urls?: string[] };
    expect(result.urls?.length).toBeGreaterThan(0);
    const info = await world.queue.get('task-1');
    expect(info).toMatchObject({ state: 'completed', kind: 'task', runtime: world.sim.proxyUrl });
    expect(info?.taskId).toBeTypeOf('string');
  });
});
