import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient, type Workflow } from '../../src/index.js';
import { encodePng } from '../../src/testing/index.js';
import { runPiped, scaleWorkflow, startTarget, type SimTarget } from './helpers.js';

let target: SimTarget;
let dir: string;
let image: string;
let counter = 0;

beforeAll(async () => {
  target = await startTarget();
  dir = mkdtempSync(join(tmpdir(), 'graphcloud-cli-run-'));
  image = join(dir, 'in.png');
  writeFileSync(image, encodePng(64, 48, [200, 100, 50]));
});
afterAll(async () => {
  await target?.sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a workflow file; every call gets its own prefix, so no run is served from the cache. */
function workflowFile(workflow?: Record<string, unknown>): { path: string; prefix: string } {
  const prefix = `run${++counter}`;
  const path = join(dir, `${prefix}.json`);
  writeFileSync(path, JSON.stringify(workflow ?? scaleWorkflow('placeholder.png', prefix, 100 + counter)));
  return { path, prefix };
}

const run = (args: string[], env: Record<string, string | undefined> = target.env) => runPiped(args, { env, secrets: target.secrets });

describe('graphcloud run (piped: JSON lines)', () => {
  it('prints the submission, the events in order, then the result, and saves the outputs', async () => {
    const { path, prefix } = workflowFile();
    const out = join(dir, 'out-a');
    const { code, lines, stderr } = await run(['run', path, '--upload', `1.image=${image}`, '--out', out]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const types = lines.map((l) => l.type);
    expect(types[0]).toBe('submitted');
    expect(types.at(-1)).toBe('result');
    expect(types).toContain('execution_start');
    expect(types.filter((t) => t === 'executing').length).toBeGreaterThanOrEqual(3);
    expect(types.indexOf('execution_success')).toBeLessThan(types.indexOf('result'));
    const promptId = lines[0]!.promptId;
    expect(lines.at(-1)).toMatchObject({ type: 'result', promptId, status: 'completed', saved: [{ nodeId: '3', filename: `${prefix}_00001_.png`, path: join(out, `${prefix}_00001_.png`) }] });
    expect(readdirSync(out)).toEqual([`${prefix}_00001_.png`]);
    expect(readFileSync(join(out, `${prefix}_00001_.png`)).subarray(1, 4).toString()).toBe('PNG');
  });

  it("prints the SDK's overall progress (job_progress), ending at 3 of 3 nodes", async () => {
    const { path } = workflowFile();
    const { code, lines } = await run(['run', path, '--upload', `1.image=${image}`]);
    expect(code).toBe(0);
    const progress = lines.filter((l) => l.type === 'job_progress').map((l) => l.data as { done: number; total: number; fraction: number });
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.at(-1)).toMatchObject({ promptId: lines[0]!.promptId, done: 3, total: 3, fraction: 1 });
    expect(progress.map((p) => p.fraction)).toEqual([...progress.map((p) => p.fraction)].sort((a, b) => a - b));
  });

  it('--human off a terminal: one line per node started, with the nodes done', async () => {
    const { path } = workflowFile();
    const { code, stdout } = await run(['run', path, '--upload', `1.image=${image}`, '--human']);
    expect(code).toBe(0);
    // The loader may be served from cache (an earlier test loaded the same image): it counts as done all the same.
    expect(stdout).toContain('  running Scale (ImageScale) #2 (1 of 3 nodes done)\n');
    expect(stdout).toContain('  running SaveImage #3 (2 of 3 nodes done)\n');
  });

  it('says which nodes were sent unchecked because their definition could not be read, and runs', async () => {
    // The catalog as a real runtime may serve it: ImageScale's width in a shape the SDK cannot read.
    const info = (await (await fetch(`${target.sim.cloudUrl}/api/object_info`, { headers: { 'X-API-Key': target.sim.apiKey } })).json()) as Record<string, { input: { required: Record<string, unknown> } }>;
    info.ImageScale!.input.required.width = 'INT';
    const rule = target.sim.faults.failRequests({ path: '/api/object_info', method: 'GET', status: 200, body: info });
    try {
      const piped = await run(['run', workflowFile().path, '--upload', `1.image=${image}`]);
      expect(piped.code).toBe(0);
      expect(piped.lines.filter((l) => l.type === 'warning')).toEqual([expect.objectContaining({ nodeId: '2', code: 'unchecked_node', message: expect.stringContaining('"ImageScale" could not be read') })]);
      const human = await run(['run', workflowFile().path, '--upload', `1.image=${image}`, '--human']);
      expect(human.code).toBe(0);
      expect(human.stderr).toContain('node 2: inputs not checked: the server\'s definition of "ImageScale" could not be read');
    } finally {
      rule.remove();
    }
  });

  it('describes preview images without printing their bytes', async () => {
    const { path } = workflowFile();
    const { lines } = await run(['run', path, '--upload', `1.image=${image}`]);
    const previews = lines.filter((l) => l.type === 'preview');
    expect(previews.length).toBeGreaterThan(0);
    for (const preview of previews) expect(preview.data).toEqual({ promptId: lines[0]!.promptId, nodeId: expect.any(String), displayNodeId: expect.any(String), mimeType: 'image/png', bytes: expect.any(Number) });
  });

  it('never writes over a file: names taken in --out send the outputs to a folder of the job', async () => {
    const { path, prefix } = workflowFile();
    const out = join(dir, 'out-b');
    await run(['run', path, '--upload', `1.image=${image}`, '--out', out]);
    writeFileSync(join(out, `${prefix}_00002_.png`), 'mine');
    const second = await run(['run', path, '--upload', `1.image=${image}`, '--set', '2.width=200', '--out', out]);
    expect(second.code).toBe(0);
    expect(second.stderr).toBe(`Files of these names are in ${out} already: saving into ${join(out, second.lines[0]!.promptId as string)} instead (--overwrite replaces them).\n`);
    expect(readFileSync(join(out, `${prefix}_00002_.png`), 'utf8')).toBe('mine');
    const promptId = second.lines[0]!.promptId as string;
    expect(second.lines.at(-1)).toMatchObject({ saved: [{ path: join(out, promptId, `${prefix}_00002_.png`) }] });
    const third = await run(['run', path, '--upload', `1.image=${image}`, '--set', '2.width=201', '--out', out, '--overwrite']);
    expect(third.code).toBe(0);
    expect(readdirSync(out).filter((f) => f.endsWith('.png')).sort()).toEqual([`${prefix}_00001_.png`, `${prefix}_00002_.png`, `${prefix}_00003_.png`]);
  });

  it('--set writes typed values: a number stays a number, text stays text', async () => {
    const { path } = workflowFile();
    const { code, lines } = await run(['run', path, '--upload', `1.image=${image}`, '--set', '2.width=513', '--set', '3.filename_prefix=1234']);
    expect(code).toBe(0);
    expect(lines.at(-1)).toMatchObject({ status: 'completed', outputs: { '3': { images: [{ filename: '1234_00001_.png' }] } } });
  });

  it('--set of text where a number belongs is a usage error; nothing is sent', async () => {
    const { path } = workflowFile();
    target.sim.state.clearRequests();
    const { code, lines } = await run(['run', path, '--set', '2.width=wide']);
    expect(code).toBe(2);
    expect(lines).toEqual([{ type: 'error', exitCode: 2, message: expect.stringMatching(/^--set 2\.width takes a number \(it is \d+ in the workflow\), received "wide"\.$/), fix: 'See `graphcloud run --help`.' }]);
    // Only the node definitions were read (to find the input).
    expect(target.sim.state.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/object_info']);
  });

  it('--validate checks the workflow, runs nothing, and exits 2 listing each problem', async () => {
    const { path } = workflowFile();
    const jobs = target.sim.state.jobs().length;
    const bad = await run(['run', path, '--set', '2.upscale_method=sharpest', '--validate']);
    expect(bad.code).toBe(2);
    expect(bad.lines[0]).toMatchObject({ type: 'validation', valid: false });
    expect(bad.lines[0]!.issues).toContainEqual(expect.objectContaining({ nodeId: '2', input: 'upscale_method', code: 'not_in_options', received: 'sharpest' }));
    const good = await run(['run', path, '--upload', `1.image=${image}`, '--validate']);
    expect(good.code).toBe(0);
    expect(good.lines).toEqual([{ type: 'validation', valid: true, nodes: 3, issues: [] }]);
    expect(target.sim.state.jobs().length).toBe(jobs);
  });

  it('a workflow the node definitions refuse fails before anything is uploaded or run (exit 2)', async () => {
    const { path } = workflowFile();
    target.sim.state.clearRequests();
    const { code, lines } = await run(['run', path, '--upload', `1.image=${image}`, '--set', '2.crop=sideways']);
    expect(code).toBe(2);
    expect(lines.at(-1)).toMatchObject({ type: 'error', exitCode: 2, message: expect.stringContaining('node 2 input crop') });
    expect(target.sim.state.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('a job that fails exits 1 with the node and the reason', async () => {
    const { path } = workflowFile({
      '1': { class_type: 'FailNode', inputs: { message: 'out of paint' } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'never' } },
    });
    const { code, lines, stderr } = await run(['run', path]);
    expect(stderr).toBe('');
    expect(code).toBe(1);
    expect(lines.at(-1)).toMatchObject({ type: 'result', status: 'failed', error: { nodeId: '1', message: expect.stringContaining('out of paint') } });
  });

  it('a refused key exits 3, names the variable, and never prints the key', async () => {
    const { path } = workflowFile();
    const wrong = 'gcsim_wrong_key_1234567890';
    const { code, lines, stdout, stderr } = await runPiped(['run', path, '--debug'], { env: { ...target.env, GRAPHCLOUD_API_KEY: wrong }, secrets: [wrong, ...target.secrets] });
    expect(code).toBe(3);
    expect(lines.at(-1)).toMatchObject({ type: 'error', exitCode: 3, message: 'The cloud refused the key (401).', fix: 'Check GRAPHCLOUD_API_KEY.' });
    expect(`${stdout}${stderr}`).not.toContain(wrong);
  });

  it('an unreachable cloud exits 6 and names the URL variable', async () => {
    const { path } = workflowFile();
    const { code, lines } = await run(['run', path, '--cloud-url', 'http://127.0.0.1:2']);
    expect(code).toBe(6);
    expect(lines.at(-1)).toMatchObject({ message: 'Could not reach the cloud at http://127.0.0.1:2 (ECONNREFUSED).', fix: 'Check GRAPHCLOUD_CLOUD_URL and your network.' });
  });

  it('a cloud on a port fetch blocks exits 6 at once and says to move it', async () => {
    const { path } = workflowFile();
    const { code, lines } = await run(['run', path, '--cloud-url', 'http://127.0.0.1:6000']);
    expect(code).toBe(6);
    expect(lines.at(-1)).toMatchObject({
      message: 'Cannot reach the cloud at http://127.0.0.1:6000: fetch refuses to connect to that port (one the Fetch standard blocks).',
      fix: 'Serve the cloud on another port, and change GRAPHCLOUD_CLOUD_URL.',
    });
  });

  it('--timeout gives up with exit 4 and cancels the job, saying so', async () => {
    const slow = await startTarget({ stepDelayMs: 400 });
    try {
      const { path } = workflowFile();
      const { code, lines } = await runPiped(['run', path, '--upload', `1.image=${image}`, '--timeout', '300ms'], { env: slow.env, secrets: slow.secrets });
      expect(code).toBe(4);
      const promptId = lines[0]!.promptId as string;
      expect(lines.at(-1)).toEqual({ type: 'error', exitCode: 4, message: `Stopped waiting after 300 ms; job ${promptId} was cancelled.` });
      await slow.sim.state.waitForIdle();
      expect(slow.sim.state.jobs().find((j) => j.id === promptId)?.status).toBe('cancelled');
    } finally {
      await slow.sim.close();
    }
  });

  it('a file that is missing or not JSON is a usage error naming it', async () => {
    const missing = await run(['run', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.lines[0]).toMatchObject({ message: `Cannot read ${join(dir, 'nope.json')}: no such file.` });
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "1": ');
    const notJson = await run(['run', broken]);
    expect(notJson.code).toBe(2);
    expect(notJson.lines[0]!.message).toMatch(/broken\.json is not JSON/);
  });
});

describe('graphcloud jobs watch', () => {
  it('follows a job submitted earlier to its result', async () => {
    const slow = await startTarget({ stepDelayMs: 100 });
    try {
      const cloud = new CloudClient({ baseUrl: slow.sim.cloudUrl, apiKey: slow.sim.apiKey });
      const { name } = await cloud.files.upload(image);
      const { promptId } = await cloud.jobs.submit(scaleWorkflow(name, 'watched') as Workflow);
      await cloud.close();
      const { code, lines } = await runPiped(['jobs', 'watch', promptId], { env: slow.env, secrets: slow.secrets });
      expect(code).toBe(0);
      expect(lines[0]).toEqual({ type: 'submitted', promptId });
      expect(lines.at(-1)).toMatchObject({ type: 'result', promptId, status: 'completed' });
    } finally {
      await slow.sim.close();
    }
  });
});
