// Job control from the command line, piped: UI-format workflows and input addresses, Ctrl-C
// (SIGINT) that cancels, the queue position, jobs list / get / cancel.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { CloudClient, type Workflow } from '../../src/index.js';
import { encodePng } from '../../src/testing/index.js';
import { assertNoSecrets, cliEntries, longWorkflow, NODE, parseLines, REPO, runPiped, scaleWorkflow, startTarget, type SimTarget } from './helpers.js';

const UI = join(REPO, 'test/cli/fixtures/resize-ui.json');
let target: SimTarget;
let dir: string;
let image: string;
let counter = 0;

beforeAll(async () => {
  // Slow enough to press Ctrl-C during a run: 10 steps of 80 ms per node.
  target = await startTarget({ stepDelayMs: 80, progressSteps: 10 });
  dir = mkdtempSync(join(tmpdir(), 'graphcloud-cli-jobs-'));
  image = join(dir, 'in.png');
  writeFileSync(image, encodePng(64, 48, [90, 30, 160]));
});
afterAll(async () => {
  await target?.sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[]) => runPiped(args, { env: target.env, secrets: target.secrets });

function workflowFile(): string {
  const prefix = `jobs${++counter}`;
  const path = join(dir, `${prefix}.json`);
  writeFileSync(path, JSON.stringify(scaleWorkflow('placeholder.png', prefix, 300 + counter)));
  return path;
}

/** Starts `graphcloud <args>` piped, and resolves each JSON line as it arrives. */
async function startPiped(args: string[]) {
  const { cli } = await cliEntries();
  const child = spawn(NODE, [cli, ...args], { env: { PATH: process.env.PATH ?? '', ...target.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: { test: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const lines = parseLines(stdout.slice(0, stdout.lastIndexOf('\n') + 1));
    for (const waiter of [...waiters]) {
      const found = lines.find(waiter.test);
      if (found) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(found);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    line: (test: (line: Record<string, unknown>) => boolean) => new Promise<Record<string, unknown>>((resolve) => waiters.push({ test, resolve })),
    done: async () => {
      const code = await exited;
      assertNoSecrets(stdout + stderr, target.secrets);
      return { code, lines: parseLines(stdout), stderr };
    },
  };
}

describe('graphcloud run: workflows as saved from the web UI, inputs by address', () => {
  it('converts a UI-format file and sets inputs by title', async () => {
    const { code, lines, stderr } = await run(['run', UI, '--upload', `Photo.image=${image}`, '--set', 'Resize.width=100', '--set', 'Save.filename_prefix=from-ui', '--out', join(dir, 'ui')]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(lines.at(-1)).toMatchObject({ type: 'result', status: 'completed', outputs: { '12': { images: [{ filename: 'from-ui_00001_.png' }] } } });
    expect(readdirSync(join(dir, 'ui'))).toEqual(['from-ui_00001_.png']);
  });

  it('an address that names no node fails before anything is uploaded, listing the candidates', async () => {
    target.sim.state.clearRequests();
    const { code, lines } = await run(['run', UI, '--upload', `Foto.image=${image}`]);
    expect(code).toBe(2);
    expect(lines[0]).toMatchObject({ type: 'error', exitCode: 2, message: expect.stringContaining('input address "Foto.image": names no node') });
    expect(lines[0]!.message).toContain('10 (LoadImage "Photo")');
    expect(target.sim.state.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('an input the node does not have is named with the node\'s inputs', async () => {
    const { code, lines } = await run(['run', UI, '--set', 'Resize.widht=100']);
    expect(code).toBe(2);
    expect(lines[0]!.message).toMatch(/node 11 \(ImageScale\) has no input "widht"/);
  });
});

describe('Ctrl-C (SIGINT) during graphcloud run', () => {
  it('asks the server to cancel the job and ends as cancelled (exit 5)', async () => {
    const cli = await startPiped(['run', workflowFile(), '--upload', `1.image=${image}`]);
    await cli.line((l) => l.type === 'executing');
    cli.child.kill('SIGINT');
    const { code, lines } = await cli.done();
    expect(code).toBe(5);
    const promptId = lines[0]!.promptId as string;
    expect(lines).toContainEqual({ type: 'cancelling', promptId });
    expect(lines.at(-1)).toMatchObject({ type: 'result', promptId, status: 'cancelled' });
    await target.sim.state.waitForIdle();
    expect(target.sim.state.jobs().find((j) => j.id === promptId)?.status).toBe('cancelled');
  });

  it('a second SIGINT leaves at once, naming the job', async () => {
    // The cancellation takes a while here, so that the second signal comes before its answer.
    const slowCancel = target.sim.faults.failRequests({ path: /\/cancel$/, delayMs: 5_000 });
    onTestFinished(() => slowCancel.remove());
    const cli = await startPiped(['run', workflowFile(), '--upload', `1.image=${image}`]);
    const { promptId } = await cli.line((l) => l.type === 'submitted');
    await cli.line((l) => l.type === 'executing');
    cli.child.kill('SIGINT');
    await cli.line((l) => l.type === 'cancelling');
    cli.child.kill('SIGINT');
    const { code, lines, stderr } = await cli.done();
    expect(code).toBe(130);
    expect(lines.at(-1)).toEqual({ type: 'left', promptId, cancelAsked: true, exitCode: 130 });
    expect(stderr).toContain(`Left without waiting for job ${promptId as string}: its cancellation was asked; see how it ended: graphcloud jobs get ${promptId as string}`);
  });

  it('while queued, shows the position, and Ctrl-C takes the job out of the queue', async () => {
    // A job ahead of ours keeps the runner busy (after the jobs of the tests before have ended).
    await target.sim.state.waitForIdle();
    const cloud = new CloudClient({ baseUrl: target.sim.cloudUrl, apiKey: target.sim.apiKey });
    const { name } = await cloud.files.upload(image);
    // Long enough (40 nodes of 800 ms) to stay ahead while the CLI process starts, on any load; cancelled at the end.
    const ahead = await cloud.jobs.submit(longWorkflow(name, 'ahead') as Workflow);
    try {
      const cli = await startPiped(['run', workflowFile(), '--upload', `1.image=${image}`]);
      const queued = await cli.line((l) => l.type === 'queue');
      expect(queued).toMatchObject({ position: 1 });
      cli.child.kill('SIGINT');
      const { code, lines } = await cli.done();
      expect(code).toBe(5);
      expect(lines.at(-1)).toMatchObject({ type: 'result', status: 'cancelled' });
      expect(target.sim.state.jobs().find((j) => j.id === queued.promptId)?.status).toBe('cancelled');
    } finally {
      await cloud.jobs.cancel(ahead.promptId);
      await cloud.close();
    }
    // Waits for the jobs of the tests before, then starts a CLI process: more than the suite's 20 s once on a loaded 2-core machine.
  }, 60_000);
});

describe('graphcloud jobs', () => {
  it('list prints one job per line, newest first, filtered by status', async () => {
    const { code, lines } = await run(['jobs', 'list', '--limit', '50']);
    expect(code).toBe(0);
    expect(lines.length).toBeGreaterThan(1);
    const created = lines.map((j) => j.createdAt as number);
    expect([...created].sort((a, b) => b - a)).toEqual(created);
    const cancelled = await run(['jobs', 'list', '--status', 'cancelled']);
    expect(cancelled.lines.length).toBeGreaterThan(0);
    expect(cancelled.lines.every((j) => j.status === 'cancelled')).toBe(true);
  });

  it('list refuses an unknown status', async () => {
    const { code, lines } = await run(['jobs', 'list', '--status', 'done']);
    expect(code).toBe(2);
    expect(lines[0]!.message).toBe('--status takes pending, in_progress, completed, failed, cancelled; received "done".');
  });

  it('get shows a job and saves its outputs', async () => {
    const done = await run(['run', workflowFile(), '--upload', `1.image=${image}`]);
    const promptId = done.lines[0]!.promptId as string;
    const out = join(dir, 'got');
    const { code, lines } = await run(['jobs', 'get', promptId, '--out', out]);
    expect(code).toBe(0);
    expect(lines[0]).toMatchObject({ type: 'job', promptId, status: 'completed', saved: [{ nodeId: '3', path: expect.stringContaining(out) }] });
    expect(readdirSync(out)).toHaveLength(1);
  });

  it('watch of an unknown job exits 6 at once', async () => {
    const { code, lines } = await run(['jobs', 'watch', '00000000-0000-4000-8000-000000000000']);
    expect(code).toBe(6);
    expect(lines[0]).toMatchObject({ message: 'The cloud has no job 00000000-0000-4000-8000-000000000000.' });
  });

  it('get of an unknown job exits 6', async () => {
    const { code, lines } = await run(['jobs', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(code).toBe(6);
    expect(lines[0]).toMatchObject({ message: 'The cloud has no job 00000000-0000-4000-8000-000000000000.' });
  });

  it('cancel stops a running job (exit 0), and says when there was nothing to cancel (exit 6)', async () => {
    const cloud = new CloudClient({ baseUrl: target.sim.cloudUrl, apiKey: target.sim.apiKey });
    const { name } = await cloud.files.upload(image);
    // Still running when the CLI process, started next, asks (a three-node job ended first on a loaded machine).
    const { promptId } = await cloud.jobs.submit(longWorkflow(name, 'to-cancel') as Workflow);
    await cloud.close();
    const first = await run(['jobs', 'cancel', promptId]);
    expect(first.code).toBe(0);
    expect(first.lines[0]).toMatchObject({ type: 'cancel', promptId, cancelled: true });
    await target.sim.state.waitForIdle();
    const again = await run(['jobs', 'cancel', promptId]);
    expect(again.code).toBe(6);
    expect(again.lines.at(-1)).toMatchObject({ message: `Job ${promptId} was not cancelled: it has ended, or there is no such job of yours.` });
  });
});
