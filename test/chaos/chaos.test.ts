// About 200 concurrent runs against a simulator that drops and refuses sockets, stalls status
// bodies, answers 5xx and restarts, in each profile (the intense one also on a local runtime); `npm run chaos` runs 1,000 (scripts/chaos.mjs).
// GRAPHCLOUD_CHAOS_JOBS changes the count here.
import { describe, expect, it } from 'vitest';
import { formatTable, runChaos } from './run-chaos.js';

const JOBS = Number(process.env.GRAPHCLOUD_CHAOS_JOBS ?? 200);

describe('cloud.runWorkflow() under chaos', () => {
  it(`resolves ${JOBS} concurrent runs with their own outputs: no hang, no duplicate, no unhandled rejection, no credential`, async () => {
    const report = await runChaos({ jobs: JOBS, concurrency: 50, seed: 1, hangMs: 90_000 });
    console.log(formatTable(report));
    expect(report).toMatchObject({ correct: JOBS, hangs: 0, duplicateSubmissions: 0, unhandledRejections: 0, credentialsFound: 0, foreignErrors: 0 });
    // The faults did happen.
    expect(report.faults.socketDrops).toBeGreaterThan(0);
    expect(report.faults.restarts).toBeGreaterThan(0);
    expect(report.faults.stalledBodies + report.faults.serverErrors).toBeGreaterThan(0);
  }, 180_000);

  it(`resolves ${JOBS} runs of the intense profile each with the status the server recorded: lost end messages, failing and cancelled runs`, async () => {
    const report = await runChaos({ jobs: JOBS, concurrency: 50, seed: 2, hangMs: 90_000, profile: 'intense' });
    console.log(formatTable(report));
    expect(report).toMatchObject({ correct: JOBS, wrong: 0, hangs: 0, duplicateSubmissions: 0, unhandledRejections: 0, credentialsFound: 0, foreignErrors: 0 });
    expect(report.endsDropped).toBeGreaterThan(0);
    expect(report.failing).toBeGreaterThan(0);
    expect(report.cancelsAccepted).toBeGreaterThan(0);
  }, 180_000);

  it(`resolves ${JOBS} runs of the intense profile on a local runtime each with the status it recorded: cancels are queue deletes and interrupts, a status is read from the history, then the queue`, async () => {
    const report = await runChaos({ jobs: JOBS, concurrency: 50, seed: 2, hangMs: 90_000, profile: 'intense', runtime: 'local' });
    console.log(formatTable(report));
    expect(report).toMatchObject({ runtime: 'local', correct: JOBS, wrong: 0, hangs: 0, duplicateSubmissions: 0, unhandledRejections: 0, credentialsFound: 0, foreignErrors: 0 });
    expect(report.endsDropped).toBeGreaterThan(0);
    expect(report.cancelsAccepted).toBeGreaterThan(0);
  }, 180_000);
});
