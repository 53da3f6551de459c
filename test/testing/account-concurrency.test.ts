import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { json, png, scaleWorkflow, submit, upload } from './helpers.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** Submits `count` runs of distinct workflows at once and waits for all of them to end. */
async function submitMany(s: Simulator, count: number): Promise<void> {
  await upload(s, 'cat.png', png());
  const answers = await Promise.all(Array.from({ length: count }, (_, i) => submit(s, { prompt: scaleWorkflow('cat.png', 16 + i, `p${i}`) })));
  for (const answer of answers) expect((await json(answer)).prompt_id).toBeTypeOf('string');
  await s.state.waitForIdle();
}

describe('simulator accountConcurrency', () => {
  it('runs one job of the account at a time by default; the others wait pending', async () => {
    sim = await startSimulator({ stepDelayMs: 20 });
    await submitMany(sim, 4);
    expect(sim.state.peaks()).toEqual({ running: 1, unfinished: 4 });
    expect(sim.state.jobs().map((job) => job.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
  });

  it('runs up to accountConcurrency jobs at once, never more', async () => {
    sim = await startSimulator({ stepDelayMs: 20, accountConcurrency: 2 });
    await submitMany(sim, 5);
    expect(sim.state.peaks()).toEqual({ running: 2, unfinished: 5 });
    expect(sim.state.jobs().every((job) => job.status === 'completed')).toBe(true);
  });
});
