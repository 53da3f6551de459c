import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';

const sims: Simulator[] = [];
const warnings: Error[] = [];
const onWarning = (warning: Error): number => warnings.push(warning);
afterEach(async () => {
  process.off('warning', onWarning);
  warnings.length = 0;
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

describe('the simulator under many waits at once', () => {
  // Every delayed answer, stalled body and running job waits on the simulator's life signal: 11
  // of them at once made Node print "MaxListenersExceededWarning: Possible EventTarget memory leak".
  it('answers 30 delayed and 30 stalled requests at once without a leak warning', async () => {
    process.on('warning', onWarning);
    const s = await startSimulator({ stepDelayMs: 0 });
    sims.push(s);
    s.faults.set({ delayMs: 100 });
    const delayed = Array.from({ length: 30 }, async () => (await fetch(`${s.cloudUrl}/api/queue`, { headers: { 'X-API-Key': s.apiKey } })).status);
    expect(await Promise.all(delayed)).toEqual(Array.from({ length: 30 }, () => 200));
    s.faults.set({ delayMs: 0 });
    s.faults.failRequests({ path: '/api/queue', stallBodyMs: 100, times: 30 });
    const stalled = Array.from({ length: 30 }, async () => (await (await fetch(`${s.cloudUrl}/api/queue`, { headers: { 'X-API-Key': s.apiKey } })).json()) as unknown);
    expect(await Promise.all(stalled)).toHaveLength(30);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
  });
});
