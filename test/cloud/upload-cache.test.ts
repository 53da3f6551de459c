// cloud.files.upload() sends each distinct content once per client (UploadCache, src/cloud/files.ts),
// counted in the simulator's upload requests (127.0.0.1, no msw).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/index.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { png, scaleWorkflow } from './helpers.js';

let dir = '';
let sim: Simulator;
let cloud: CloudClient;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gc-upload-cache-'));
  sim = await startSimulator({ stepDelayMs: 0 });
});
afterEach(async () => {
  await cloud?.close();
  sim.faults.reset();
});
afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

const uploads = (): number => sim.state.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/api/upload/') && !r.internal).length;
const client = (): CloudClient => (cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey }));

describe('cloud.files.upload(): one request per distinct content and options', () => {
  it('a path named by 40 runs is uploaded once, in sequence and concurrently, and every run uses it', async () => {
    const path = join(dir, 'photo.png');
    await writeFile(path, png(20, 10));
    const files = client().files;
    const before = uploads();
    const first = await files.upload(path);
    expect(await files.upload(path)).toEqual(first);
    const together = await Promise.all(Array.from({ length: 20 }, () => files.upload(path)));
    expect(together.every((r) => r.name === first.name)).toBe(true);
    const runs = await Promise.all(Array.from({ length: 18 }, (_, i) => cloud.runWorkflow(scaleWorkflow('placeholder.png', 8 + i), { uploads: { '1.image': path } })));
    expect(runs.every((r) => r.status === 'completed')).toBe(true);
    expect(uploads() - before).toBe(1);
  });

  it('concurrent identical uploads share one request', async () => {
    const files = client().files;
    const bytes = png(7, 7);
    const before = uploads();
    const answers = await Promise.all(Array.from({ length: 10 }, () => files.upload(bytes.slice(), { filename: 'same.png' })));
    expect(new Set(answers.map((a) => a.name)).size).toBe(1);
    expect(uploads() - before).toBe(1);
  });

  it('different bytes, or a different file name, type, overwrite or subfolder, are a new upload', async () => {
    const path = join(dir, 'changing.png');
    await writeFile(path, png(11, 11));
    const files = client().files;
    const before = uploads();
    await files.upload(path);
    await writeFile(path, png(12, 11));
    await files.upload(path);
    await files.upload(path, { filename: 'other.png' });
    await files.upload(path, { type: 'temp' });
    await files.upload(path, { overwrite: true });
    await files.upload(path, { subfolder: 'x' });
    expect(uploads() - before).toBe(6);
    // Each of them is remembered.
    await files.upload(path, { subfolder: 'x' });
    await files.upload(new Blob([png(12, 11) as Uint8Array<ArrayBuffer>]), { filename: 'changing.png' });
    expect(uploads() - before).toBe(6);
  });

  it('a failed upload is not kept: the next call sends it again', async () => {
    const files = client().files;
    const bytes = png(9, 9);
    sim.faults.failRequests({ path: '/api/upload/image', status: 400, times: 1 });
    const before = uploads();
    await expect(files.upload(bytes)).rejects.toThrow();
    const answer = await files.upload(bytes);
    expect(answer.name).toMatch(/\.png$/);
    expect(uploads() - before).toBe(2);
  });

  it('a caller that aborts ends only its own wait: another caller of the same upload still gets it', async () => {
    const files = client().files;
    const bytes = png(13, 5);
    sim.faults.failRequests({ path: '/api/upload/image', delayMs: 300, times: 1 });
    const controller = new AbortController();
    const first = files.upload(bytes, { signal: controller.signal });
    const second = files.upload(bytes);
    setTimeout(() => controller.abort(new Error('left')), 50);
    await expect(first).rejects.toThrow('left');
    expect((await second).name).toMatch(/\.png$/);
  });

  it('each client keeps its own uploads', async () => {
    const bytes = png(6, 6);
    const before = uploads();
    await client().files.upload(bytes);
    await cloud.close();
    await client().files.upload(bytes);
    expect(uploads() - before).toBe(2);
  });
});
