// Runs the real `graphcloud` command line in a child process: piped (JSON lines), or inside a
// pseudo-terminal (tmux, `script`). By default the sources are bundled once per test file with
// esbuild; GRAPHCLOUD_CLI_BIN=dist/cli.js runs the built bin instead (a step of `npm test`).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/testing/index.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const NODE = process.execPath;

let built: Promise<{ cli: string; sim: string }> | undefined;

/** The CLI's entry files: the built bins, or a bundle of the sources made once per test file. */
export function cliEntries(): Promise<{ cli: string; sim: string }> {
  const bin = process.env.GRAPHCLOUD_CLI_BIN;
  if (bin) return Promise.resolve({ cli: resolve(REPO, bin), sim: resolve(REPO, dirname(bin), 'graphcloud-sim.js') });
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'graphcloud-cli-'));
    // Bare imports (ky, zod, ws) resolve through the repository's node_modules.
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await build({
      entryPoints: { cli: join(REPO, 'src/cli/main.ts'), 'graphcloud-sim': join(REPO, 'src/cli/sim-main.ts') },
      outdir: dir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      packages: 'external',
      define: { __GRAPHCLOUD_VERSION__: JSON.stringify('0.0.0-test') },
      logLevel: 'silent',
    });
    return { cli: join(dir, 'cli.mjs'), sim: join(dir, 'graphcloud-sim.mjs') };
  })();
  return built;
}

/** The simulator plus the environment that points the CLI at it. */
export interface SimTarget {
  sim: Simulator;
  env: Record<string, string>;
  /** Every credential of the environment: no output may contain one. */
  secrets: string[];
}

/** Starts a simulator on 127.0.0.1 and the environment that points the CLI at it. */
export async function startTarget(options: SimulatorOptions = {}): Promise<SimTarget> {
  const sim = await startSimulator({ stepDelayMs: 1, taskDurationMs: 300, ...options });
  const env = {
    GRAPHCLOUD_CLOUD_URL: sim.cloudUrl,
    GRAPHCLOUD_API_KEY: sim.apiKey,
    GRAPHCLOUD_REGISTRY_URL: sim.registryUrl,
    GRAPHCLOUD_REGISTRY_TOKEN: sim.token,
    GRAPHCLOUD_PROXY_URL: sim.proxyUrl,
    GRAPHCLOUD_PROXY_TOKEN: sim.token,
  };
  return { sim, env, secrets: [sim.apiKey, sim.token] };
}

/** What one run of the CLI printed. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON lines (empty when it is not JSON). */
  lines: Record<string, unknown>[];
}

/** A clean environment: nothing of the developer's shell (their real keys) leaks into a test. */
function baseEnv(extra: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), LANG: 'C.UTF-8' };
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

/**
 * Runs `graphcloud <args>` with stdout piped and resolves when it exits. Asserts that no secret
 * reached stdout or stderr.
 */
export async function runPiped(args: readonly string[], options: { env?: Record<string, string | undefined>; secrets?: readonly string[]; cwd?: string; bin?: 'cli' | 'sim' } = {}): Promise<CliRun> {
  const entries = await cliEntries();
  const child = spawn(NODE, [entries[options.bin ?? 'cli'], ...args], { env: baseEnv(options.env ?? {}), cwd: options.cwd ?? REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
  assertNoSecrets(`${stdout}\n${stderr}`, options.secrets ?? []);
  return { code, stdout, stderr, lines: parseLines(stdout) };
}

/** stdout as JSON objects, one per line. */
export function parseLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return { unparsed: line };
      }
    });
}

/** Fails when any secret appears in the text. */
export function assertNoSecrets(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(text.includes(secret), `a secret was printed:\n${text}`).toBe(false);
}

/** A small API-format workflow: load, scale, save; `steps` and `prefix` vary it so no run is cached. */
export function scaleWorkflow(image: string, prefix: string, width = 384): Record<string, unknown> {
  return {
    '1': { class_type: 'LoadImage', inputs: { image }, _meta: { title: 'Load Image' } },
    '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width, height: 0, crop: 'disabled' }, _meta: { title: 'Scale' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
  };
}

/**
 * A workflow that runs `steps` nodes in a row (ImageInvert after the image is loaded): a job that
 * stays queued or running for as long as a test needs, whatever the machine's load (a three-node
 * job ended before a CLI process started on a loaded machine).
 */
