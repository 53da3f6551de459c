import { describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/index.js';
import { startSimulator } from '../../src/testing/index.js';
// @ts-expect-error: plain JavaScript shared by every runtime, no declarations.
import { smokePng, smokeWorkflow } from './smoke-workflow.mjs';

type Workflow = Record<string, { class_type: string; inputs: Record<string, unknown> }>;
const build = smokeWorkflow as () => Workflow;

describe('the runtime smoke workflow', () => {
  // Six runtimes share one simulator in CI; a repeated workflow is served from cache with no
  // progress, and the smoke's progress check failed (node26, CI run of 2d9da31).
  it('is a workflow no earlier run submitted, 5,000 times over', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i += 1) seen.add(JSON.stringify(build()));
    expect(seen.size).toBe(5_000);
  });

  it('reports progress on every run against one simulator, cache and all', async () => {
    const sim = await startSimulator({ stepDelayMs: 0, progressSteps: 2 });
    const cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey });
    try {
      const png = (smokePng as () => Uint8Array<ArrayBuffer>)();
      for (let run = 0; run < 3; run += 1) {
        let progress = 0;
        const result = await cloud.runWorkflow(build(), {
          uploads: { '1.image': { file: new Blob([png], { type: 'image/png' }), filename: 'smoke.png' } },
          onProgress: () => (progress += 1),
        });
        expect(result.status).toBe('completed');
        expect(progress, `run ${run}`).toBeGreaterThan(0);
      }
    } finally {
      await cloud.close();
      await sim.close();
    }
  });
});
