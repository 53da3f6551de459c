// Real worker processes for the queue's tests: test/queue/worker-process.ts bundled once per test
// file with esbuild, BullMQ included (one file loads faster than its hundreds of modules), each started
// with an explicit environment and read line by line.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let bundled: Promise<string> | undefined;

function entry(): Promise<string> {
  bundled ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'graphcloud-worker-'));
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    // BullMQ bundled in too: one file loads faster than its hundreds of modules (the machine is shared).
    await build({
      entryPoints: { worker: join(REPO, 'test/queue/worker-process.ts') },
      outdir: dir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      external: ['msgpackr-extract'],
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
      logLevel: 'silent',
    });
    return join(dir, 'worker.mjs');
  })();
  return bundled;
}

/**
 * A worker process: its JSON lines so far, a way to wait for one, and its end.
 *
 * @example
 * const worker = await startWorker({ GC_REDIS_URL: redis.url, GC_QUEUE: 'q', GC_CLOUD_URL: sim.cloudUrl, GC_API_KEY: sim.apiKey });
 * worker.child.kill('SIGKILL');
 */
export interface WorkerProcess {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  waitFor(predicate: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  /** SIGTERM, then the exit. */
  stop(): Promise<number | null>;
}

const started = new Set<ChildProcess>();

/** Starts a worker process and resolves once it takes runs. */
export async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [await entry()], { env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), LANG: 'C.UTF-8', GC_LOCK_MS: '1500', GC_STALLED_MS: '500', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  const lines: Record<string, unknown>[] = [];
  const waiters: { predicate: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }[] = [];
  let buffer = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let at: number;
    while ((at = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        line = { text };
      }
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (!waiter.predicate(line)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => {
    started.delete(child);
    resolveExit(code);
  }));
  const waitFor = (predicate: (line: Record<string, unknown>) => boolean) => {
    const seen = lines.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise<Record<string, unknown>>((resolveLine, reject) => {
      waiters.push({ predicate, resolve: resolveLine });
      void exited.then((code) => reject(new Error(`worker exited (${code}) first: ${stderr.slice(-2000)}`)));
    });
  };
  await waitFor((line) => line.ready === true);
  return { child, lines, waitFor, exited, stop: async () => (child.kill('SIGTERM'), exited) };
}

/** Kills every worker process still running (SIGKILL), for afterEach. */
export async function killWorkers(): Promise<void> {
  const children = [...started];
  await Promise.all(children.map((child) => new Promise<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGKILL');
  })));
}