export function longWorkflow(image: string, prefix: string, steps = 40): Record<string, unknown> {
  const workflow: Record<string, unknown> = { '0': { class_type: 'LoadImage', inputs: { image } } };
  for (let i = 1; i <= steps; i += 1) workflow[String(i)] = { class_type: 'ImageInvert', inputs: { image: [String(i - 1), 0] } };
  workflow[String(steps + 1)] = { class_type: 'SaveImage', inputs: { images: [String(steps), 0], filename_prefix: prefix } };
  return workflow;
}

export { NODE, REPO };

/** A command line inside tmux: a real pseudo-terminal whose screen can be read. */
export class TmuxSession {
  readonly #socket: string;
  readonly #env: Record<string, string>;
  readonly #statusFile: string;

  private constructor(socket: string, env: Record<string, string>, statusFile: string) {
    this.#socket = socket;
    this.#env = env;
    this.#statusFile = statusFile;
  }

  /** Starts `graphcloud <args>` in a `columns` × `rows` terminal. */
  static async start(args: readonly string[], options: { columns: number; rows: number; env: Record<string, string | undefined>; cwd?: string }): Promise<TmuxSession> {
    const { cli } = await cliEntries();
    const socket = `graphcloud-cli-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const env = baseEnv({ ...options.env, TERM: 'xterm-256color' });
    const session = new TmuxSession(socket, env, join(tmuxDir(), `${socket}.status`));
    const command = [NODE, cli, ...args].map(shellQuote).join(' ');
    // The exit status goes through a file: tmux 3.3 now and then does not reap the pane's process
    // (it stays a zombie and #{pane_dead_status} stays empty). `trap : INT` keeps the shell alive
    // through Ctrl-C, which the CLI handles.
    session.#tmux(['-f', tmuxConfig(), 'new-session', '-d', '-s', 'cli', '-x', String(options.columns), '-y', String(options.rows), '-c', options.cwd ?? REPO, `trap : INT; ${command}; echo $? > ${session.#statusFile}`]);
    return session;
  }

  /**
   * The screen, one string per line (trailing spaces removed), with the lines scrolled off it: tmux
   * scrolls the first line away when it notes "Pane is dead" (remain-on-exit), a note left out here.
   */
  screen(): string[] {
    const lines = this.#tmux(['capture-pane', '-p', '-S', '-', '-t', 'cli']).stdout.split('\n').map((line) => line.trimEnd());
    return lines.filter((line) => !line.startsWith('Pane is dead ('));
  }

  /** Presses keys: `C-c` is Ctrl-C. */
  press(key: string): void {
    this.#tmux(['send-keys', '-t', 'cli', key]);
  }

  /** The command's exit status once it ended, else undefined. */
  exitCode(): number | undefined {
    try {
      const text = readFileSync(this.#statusFile, 'utf8');
      return /^\d+\n$/.test(text) ? Number(text) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Waits until the screen satisfies `test`, reading it every 50 ms; fails with the last screen after `limitMs` (under the test timeout, so the screen is shown). */
  async waitFor(test: (screen: string[]) => boolean, what: string, limitMs = 15_000): Promise<string[]> {
    const end = Date.now() + limitMs;
    for (;;) {
      const screen = this.screen();
      if (test(screen)) return screen;
      if (Date.now() > end) throw new Error(`tmux: ${what} did not appear; the screen was:\n${screen.join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Waits for the command to end; resolves with its exit status and final screen. */
  async waitForExit(limitMs = 15_000): Promise<{ code: number; screen: string[] }> {
    const end = Date.now() + limitMs;
    for (;;) {
      const code = this.exitCode();
      if (code !== undefined) return { code, screen: this.screen() };
      if (Date.now() > end) throw new Error(`tmux: the command did not end; the screen was:\n${this.screen().join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Ends the tmux server of this session. */
  close(): void {
    this.#tmux(['kill-server'], true);
  }

  #tmux(args: readonly string[], quiet = false): { stdout: string } {
    const result = spawnSync('tmux', ['-L', this.#socket, ...args], { env: this.#env, encoding: 'utf8' });
    if (result.status !== 0 && !quiet) throw new Error(`tmux ${args[0]} failed: ${result.stderr}`);
    return { stdout: result.stdout ?? '' };
  }
}

let scratch: string | undefined;
function tmuxDir(): string {
  if (!scratch) {
    const dir = mkdtempSync(join(tmpdir(), 'graphcloud-tmux-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    scratch = dir;
  }
  return scratch;
}

/** A tmux configuration read at start: remain-on-exit keeps the screen after the command ends; no status bar. */
function tmuxConfig(): string {
  const config = join(tmuxDir(), 'tmux.conf');
  writeFileSync(config, 'set -g remain-on-exit on\nset -g status off\n');
  return config;
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
