// `npm run demo` (examples/demo.ts) as a user runs it, off a TTY: with the in-process simulator,
// and with the GRAPHCLOUD_* variables against a standalone `graphcloud-sim` (dist/graphcloud-sim.js)
// standing in for a real deployment. Both must print plain lines, save their files and exit 0 on
// their own (a handle left open would make the process outlive its timeout).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { within } from './helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function start(command: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, FORCE_COLOR: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  return child;
}

async function runToEnd(child: ChildProcess, ms: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const code = await within(new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c))), ms, 'the demo process to exit');
  return { code, stdout, stderr };
}

function outputDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'graphcloud-demo-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function expectDemoOutput(stdout: string, dir: string): void {
  expect(stdout).not.toContain('\r'); // not a TTY: plain lines, no redrawn bar
  expect(stdout).toMatch(/running node 2 \(ImageScale\)/);
  expect(stdout).toMatch(/100% \(/);
  expect(stdout).toMatch(/workflow {3}completed, 1 file\(s\) saved/);
  expect(stdout).toMatch(/upscale {4}COMPLETED/);
  expect(stdout).toMatch(/registry {3}250 versions listed/);
  const files = readdirSync(dir);
  expect(files.some((f) => /^graphcloud-demo_\d+_\.png$/.test(f))).toBe(true);
  expect(files.some((f) => /^upscaled-.+\.png$/.test(f))).toBe(true);
}

describe('npm run demo', () => {
  it('runs against the in-process simulator, prints plain lines off a TTY, saves its files and exits 0', async () => {
    const dir = outputDir();
    const env: Record<string, string> = { GRAPHCLOUD_DEMO_OUTPUT: dir };
    for (const name of ['GRAPHCLOUD_CLOUD_URL', 'GRAPHCLOUD_REGISTRY_URL', 'GRAPHCLOUD_PROXY_URL']) env[name] = '';
    const { code, stdout, stderr } = await runToEnd(start(tsx, ['examples/demo.ts'], env), 60_000);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/against the local simulator/);
    expectDemoOutput(stdout, dir);
  }, 70_000);

  it('runs against a deployment named by the GRAPHCLOUD_* variables (a graphcloud-sim process)', async () => {
    const sim = start(process.execPath, ['dist/graphcloud-sim.js', '--json', '--quiet', '--task-duration-ms', '800', '--step-delay-ms', '5'], {});
    let banner = '';
    sim.stdout?.on('data', (chunk) => (banner += chunk));
    // Its first JSON line says where it listens, with the demo credentials.
    const ready = await within(
      new Promise<{ cloudUrl: string; registryUrl: string; proxyUrl: string; credentials: { apiKey: string; token: string } }>((resolve, reject) => {
        sim.stdout?.on('data', () => banner.includes('\n') && resolve(JSON.parse(banner.slice(0, banner.indexOf('\n')))));
        sim.on('close', (c) => reject(new Error(`graphcloud-sim exited (${c}): ${banner}`)));
      }),
      15_000,
      'graphcloud-sim to start',
    );
    const dir = outputDir();
    const env = {
      GRAPHCLOUD_CLOUD_URL: ready.cloudUrl,
      GRAPHCLOUD_API_KEY: ready.credentials.apiKey,
      GRAPHCLOUD_REGISTRY_URL: ready.registryUrl,
      GRAPHCLOUD_REGISTRY_TOKEN: ready.credentials.token,
      GRAPHCLOUD_PROXY_URL: ready.proxyUrl,
      GRAPHCLOUD_PROXY_TOKEN: ready.credentials.token,
      GRAPHCLOUD_DEMO_OUTPUT: dir,
    };
    // The CLI's fixed demo credentials, as docs/testing.md lists them.
    expect(env.GRAPHCLOUD_API_KEY).toBe('gcsim_demo_api_key');
    const { code, stdout, stderr } = await runToEnd(start(tsx, ['examples/demo.ts'], env), 60_000);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`against deployment at ${new URL(env.GRAPHCLOUD_CLOUD_URL).host}`);
    expectDemoOutput(stdout, dir);
    sim.kill('SIGTERM');
    const exit = await within(new Promise<number | null>((resolve) => (sim.exitCode !== null ? resolve(sim.exitCode) : sim.on('close', (c) => resolve(c)))), 10_000, 'graphcloud-sim to stop on SIGTERM');
    expect(exit).toBe(0);
  }, 90_000);

  it('fails with exit code 1 and a clear message when the key is missing', async () => {
    const { code, stderr } = await runToEnd(start(tsx, ['examples/demo.ts'], { GRAPHCLOUD_CLOUD_URL: 'http://127.0.0.1:9', GRAPHCLOUD_API_KEY: '' }), 30_000);
    expect(code).toBe(1);
    expect(stderr).toContain('GRAPHCLOUD_API_KEY is not');
  }, 40_000);
});
