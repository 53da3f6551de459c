import { afterEach, describe, expect, it } from 'vitest';
import type { JobResult } from '../../src/index.js';
import { photoRun, startWorld, type QueueWorld } from './setup.js';

let world: QueueWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('RunQueue and RunWorker', { timeout: 60_000 }, () => {
  it('runs a run added in one process in a worker process, and any process reads its result', async () => {
    world = await startWorld();
    await world.worker();
    const run = await world.queue.add(photoRun(), { id: 'order-1' });
    const result = (await run.result()) as JobResult;
    expect(result.status).toBe('completed');
    expect(Object.keys(result.outputs)).toEqual(['3']);
    const info = await world.queue.get('order-1');
    expect(info).toMatchObject({ id: 'order-1', state: 'completed', kind: 'workflow', promptId: result.promptId, takeovers: 0 });
    expect(world.submissions()).toBe(1);
  });
});
