import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Each scenario runs in a child process that closes the client and the simulator and must then
// exit on its own: a timer, socket or request the SDK left open would keep it alive.
const FIXTURE = fileURLToPath(new URL('./fixtures/exit-after-close.ts', import.meta.url));
const HANG_GUARD_MS = 30_000;

function run(scenario: string): Promise<{ code: number | null; output: string; hung: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, scenario], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let hung = false;
    const guard = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, HANG_GUARD_MS);
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, output, hung });
    });
  });
}

describe('cloud.close() and await using', () => {
  it.each([
    ['abort-during-upload', 'AbortError'],
    ['abort-after-submit', 'AbortError'],
    ['close-during-watch', 'WatcherClosedError'],
    ['close-during-upload', 'ClientClosedError'],
    ['await-using', 'WatcherClosedError'],
  ])('leaves nothing open: %s', async (scenario, outcome) => {
    const { code, output, hung } = await run(scenario);
    expect(hung).toBe(false);
    expect(output).toContain(`${scenario}: ${outcome}`);
    expect(code).toBe(0);
  }, HANG_GUARD_MS + 5_000);
});
