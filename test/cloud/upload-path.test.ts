import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/index.js';
import { startSimulator } from '../../src/testing/index.js';
import { png, scaleWorkflow } from './helpers.js';

// Against the simulator on 127.0.0.1 (no msw in this file): a path upload is streamed for real.
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gc-upload-path-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('cloud.runWorkflow() with a file path', () => {
  it('uploads the file to the simulator and runs on it', async () => {
    await writeFile(join(dir, 'cat.png'), png(20, 10));
    const sim = await startSimulator({ stepDelayMs: 0 });
    const cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey });
    try {
      const result = await cloud.runWorkflow(scaleWorkflow('placeholder.png'), { uploads: { '1.image': join(dir, 'cat.png') } });
      expect(result.status).toBe('completed');
      expect(sim.state.files('input')).toContain('cat.png');
    } finally {
      await cloud.close();
      await sim.close();
    }
  });
});
