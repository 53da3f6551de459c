// `graphcloud batch --redis`, `graphcloud worker` and `graphcloud batch status|cancel|results`:
// real redis-server (test/queue/redis-server.ts), real CLI processes, the simulator.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/cli/base/config.js';
import { RunQueue } from '../../src/queue/index.js';
import { encodePng } from '../../src/testing/index.js';
import { startRedis, type TestRedis } from '../queue/redis-server.js';
import { cliEntries, longWorkflow, NODE, parseLines, runPiped, scaleWorkflow, startTarget, type SimTarget } from './helpers.js';

let target: SimTarget;
let redis: TestRedis;
let dir: string;
let counter = 0;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  [target, redis] = await Promise.all([startTarget({ stepDelayMs: 5 }), startRedis()]);
  dir = mkdtempSync(join(tmpdir(), 'graphcloud-cli-batch-queue-'));
  writeFileSync(join(dir, 'in.png'), encodePng(16, 12, [200, 40, 40]));
});
afterEach(async () => {
  await Promise.all([...children].map((child) => stop(child, 'SIGKILL')));
});
afterAll(async () => {
  await target?.sim.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A workflow and a JSON Lines file of `count` sets; each test uses a queue of its own. */
function batchFiles(count: number): { workflow: string; sets: string; queue: string } {
  const prefix = `q${++counter}`;
  const workflow = join(dir, `${prefix}.json`);
  writeFileSync(workflow, JSON.stringify(scaleWorkflow('placeholder.png', prefix, 64)));
  const sets = join(dir, `${prefix}.jsonl`);
  writeFileSync(sets, Array.from({ length: count }, (_, i) => JSON.stringify({ '@1.image': 'in.png', 'Scale.width': 1000 * counter + i })).join('\n'));
  return { workflow, sets, queue: `cli-${prefix}-${globalThis.crypto.randomUUID().slice(0, 6)}` };
}

const env = (): Record<string, string> => ({ ...target.env, GRAPHCLOUD_REDIS_URL: redis.url });
const run = (args: string[]) => runPiped(args, { env: env(), secrets: target.secrets });
const submissions = (): number => target.sim.state.requests.filter((r) => r.method === 'POST' && r.path === '/api/prompt' && !r.internal).length;

const uploads = (): number => target.sim.state.requests.filter((r) => r.method === 'POST' && r.path === '/api/upload/image' && !r.internal).length;

/** A CLI process left running (a worker, a batch that follows its runs), read line by line. */
interface Background {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  waitFor(predicate: (line: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; stderr: string }>;
}

async function background(args: string[], withEnv: Record<string, string> = env()): Promise<Background> {
  const { cli } = await cliEntries();
  const child = spawn(NODE, [cli, ...args], { env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), LANG: 'C.UTF-8', ...withEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  const lines: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const at = stdout.lastIndexOf('\n');
    if (at < 0) return;
    lines.push(...parseLines(stdout.slice(0, at)));
    stdout = stdout.slice(at + 1);
    for (const wake of waiters) wake();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => {
    children.delete(child);
    for (const wake of waiters) wake();
    resolve({ code, stderr });
  }));
  const waitFor = async (predicate: (line: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = lines.find(predicate);
      if (found) return found;
      if (child.exitCode !== null) throw new Error(`${what}: the process ended (${child.exitCode}); its lines: ${JSON.stringify(lines)}; stderr: ${stderr}`);
      await new Promise<void>((resolve) => waiters.add(resolve)).finally(() => waiters.clear());
    }
  };
  return { child, lines, waitFor, exited };
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.kill(signal);
  });
}

async function worker(queue: string, extra: string[] = [], withEnv?: Record<string, string>): Promise<Background> {
  const started = await background(['worker', '--queue', queue, ...extra], withEnv);
  await started.waitFor((l) => l.type === 'ready', 'the worker is ready');
  return started;
}

