// A real redis-server for the queue's tests: its own port, its data in a temp folder, the
// append-only file on (a restart keeps every write), stopped by the test. Never mocked.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The same lookup as npm test's prerequisite check (scripts/prerequisites.mjs): REDIS_SERVER_PATH, else PATH.
const REDIS = process.env.REDIS_SERVER_PATH ?? 'redis-server';

/**
 * A redis-server started for one test file.
 *
 * @example
 * const redis = await startRedis();
 * new RunQueue({ connection: redis.url, name: 'q' });
 * await redis.stop();
 */
export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM: it writes its append-only file first) and starts it again on the same port and data, after `downMs` (default 0). */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

function launch(port: number, dir: string, appendfsync: 'always' | 'everysec'): Promise<ChildProcess> {
  const child = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', appendfsync, '--save', '', '--protected-mode', 'no'], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, LANG: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.resume();
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) on port ${port}: ${out.slice(-400)}`)));
    child.once('error', reject);
  });
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * Starts redis-server on a free port (a taken one is tried again with another). Tests write every
 * command to disk before answering (`always`); the benchmark runs as docs/queue.md advises (`everysec`).
 */
export async function startRedis(options: { appendfsync?: 'always' | 'everysec' } = {}): Promise<TestRedis> {
  const appendfsync = options.appendfsync ?? 'always';
  const dir = mkdtempSync(join(tmpdir(), 'graphcloud-redis-'));
  let lastError: unknown;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    let child: ChildProcess;
    try {
      child = await launch(port, dir, appendfsync);
    } catch (error) {
      lastError = error;
      continue;
    }
    const server = {
      url: `redis://127.0.0.1:${port}`,
      port,
      restart: async (downMs = 0) => {
        await stopped(child);
        if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
        child = await launch(port, dir, appendfsync);
      },
      stop: async () => {
        await stopped(child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return server;
  }
  throw new Error(`redis-server did not start: ${String(lastError)}`);
}
