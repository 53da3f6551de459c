import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO } from './helpers.js';

// `npm test` (scripts/test.mjs) checks every tool its steps need before the first step, instead of
// failing at the browser step minutes later. Run with a PATH that holds nothing (no apt-get to
// install with, no redis-server) and CHROMIUM_PATH naming no file, it stops at once with the one
// command that installs what is missing; no step starts.
let nowhere = '';
beforeEach(() => {
  nowhere = mkdtempSync(path.join(os.tmpdir(), 'graphcloud-no-tools-'));
});
afterEach(() => rmSync(nowhere, { recursive: true, force: true }));

function npmTest(env: Record<string, string>): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, ['scripts/test.mjs'], {
    cwd: REPO,
    encoding: 'utf8',
    // A bound on a broken check, which would go on to the steps; the refusal takes well under it.
    timeout: 60_000,
    env: { PATH: nowhere, HOME: nowhere, LANG: 'C.UTF-8', FORCE_COLOR: '0', ...env },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

// Every step id of scripts/test.mjs (the first column of its table), so a step added there is covered here.
const STEP_IDS = [...readFileSync(path.join(REPO, 'scripts/test.mjs'), 'utf8').matchAll(/^\s*\['([a-z0-9-]+)', ["']/gm)].map((m) => m[1] as string);

describe('npm test (scripts/test.mjs) prerequisites', () => {
  it('stops before the first step, naming the command that installs Chromium and redis-server', () => {
    const { status, output } = npmTest({ CHROMIUM_PATH: path.join(nowhere, 'chromium') });
    expect(output).toContain('apt-get install -y chromium redis-server');
    expect(output).toContain(path.join(nowhere, 'chromium'));
    expect(output).not.toContain('▶');
    expect(status).toBe(2);
  });

  it('names only what is missing: redis-server, when Chromium is found', () => {
    const { status, output } = npmTest({ CHROMIUM_PATH: process.execPath });
    expect(output).toMatch(/apt-get install -y redis-server$/m);
    expect(output).not.toContain('▶');
    expect(status).toBe(2);
  });

  it('asks nothing of the steps left out with GRAPHCLOUD_TEST_SKIP', () => {
    // Every step skipped: no prerequisite is needed, and the run ends at once.
    const every = STEP_IDS.join(',');
    const { status, output } = npmTest({ CHROMIUM_PATH: path.join(nowhere, 'chromium'), GRAPHCLOUD_TEST_SKIP: every });
    expect(output).not.toContain('apt-get');
    expect(output).toContain('All checks passed');
    expect(status).toBe(0);
  });

  it('goes on when each tool is found (CHROMIUM_PATH, REDIS_SERVER_PATH)', () => {
    const every = STEP_IDS.filter((id) => id !== 'browser' && id !== 'runtimes').join(',');
    // The browser steps left in, and their tool found; stand-ins are any executable file. The steps
    // themselves are skipped but two, which fail for want of node on PATH: what counts is that they start.
    const { output } = npmTest({ CHROMIUM_PATH: process.execPath, REDIS_SERVER_PATH: process.execPath, GRAPHCLOUD_TEST_SKIP: every });
    expect(output).not.toContain('apt-get');
    expect(output).toContain('▶ browser');
  });
});
