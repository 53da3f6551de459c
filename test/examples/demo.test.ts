// examples/demo.ts as a user runs it (tsx, the in-process simulator), off a terminal and on one:
// its saved picture is the upload scaled and inverted, its progress bar fits narrow terminals, and
// it writes no escape code when colours are off. The terminal runs go through util-linux `script`,
// which gives the demo a pseudo-terminal of the width `stty` sets.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng } from '../../src/testing/files/png-decode.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const hasScript = process.platform === 'linux' && spawnSync('script', ['--version']).status === 0;
const dirs: string[] = [];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  dir: string;
}

/**
 * Runs the demo to its end (bounded); `columns` runs it on a terminal. The demo sees only PATH,
 * HOME, LANG and `env`: none of the caller's GRAPHCLOUD_*, nor the variables Node reads to decide
 * on colours (CI, NODE_DISABLE_COLORS, NO_COLOR, FORCE_COLOR, TMUX), which a CI runner sets.
 */
function runDemo(env: Record<string, string>, columns?: number): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'graphcloud-demo-test-'));
  dirs.push(dir);
  const clean = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), LANG: 'C.UTF-8' };
  const [command, args] = columns === undefined
    ? [tsx, ['examples/demo.ts']]
    : ['script', ['-qec', `stty cols ${columns} rows 50; exec '${tsx}' examples/demo.ts`, '/dev/null']];
  const child = spawn(command, args, { cwd: root, env: { ...clean, GRAPHCLOUD_DEMO_OUTPUT: dir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, dir });
    });
  });
}

const runs: Record<'pipe' | 'narrow' | 'tiny' | 'noColor' | 'colour', Run> = {} as never;

beforeAll(async () => {
  const [pipe, narrow, tiny, noColor, colour] = await Promise.all([
    runDemo({}),
    hasScript ? runDemo({ FORCE_COLOR: '0', TERM: 'xterm-256color' }, 30) : undefined,
    hasScript ? runDemo({ TERM: 'xterm-256color', NO_COLOR: '1' }, 12) : undefined,
    hasScript ? runDemo({ NO_COLOR: '1', TERM: 'xterm-256color' }, 100) : undefined,
    hasScript ? runDemo({ TERM: 'xterm-256color' }, 100) : undefined,
  ]);
  Object.assign(runs, { pipe, narrow, tiny, noColor, colour });
}, 60_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Every frame drawn on the terminal: the text between line ends and carriage returns. */
function frames(output: string): string[] {
  return output.replaceAll('\r\n', '\n').split(/[\r\n]/);
}

describe('examples/demo.ts', () => {
  it('exits 0 off a terminal and saves the uploaded picture twice as large, inverted', () => {
    const { code, stdout, stderr, dir } = runs.pipe;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/workflow {3}completed, 1 file\(s\) saved/);
    const saved = readdirSync(dir).find((name) => name.startsWith('graphcloud-demo_'));
    expect(saved).toBeDefined();
    const input = decodePng(readFileSync(join(root, 'examples/assets/photo.png')), 1_000_000);
    const output = decodePng(readFileSync(join(dir, saved!)), 1_000_000);
    expect([output.width, output.height]).toEqual([input.width * 2, input.height * 2]);
    // Pixel (x, y) of the output is 255 minus pixel (x/2, y/2) of the input, channel by channel.
    const expected = new Uint8Array(output.data.length);
    for (let y = 0; y < output.height; y += 1) {
      for (let x = 0; x < output.width; x += 1) {
        const from = (Math.floor(y / 2) * input.width + Math.floor(x / 2)) * 3;
        for (let c = 0; c < 3; c += 1) expected[(y * output.width + x) * 3 + c] = 255 - input.data[from + c]!;
      }
    }
    expect(Buffer.from(output.data).equals(Buffer.from(expected))).toBe(true);
  });

  it('says "task is running" and "task succeeded" while the proxy task goes on', () => {
    expect(runs.pipe.stdout).toMatch(/^ {2}task is running \(IN_PROGRESS\)$/m);
    expect(runs.pipe.stdout).toMatch(/^ {2}task succeeded \(COMPLETED\)$/m);
    expect(runs.pipe.stdout).not.toMatch(/is succeeded/);
  });

  it('writes no escape code off a terminal', () => {
    expect(runs.pipe.stdout).not.toContain('\x1b');
    expect(runs.pipe.stdout).not.toContain('\r'); // plain lines, no redrawn bar
  });

  it.skipIf(!hasScript)('draws every progress frame within a 30-column terminal, and no escape code with FORCE_COLOR=0', () => {
    const { code, stdout } = runs.narrow;
    expect(code).toBe(0);
    expect(stdout).not.toContain('\x1b');
    const bars = frames(stdout).filter((frame) => frame.includes('%'));
    expect(bars.length).toBeGreaterThan(5);
    for (const frame of bars) expect([...frame].length, frame).toBeLessThanOrEqual(29);
    expect(bars.some((frame) => frame.includes('['))).toBe(true); // the bar itself still shows
  });

  it.skipIf(!hasScript)('drops the bar but keeps the percentage on a 12-column terminal', () => {
    const { code, stdout } = runs.tiny;
    expect(code).toBe(0);
    const bars = frames(stdout).filter((frame) => frame.includes('%'));
    expect(bars.length).toBeGreaterThan(5);
    for (const frame of bars) expect([...frame].length, frame).toBeLessThanOrEqual(11);
    expect(bars.at(-1)).toMatch(/100%/);
  });

  it.skipIf(!hasScript)('writes no escape code on a terminal with NO_COLOR, and colours a terminal that allows them', () => {
    expect(runs.noColor.code).toBe(0);
    expect(runs.noColor.stdout).not.toContain('\x1b');
    expect(runs.colour.code).toBe(0);
    expect(runs.colour.stdout).toContain('\x1b[1mgraphcloud demo\x1b[0m');
  });
});
