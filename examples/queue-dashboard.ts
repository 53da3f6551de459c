/**
 * A run queue with its dashboard: a RunWorker, five runs added to the queue, and bull-board
 * (examples/queue-dashboard-server.ts) showing them. In a terminal it serves the dashboard until
 * Ctrl-C; piped (as `npm run examples` runs it) it checks that the dashboard lists the runs, and
 * exits.
 *
 *   npx tsx examples/queue-dashboard.ts     # redis-server (from PATH) and the simulator, started here
 *
 * Against yours, set:
 *   GRAPHCLOUD_REDIS_URL                      the Redis of the queue (redis://host:6379)
 *   GRAPHCLOUD_CLOUD_URL, GRAPHCLOUD_API_KEY  the cloud the worker runs on
 *   GRAPHCLOUD_QUEUE                          the queue's name (default graphcloud-example-dashboard: a
 *                                             queue of its own, so its runs and its worker never mix
 *                                             with those of `graphcloud batch --redis`)
 *   PORT                                      the dashboard's port on 127.0.0.1 (default 3000)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Workflow } from 'graphcloud';
import { RunQueue, RunWorker } from 'graphcloud/queue';
import type { Simulator } from 'graphcloud/testing';
import { startQueueDashboard } from './queue-dashboard-server.js';

const env = process.env;
// Never the queue of `graphcloud batch --redis` and `graphcloud worker` (graphcloud): pointed at a
// real Redis, this example would add its runs there and run other people's runs in its worker.
const name = env.GRAPHCLOUD_QUEUE || 'graphcloud-example-dashboard';
const workflow: Workflow = {
  '1': { class_type: 'LoadImage', inputs: { image: 'replaced by the upload' } },
  '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 128, height: 0, crop: 'disabled' } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'dashboard' } },
};

/** A redis-server of this example's own, on a free port, its data in a temp folder. */
async function startRedis(): Promise<{ url: string; stop(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'graphcloud-example-redis-'));
  for (let attempt = 0; attempt < 10; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const ready = await new Promise<boolean>((resolve) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) resolve(true);
      });
      child.once('exit', () => resolve(false));
      child.once('error', () => resolve(false));
    });
    if (ready) {
      child.stdout!.resume();
      return { url: `redis://127.0.0.1:${port}`, stop: () => (child.kill('SIGTERM'), rmSync(dir, { recursive: true, force: true })) };
    }
  }
  throw new Error('redis-server did not start: install it (Debian: apt-get install redis-server), or set GRAPHCLOUD_REDIS_URL');
}

const redis = env.GRAPHCLOUD_REDIS_URL ? undefined : await startRedis();
const connection = env.GRAPHCLOUD_REDIS_URL || redis!.url;
// The simulator is loaded only when no cloud is named.
const sim: Simulator | undefined = env.GRAPHCLOUD_CLOUD_URL ? undefined : await (await import('graphcloud/testing')).startSimulator({ stepDelayMs: 20 });
const cloud = { baseUrl: env.GRAPHCLOUD_CLOUD_URL || sim!.cloudUrl, apiKey: env.GRAPHCLOUD_API_KEY || sim?.apiKey };

const queue = new RunQueue({ connection, name, cloud });
const worker = new RunWorker({ connection, name, cloud, concurrency: 2, onLog: (line) => console.log(line) });
const dashboard = await startQueueDashboard({ connection, queues: [name], port: Number(env.PORT ?? (process.stdout.isTTY ? 3000 : 0)) });
try {
  await worker.ready();
  const photo = fileURLToPath(new URL('./assets/photo.png', import.meta.url));
  const runs = await Promise.all([1, 2, 3, 4, 5].map((n) => queue.add({ workflow, inputs: { 'ImageScale.width': 64 * n, '3.filename_prefix': `dashboard-${n}` }, uploads: { '1.image': photo } }, { id: `example-${Date.now()}-${n}` })));
  console.log(`added ${runs.length} runs to queue ${name}; the dashboard: ${dashboard.url}`);
  for (const run of runs) {
    await run.result();
    console.log(`run ${run.id}: ${(await run.get())?.state}`);
  }
  if (process.stdout.isTTY) {
    console.log(`open ${dashboard.url} (Ctrl-C stops)`);
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  } else {
    // Piped: the dashboard's own API lists the runs, as its page does.
    const answer = (await (await fetch(`${dashboard.url}/api/queues?activeQueue=${name}&status=completed&page=1`)).json()) as { queues: { name: string; jobs: { id: string }[] }[] };
    const listed = new Set(answer.queues.find((q) => q.name === name)?.jobs.map((job) => job.id));
    const missing = runs.filter((run) => !listed.has(run.id));
    if (missing.length > 0) throw new Error(`the dashboard does not list ${missing.map((run) => run.id).join(', ')}`);
    console.log(`the dashboard lists the ${runs.length} runs`);
  }
} finally {
  await dashboard.close();
  await worker.close();
  await queue.close();
  await sim?.close();
  redis?.stop();
}
