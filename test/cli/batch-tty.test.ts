// `graphcloud batch` inside a real pseudo-terminal (tmux): the live table, the summary that
// replaces it, and Ctrl-C cancelling what the batch added.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { encodePng } from '../../src/testing/index.js';
import { assertNoSecrets, scaleWorkflow, startTarget, TmuxSession, type SimTarget } from './helpers.js';

let target: SimTarget;
let dir: string;
let counter = 0;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  // Slow enough to be seen running: 12 steps of 25 ms per node (the simulator runs one job at a time).
  target = await startTarget({ stepDelayMs: 25, progressSteps: 12 });
  dir = mkdtempSync(join(tmpdir(), 'graphcloud-cli-batch-tty-'));
  writeFileSync(join(dir, 'in.png'), encodePng(32, 24, [20, 120, 220]));
});
afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
});
afterAll(async () => {
  await target?.sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A workflow and a CSV of `count` sets, each its own width (no run is served from the cache). */
function batchFiles(count: number): { workflow: string; sets: string } {
  const prefix = `tty${++counter}`;
  const workflow = join(dir, `${prefix}.json`);
  writeFileSync(workflow, JSON.stringify(scaleWorkflow('placeholder.png', prefix, 64)));
  const sets = join(dir, `${prefix}.csv`);
  writeFileSync(sets, `@1.image,Scale.width\n${Array.from({ length: count }, (_, i) => `in.png,${100 * counter + i}`).join('\n')}\n`);
  return { workflow, sets };
}

async function start(args: string[], columns = 100, rows = 24): Promise<TmuxSession> {
  const session = await TmuxSession.start(args, { columns, rows, env: target.env });
  sessions.push(session);
  return session;
}

const HEADER = /^ {2}QUEUED {2}RUNNING {2}DONE {2}FAILED {2}ETA$/;

describe('graphcloud batch in a terminal', () => {
  it('shows one live table (queued, running, done, failed, ETA, the sets running), then the summary', async () => {
    const { workflow, sets } = batchFiles(4);
    const out = join(dir, 'out');
    const session = await start(['batch', workflow, '--inputs', sets, '--concurrency', '2', '--out', out]);
    // A frame with a set done and sets running: the counts add up to the four sets.
    const live = await session.waitFor((s) => s.some((l) => HEADER.test(l)) && s.some((l) => /^ {2}#\d +job [0-9a-f]{8}/.test(l)) && /^ +\d+ +\d+ +[1-9]/.test(s[s.findIndex((l) => HEADER.test(l)) + 1] ?? ''), 'the live table with a set done');
    const at = live.findIndex((l) => HEADER.test(l));
    expect(live[at - 1]).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] {2}Batch {2}4 sets {2}\d\d:\d\d$/);
    const [queued, running, done, failed, eta] = live[at + 1]!.trim().split(/ +/);
    expect(Number(queued) + Number(running) + Number(done) + Number(failed)).toBe(4);
    expect(Number(running)).toBeLessThanOrEqual(2);
    expect(eta).toMatch(/^\d\d:\d\d$/);
    expect(live[at + 2]).toMatch(/^ {2}[█░]{30} +\d+% {2}\d of 4 sets ended$/);
    const { code, screen } = await session.waitForExit(30_000);
    expect(code).toBe(0);
    const text = screen.filter(Boolean);
    // The table is gone: only the summary stays.
    expect(text).toEqual([expect.stringMatching(/^✔ 4 of 4 sets completed in (\d+ ms|\d+(\.\d)? s)$/), `  Outputs in ${out}, one folder per set.`]);
    assertNoSecrets(screen.join('\n'), target.secrets);
  });

  it('fits a narrow terminal on one line', async () => {
    const { workflow, sets } = batchFiles(2);
    const session = await start(['batch', workflow, '--inputs', sets], 40, 10);
    const live = await session.waitFor((s) => s.some((l) => /ETA/.test(l)), 'the narrow table');
    expect(live.filter((l) => /ETA/.test(l))).toEqual([expect.stringMatching(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d✔ \d✖ \d… \d left ETA (--:--|\d\d:\d\d)$/)]);
    const { code } = await session.waitForExit(30_000);
    expect(code).toBe(0);
  });

  it('Ctrl-C starts no new set, cancels the jobs the batch submitted, and ends as cancelled (exit 5)', async () => {
    const { workflow, sets } = batchFiles(4);
    const jobsBefore = target.sim.state.jobs().length;
    const session = await start(['batch', workflow, '--inputs', sets, '--concurrency', '2']);
    await session.waitFor((s) => s.filter((l) => /^ {2}#\d +job [0-9a-f]{8}/.test(l)).length === 2, 'two sets running');
    session.press('C-c');
    const { code, screen } = await session.waitForExit(30_000);
    expect(code).toBe(5);
    const text = screen.filter(Boolean);
    expect(text, text.join('\n')).toContain("⚠ Cancelling the batch's jobs; no new set starts… (Ctrl-C again leaves now)");
    expect(text.at(-1)).toMatch(/^■ 0 of 4 sets completed, 4 cancelled in (\d+ ms|\d+(\.\d)? s)$/);
    // Only the two sets running were sent, and both jobs were cancelled on the server.
    await target.sim.state.waitForIdle();
    expect(target.sim.state.jobs().slice(jobsBefore).map((j) => j.status)).toEqual(['cancelled', 'cancelled']);
  });

  it('a second Ctrl-C leaves at once, printing the ids of the jobs that go on (exit 130)', async () => {
    // The cancellations take a while here, so that the second press comes before their answers.
    const slowCancel = target.sim.faults.failRequests({ path: /\/cancel$/, delayMs: 5_000 });
    onTestFinished(() => slowCancel.remove());
    const { workflow, sets } = batchFiles(4);
    const session = await start(['batch', workflow, '--inputs', sets, '--concurrency', '2']);
    const live = await session.waitFor((s) => s.filter((l) => /^ {2}#\d +job [0-9a-f]{8}/.test(l)).length === 2, 'two sets running');
    const shown = live.flatMap((l) => /job ([0-9a-f]{8})/.exec(l)?.[1] ?? []);
    session.press('C-c');
    // Two signals sent at once may arrive as one: the second press waits for the first's effect.
    await session.waitFor((s) => s.some((l) => l.startsWith('⚠ Cancelling')), 'the cancellation');
    session.press('C-c');
    const { code, screen } = await session.waitForExit();
    expect(code).toBe(130);
    const text = screen.filter(Boolean);
    const at = text.findIndex((l) => l === 'Left the batch without waiting for 2 jobs:');
    expect(at).toBeGreaterThan(-1);
    expect(text.slice(at + 1, at + 3).map((l) => l.trim().slice(0, 8)).sort()).toEqual(shown.sort());
    expect(text[at + 3]).toBe('Their cancellation was asked; see how each ended: graphcloud jobs get <id>');
    expect(screen.join('\n')).not.toMatch(/QUEUED|█|░/);
  });
});
