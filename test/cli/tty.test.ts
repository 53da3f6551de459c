// The CLI inside a real pseudo-terminal (tmux): what a person sees, the final screen, a narrow
// terminal, Ctrl-C.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { encodePng } from '../../src/testing/index.js';
import { assertNoSecrets, cliEntries, NODE, scaleWorkflow, startTarget, TmuxSession, type SimTarget } from './helpers.js';

let target: SimTarget;
let dir: string;
let image: string;
let counter = 0;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  // Slow enough to be seen running: 12 steps of 60 ms per node.
  target = await startTarget({ stepDelayMs: 60, progressSteps: 12 });
  dir = mkdtempSync(join(tmpdir(), 'graphcloud-cli-tty-'));
  image = join(dir, 'in.png');
  writeFileSync(image, encodePng(64, 48, [20, 120, 220]));
});
afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
});
afterAll(async () => {
  await target?.sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function workflowFile(): string {
  const prefix = `tty${++counter}`;
  const path = join(dir, `${prefix}.json`);
  writeFileSync(path, JSON.stringify(scaleWorkflow('placeholder.png', prefix, 200 + counter)));
  return path;
}

async function start(args: string[], columns = 100, rows = 24, env: Record<string, string | undefined> = target.env): Promise<TmuxSession> {
  const session = await TmuxSession.start(args, { columns, rows, env });
  sessions.push(session);
  return session;
}

const running = (screen: string[]): boolean => screen.some((line) => /Running/.test(line)) && screen.some((line) => /\d+%/.test(line));

describe('graphcloud run in a terminal', () => {
  it('shows one live display (overall and node progress, the node, the time), then the outcome', async () => {
    const out = join(dir, 'out-tty');
    const session = await start(['run', workflowFile(), '--upload', `1.image=${image}`, '--out', out]);
    const live = await session.waitFor((s) => running(s) && s.some((l) => /#\d/.test(l)), 'the live display');
    const header = live.find((l) => l.includes('Running'))!;
    expect(header).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] {2}Running {2}job [0-9a-f]{8} {2}\d\d:\d\d$/);
    expect(live.some((l) => /^ {2}[█░]{40} +\d+% {2}\d of 3 nodes$/.test(l))).toBe(true);
    const { code, screen } = await session.waitForExit();
    expect(code).toBe(0);
    const text = screen.filter(Boolean);
    // The live lines are gone: only what stays is on the screen.
    expect(text[0]).toMatch(/^✔ Submitted job [0-9a-f-]{36}$/);
    expect(text[1]).toMatch(/^✔ Completed job [0-9a-f-]{36} in \d+\.\d s$/);
    expect(text.slice(2)).toEqual(['  Saved 1 file:', `    ${join(out, readdirSync(out)[0]!)}`]);
    expect(screen.join('\n')).not.toMatch(/Running|█|░/);
    assertNoSecrets(screen.join('\n'), target.secrets);
  });

  it('fits a narrow terminal: short lines redrawn in place, no wrapped leftovers', async () => {
    const session = await start(['run', workflowFile(), '--upload', `1.image=${image}`], 40, 12);
    // Sampled through the run: every frame holds one display, never a stale or wrapped copy.
    for (let i = 0; i < 3; i++) {
      const live = await session.waitFor((s) => s.some((l) => /Running/.test(l)) && s.some((l) => /#\d/.test(l)), 'the narrow display');
      expect(live.filter((l) => /Running/.test(l))).toHaveLength(1);
      expect(live.find((l) => /Running/.test(l))).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Running +\d+% \d\d:\d\d$/);
      expect(live.filter((l) => /#\d/.test(l))).toHaveLength(1);
    }
    const { code, screen } = await session.waitForExit();
    expect(code).toBe(0);
    const text = screen.filter(Boolean);
    expect(text[0]).toMatch(/^✔ Submitted job [0-9a-f-]+$/);
    expect(text.some((l) => /^✔ Completed job/.test(l))).toBe(true);
    expect(screen.join('\n')).not.toMatch(/Running|█|░|⠋|⠙|⠹/);
  });

  it('Ctrl-C asks the server to cancel the job, shows it, and ends as cancelled (exit 5)', async () => {
    const session = await start(['run', workflowFile(), '--upload', `1.image=${image}`]);
    const live = await session.waitFor(running, 'the run');
    const promptId = /Submitted job ([0-9a-f-]{36})/.exec(live.join('\n'))![1]!;
    session.press('C-c');
    const { code, screen } = await session.waitForExit();
    expect(code).toBe(5);
    const text = screen.filter(Boolean);
    expect(text).toContain(`⚠ Cancelling job ${promptId}… (Ctrl-C again leaves now)`);
    expect(text.at(-1)).toBe(`■ Cancelled job ${promptId}.`);
    expect(screen.join('\n')).not.toMatch(/Running|█|░/);
    expect(target.sim.state.jobs().find((j) => j.id === promptId)?.status).toBe('cancelled');
  });

  it('a second Ctrl-C leaves at once, printing the job id', async () => {
    // The cancellation takes a while here, so that the second press comes before its answer.
    const slowCancel = target.sim.faults.failRequests({ path: /\/cancel$/, delayMs: 5_000 });
    onTestFinished(() => slowCancel.remove());
    const session = await start(['run', workflowFile(), '--upload', `1.image=${image}`]);
    const live = await session.waitFor(running, 'the run');
    const promptId = /Submitted job ([0-9a-f-]{36})/.exec(live.join('\n'))![1]!;
    session.press('C-c');
    // Two signals sent at once may arrive as one: the second press waits for the first's effect.
    await session.waitFor((s) => s.some((l) => l.startsWith('⚠ Cancelling')), 'the cancellation');
    session.press('C-c');
    const { code, screen } = await session.waitForExit();
    expect(code).toBe(130);
    expect(screen.join('\n')).toContain(`Left without waiting for job ${promptId}:`);
    expect(screen.join('\n')).not.toMatch(/Running|█|░/);
  });
});

/** Runs the CLI under `script` (util-linux): a pseudo-terminal whose raw bytes are kept. */
async function underScript(args: string[], env: Record<string, string>, onOutput?: (raw: string, type: (keys: string) => void) => void): Promise<{ code: number | null; raw: string }> {
  const { cli } = await cliEntries();
  const command = [NODE, cli, ...args].map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { PATH: process.env.PATH ?? '', LANG: 'C.UTF-8', TERM: 'xterm-256color', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let raw = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    raw += chunk;
    // What is written to script's input is typed on the terminal: \x03 is Ctrl-C.
    onOutput?.(raw, (keys) => child.stdin.write(keys));
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { code, raw };
}

describe('colours and the cursor on a terminal', () => {
  // Select Graphic Rendition: a colour, bold or dim.
  const SGR_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[(3\\d|9\\d|1|2)m`);

  it('uses colours on a terminal, hides the cursor while drawing and shows it again', async () => {
    const { code, raw } = await underScript(['run', workflowFile(), '--upload', `1.image=${image}`], target.env);
    expect(code).toBe(0);
    expect(raw).toMatch(SGR_COLOUR);
    expect(raw.indexOf('\x1b[?25l')).toBeGreaterThanOrEqual(0);
    expect(raw.lastIndexOf('\x1b[?25h')).toBeGreaterThan(raw.lastIndexOf('\x1b[?25l'));
    assertNoSecrets(raw, target.secrets);
  });

  it.each([['NO_COLOR', '1'], ['FORCE_COLOR', '0']])('%s=%s: the same display without a colour', async (name, value) => {
    const { code, raw } = await underScript(['run', workflowFile(), '--upload', `1.image=${image}`], { ...target.env, [name]: value });
    expect(code).toBe(0);
    expect(raw).toContain('Running');
    expect(raw).not.toMatch(SGR_COLOUR);
  });

  it('leaving with a second Ctrl-C shows the cursor again', async () => {
    const slowCancel = target.sim.faults.failRequests({ path: /\/cancel$/, delayMs: 5_000 });
    onTestFinished(() => slowCancel.remove());
    let presses = 0;
    const { code, raw } = await underScript(['run', workflowFile(), '--upload', `1.image=${image}`], target.env, (output, type) => {
      if (presses === 0 && output.includes('Running')) {
        presses = 1;
        type('\x03');
      } else if (presses === 1 && output.includes('Cancelling job')) {
        presses = 2;
        type('\x03');
      }
    });
    expect(code).toBe(130);
    expect(raw).toContain('Left without waiting for job');
    expect(raw.lastIndexOf('\x1b[?25h')).toBeGreaterThan(raw.lastIndexOf('\x1b[?25l'));
  });

  it('TERM=dumb: plain lines, no redraw', async () => {
    const { code, raw } = await underScript(['run', workflowFile(), '--upload', `1.image=${image}`, '--human'], { ...target.env, TERM: 'dumb' });
    expect(code).toBe(0);
    expect(raw).not.toContain('\x1b[');
    expect(raw).toMatch(/running Scale \(ImageScale\) #2/);
  });
});
