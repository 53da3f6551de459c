// The examples that use a run queue use one of their own name: pointed at a real Redis, an example
// must neither add its demo runs to the queue of `graphcloud batch --redis` (graphcloud) nor run a
// worker there (it would take over real runs). Runs examples/queue-dashboard.ts as a user would
// (tsx, the in-process simulator), against a real redis-server.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunQueue } from '../../src/queue/index.js';
import { startRedis, type TestRedis } from './redis-server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const examples = join(root, 'examples');
let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => redis?.stop());

/** Every example file (any depth) whose code (not its comments) opens a queue or a worker. */
function queueExamples(dir = examples): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return queueExamples(path);
    return /\.(ts|mjs|js)$/.test(entry.name) && readFileSync(path, 'utf8').split('\n').some((line) => !/^\s*(\/\/|\*|\/\*)/.test(line) && /new (RunQueue|RunWorker)\(/.test(line)) ? [path.slice(examples.length + 1)] : [];
  });
}

describe('examples and the run queue', { timeout: 90_000 }, () => {
  it('the examples that open a queue are these two (a new one joins the checks below)', () => {
    expect(queueExamples().sort()).toEqual(['queue-dashboard-page.mjs', 'queue-dashboard.ts']);
    // The page check names a fresh queue on a redis-server of its own.
    const page = readFileSync(join(examples, 'queue-dashboard-page.mjs'), 'utf8');
    expect(page).toMatch(/const name = `dashboard-\$\{globalThis\.crypto\.randomUUID\(\)/);
    expect(page).toContain('const redis = await startRedis();');
  });

  it('queue-dashboard.ts against a given Redis uses a queue of its own: the default queue gets no run and no worker', async () => {
    await using main = new RunQueue({ connection: redis.url, name: 'graphcloud' });
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'examples/queue-dashboard.ts'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LANG: 'C.UTF-8', GRAPHCLOUD_REDIS_URL: redis.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('added 5 runs to queue graphcloud-example-dashboard');
    const { counts } = await main.status();
    expect(counts).toEqual({ waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0 });
    await using own = new RunQueue({ connection: redis.url, name: 'graphcloud-example-dashboard' });
    expect((await own.status()).counts.completed).toBe(5);
  });
});