// Each test starts several CLI processes (a second or two each on a loaded 2-core machine).
describe('graphcloud batch --redis with graphcloud worker', { timeout: 60_000 }, () => {
  it('runs every set once through two worker processes, saves each one\'s outputs, and batch status|results read it back', async () => {
    const { workflow, sets, queue } = batchFiles(6);
    await Promise.all([worker(queue), worker(queue)]);
    const before = submissions();
    const uploadsBefore = uploads();
    const out = join(dir, 'out-queue');
    const batch = await run(['batch', workflow, '--inputs', sets, '--queue', queue, '--out', out]);
    expect(batch.stderr).toBe('');
    expect(batch.code).toBe(0);
    const head = batch.lines[0]!;
    expect(head).toMatchObject({ type: 'batch', sets: 6, queue, batchId: expect.stringMatching(/^q\d+-[0-9a-f]{8}$/) });
    expect(batch.lines.at(-1)).toMatchObject({ type: 'summary', total: 6, done: 6, failed: 0, cancelled: 0 });
    expect(submissions() - before).toBe(6);
    // The six sets name one file: it is uploaded once (issue 30).
    expect(uploads() - uploadsBefore).toBe(1);
    expect(readdirSync(out).sort()).toEqual(['1', '2', '3', '4', '5', '6']);
    for (const set of readdirSync(out)) expect(readdirSync(join(out, set))).toHaveLength(1);

    const batchId = head.batchId as string;
    const status = await run(['batch', 'status', batchId, '--queue', queue]);
    expect(status.code).toBe(0);
    expect(status.lines.filter((l) => l.type === 'run').map((l) => [l.set, l.state])).toEqual([1, 2, 3, 4, 5, 6].map((set) => [set, 'completed']));
    expect(status.lines.at(-1)).toMatchObject({ type: 'summary', batchId, total: 6, completed: 6 });
    const again = join(dir, 'out-results');
    const results = await run(['batch', 'results', batchId, '--queue', queue, '--out', again]);
    expect(results.code).toBe(0);
    expect(readdirSync(again).sort()).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(results.lines.filter((l) => l.type === 'result').every((l) => Array.isArray(l.saved) && l.saved.length === 1)).toBe(true);
  });

  it('--detach adds the runs and exits; batch cancel removes the queued ones, and nothing is ever sent', async () => {
    const { workflow, sets, queue } = batchFiles(4);
    const before = submissions();
    const added = await run(['batch', workflow, '--inputs', sets, '--queue', queue, '--detach']);
    expect(added.code).toBe(0);
    const { batchId } = added.lines.find((l) => l.type === 'added') as { batchId: string };
    const status = await run(['batch', 'status', batchId, '--queue', queue]);
    expect(status.lines.at(-1)).toMatchObject({ total: 4, queued: 4 });
    const cancel = await run(['batch', 'cancel', batchId, '--queue', queue]);
    expect(cancel.lines.at(-1)).toEqual({ type: 'summary', batchId, total: 4, removed: 4, requested: 0, ended: 0 });
    const after = await run(['batch', 'status', batchId, '--queue', queue]);
    expect(after.lines.at(-1)).toMatchObject({ total: 4, cancelled: 4, queued: 0 });
    // A worker started now finds nothing to run.
    await worker(queue);
    expect(submissions()).toBe(before);
  });

  it('Ctrl-C of a batch that follows its runs cancels every run it added (exit 5)', async () => {
    const { workflow, sets, queue } = batchFiles(5);
    const before = submissions();
    const batch = await background(['batch', workflow, '--inputs', sets, '--queue', queue]);
    const { batchId } = (await batch.waitFor((l) => l.type === 'added', 'the runs were added')) as { batchId: string };
    batch.child.kill('SIGINT');
    const { code } = await batch.exited;
    expect(code).toBe(5);
    expect(batch.lines.filter((l) => l.type === 'result').map((l) => l.status)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
    const status = await run(['batch', 'status', batchId, '--queue', queue]);
    expect(status.lines.at(-1)).toMatchObject({ total: 5, cancelled: 5 });
    expect(submissions()).toBe(before);
  });

  it('a worker stopped with Ctrl-C hands its run back with its job id; the next worker finishes it without sending it again', async () => {
    const slow = await startTarget({ stepDelayMs: 150 });
    try {
      const { workflow, sets, queue } = batchFiles(1);
      const slowEnv = { ...slow.env, GRAPHCLOUD_REDIS_URL: redis.url };
      const first = await worker(queue, [], slowEnv);
      const added = await runPiped(['batch', workflow, '--inputs', sets, '--queue', queue, '--detach'], { env: slowEnv, secrets: slow.secrets });
      const { batchId } = added.lines.find((l) => l.type === 'added') as { batchId: string };
      while (!slow.sim.state.jobs().some((job) => job.status === 'in_progress')) await new Promise((resolve) => setTimeout(resolve, 20));
      first.child.kill('SIGINT');
      expect((await first.exited).code).toBe(0);
      expect(first.lines.find((l) => l.type === 'stopped')).toEqual({ type: 'stopped', handedBack: 1 });
      await worker(queue, [], slowEnv);
      await using runs = new RunQueue({ connection: redis.url, name: queue });
      const result = (await runs.run(`${batchId}-1`).result()) as { status: string; promptId: string };
      expect(result.status).toBe('completed');
      // One job on the server: the second worker watched the first one's, it sent nothing.
      expect(slow.sim.state.jobs().map((job) => job.id)).toEqual([result.promptId]);
      expect(slow.sim.state.requests.filter((r) => r.method === 'POST' && r.path === '/api/prompt' && !r.internal)).toHaveLength(1);
    } finally {
      await slow.sim.close();
    }
  });

  it('--detach with --out is refused before anything is added, naming the command that saves the outputs later', async () => {
    const { workflow, sets, queue } = batchFiles(2);
    const before = submissions();
    const refused = await run(['batch', workflow, '--inputs', sets, '--queue', queue, '--detach', '--out', './out']);
    expect(refused.code).toBe(2);
    expect(refused.lines.at(-1)).toMatchObject({
      type: 'error',
      message: '--out cannot be used with --detach: a detached batch exits once its runs are added, before any has outputs to save.',
      fix: `Drop --out; once the runs ended, save their outputs with: graphcloud batch results <batch id> --queue ${queue} --out ./out (the batch id is printed when the runs are added).`,
    });
    await using runs = new RunQueue({ connection: redis.url, name: queue });
    expect((await runs.status()).counts).toMatchObject({ waiting: 0 });
    expect(submissions()).toBe(before);
  });

  it('batch status gives a cancelled job\'s reason once, and worker log lines carry their time', async () => {
    const slow = await startTarget({ stepDelayMs: 150 });
    try {
      const { queue } = batchFiles(1);
      const workflow = join(dir, `${queue}-long.json`);
      writeFileSync(workflow, JSON.stringify(longWorkflow('placeholder.png', queue)));
      const sets = join(dir, `${queue}-long.jsonl`);
      writeFileSync(sets, JSON.stringify({ '@0.image': 'in.png' }));
      const slowEnv = { ...slow.env, GRAPHCLOUD_REDIS_URL: redis.url };
      const json = await worker(queue, [], slowEnv);
      const added = await runPiped(['batch', workflow, '--inputs', sets, '--queue', queue, '--detach'], { env: slowEnv, secrets: slow.secrets });
      const { batchId } = added.lines.find((l) => l.type === 'added') as { batchId: string };
      while (!slow.sim.state.jobs().some((job) => job.status === 'in_progress')) await new Promise((resolve) => setTimeout(resolve, 20));
      const cancel = await runPiped(['batch', 'cancel', batchId, '--queue', queue], { env: slowEnv, secrets: slow.secrets });
      expect(cancel.lines.at(-1)).toMatchObject({ requested: 1 });
      await using runs = new RunQueue({ connection: redis.url, name: queue });
      for (let info = await runs.get(`${batchId}-1`); info?.state !== 'cancelled'; info = await runs.get(`${batchId}-1`)) await new Promise((resolve) => setTimeout(resolve, 50));
      const status = await runPiped(['batch', 'status', batchId, '--queue', queue, '--human'], { env: slowEnv, secrets: slow.secrets });
      expect(status.code).toBe(0);
      const row = status.stdout.split('\n').find((line) => /^1 +cancelled/.test(line));
      expect(row).toBeDefined();
      const { promptId } = (await runs.get(`${batchId}-1`))!;
      // The job's id once in the JOB column, once in its reason: never "Job X was cancelled: Job X was cancelled".
      expect(row!.split(promptId!).length - 1).toBeLessThanOrEqual(2);
      expect(row).not.toMatch(/was cancelled: .*was cancelled/);
      const logged = await json.waitFor((l) => l.type === 'log' && String(l.message).includes('asked to cancel its job'), 'the worker logs the cancel');
      expect(logged.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // In a terminal (or --human) the line starts with its time.
      const text = await background(['worker', '--queue', `${queue}-h`, '--human'], slowEnv);
      json.child.kill('SIGTERM');
      await text.waitFor((l) => typeof l.unparsed === 'string' && l.unparsed.includes('Worker on queue'), 'the human worker is ready');
      await runPiped(['batch', workflow, '--inputs', sets, '--queue', `${queue}-h`, '--detach'], { env: slowEnv, secrets: slow.secrets });
      while (!slow.sim.state.jobs().some((job) => job.status === 'in_progress')) await new Promise((resolve) => setTimeout(resolve, 20));
      text.child.kill('SIGINT');
      await text.waitFor((l) => typeof l.unparsed === 'string' && l.unparsed.includes(': handed back ('), 'the human worker logs the hand-back');
      expect(text.lines.find((l) => typeof l.unparsed === 'string' && l.unparsed.includes(': handed back ('))!.unparsed).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[worker /);
    } finally {
      await slow.sim.close();
    }
  });

  it('a batch says when no worker is connected to its queue, and when the worker holding a run is lost (issue 30)', async () => {
    const slow = await startTarget({ stepDelayMs: 150 });
    try {
      const { queue } = batchFiles(1);
      const workflow = join(dir, `${queue}-lost.json`);
      writeFileSync(workflow, JSON.stringify(longWorkflow('placeholder.png', queue)));
      const sets = join(dir, `${queue}-lost.jsonl`);
      writeFileSync(sets, JSON.stringify({ '@0.image': 'in.png' }));
      const slowEnv = { ...slow.env, GRAPHCLOUD_REDIS_URL: redis.url };
      // Detached, before any worker: the hint comes with the added runs.
      const detached = await runPiped(['batch', workflow, '--inputs', sets, '--queue', `${queue}-d`, '--detach'], { env: slowEnv, secrets: slow.secrets });
      expect(detached.lines).toContainEqual({ type: 'no-worker', queue: `${queue}-d` });
      const batch = await background(['batch', workflow, '--inputs', sets, '--queue', queue], slowEnv);
      await batch.waitFor((l) => l.type === 'no-worker' && l.queue === queue, 'the batch says no worker is connected');
      const first = await worker(queue, [], slowEnv);
      await batch.waitFor((l) => l.type === 'workers' && l.workers === 1, 'the batch sees the worker');
      await batch.waitFor((l) => l.type === 'submitted', 'the set is submitted');
      first.child.kill('SIGKILL');
      const lost = await batch.waitFor((l) => l.type === 'worker-lost', 'the batch says the worker is lost');
      expect(lost).toMatchObject({ set: 1, line: 1 });
      // The rest of a 30 s lock, and one stalled check of 30 s, at most.
      expect(lost.takeoverWithinMs).toBeGreaterThan(0);
      expect(lost.takeoverWithinMs).toBeLessThanOrEqual(60_000);
      await batch.waitFor((l) => l.type === 'no-worker' && l.queue === queue, 'the batch says no worker is left');
    } finally {
      await slow.sim.close();
    }
  });

  it('refuses a password in --redis (it belongs in GRAPHCLOUD_REDIS_URL) and never prints the variable\'s', async () => {
    const { workflow, sets } = batchFiles(1);
    const flag = await run(['batch', workflow, '--inputs', sets, '--redis', 'redis://:hunter2-secret@127.0.0.1:6379']);
    expect(flag.code).toBe(2);
    expect(flag.lines.at(-1)).toMatchObject({ message: '--redis holds a password: a flag lands in shell history and in `ps`.', fix: 'Set GRAPHCLOUD_REDIS_URL instead.' });
    // A Redis that cannot be reached is named without its password, at once (exit 6).
    const bad = await runPiped(['batch', 'status', 'x-1'], { env: { ...target.env, GRAPHCLOUD_REDIS_URL: 'redis://:hunter2-secret@127.0.0.1:2' }, secrets: ['hunter2-secret', ...target.secrets] });
    expect(bad.code).toBe(6);
    expect(bad.lines.at(-1)).toMatchObject({ message: 'Could not reach Redis at redis://127.0.0.1:2 (ECONNREFUSED).', fix: 'Check GRAPHCLOUD_REDIS_URL (or --redis), and that Redis runs.' });
    expect(new Config({ GRAPHCLOUD_REDIS_URL: 'redis://user:p%40ss-word@h:1' }, {}).secrets()).toEqual(expect.arrayContaining(['p%40ss-word', 'p@ss-word']));
  });
});
