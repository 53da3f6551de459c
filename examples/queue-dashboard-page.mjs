// `npm test` step "dashboard": bull-board (examples/queue-dashboard-server.ts) in headless
// Chromium lists the runs of a graphcloud/queue: a real redis-server (test/queue/redis-server.ts),
// the simulator, a RunWorker and three runs added by a RunQueue, built package only (run
// `npm run build` first). The page must show each run's id among the completed jobs, and one run
// added while the queue is paused among the waiting ones. Prints one JSON line; exit 1 on any
// failure. Chromium is the system one (CHROMIUM_PATH, default /usr/bin/chromium).
//
//   node --experimental-strip-types examples/queue-dashboard-page.mjs
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { RunQueue, RunWorker } from 'graphcloud/queue';
import { encodePng, startSimulator } from 'graphcloud/testing';
import { startRedis } from '../test/queue/redis-server.ts';
import { startQueueDashboard } from './queue-dashboard-server.ts';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
const STEP_TIMEOUT_MS = 30_000;
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const started = Date.now();
const report = { ok: false, steps: {} };
const watchdog = setTimeout(() => finish(new Error('gave up after 3 minutes')), 180_000);

async function finish(error) {
  clearTimeout(watchdog);
  report.ms = Date.now() - started;
  if (error) report.error = error.message;
  console.log(JSON.stringify(report));
  process.exit(error ? 1 : 0);
}

if (!existsSync(executablePath)) await finish(new Error(`no Chromium at ${executablePath} (set CHROMIUM_PATH, or skip this step with GRAPHCLOUD_TEST_SKIP=dashboard)`));

const name = `dashboard-${globalThis.crypto.randomUUID().slice(0, 8)}`;
const redis = await startRedis();
const sim = await startSimulator({ stepDelayMs: 5 });
const cloud = { baseUrl: sim.cloudUrl, apiKey: sim.apiKey };
const queue = new RunQueue({ connection: redis.url, name, cloud });
const worker = new RunWorker({ connection: redis.url, name, cloud });
const dashboard = await startQueueDashboard({ connection: redis.url, queues: [name] });
const workflow = {
  1: { class_type: 'LoadImage', inputs: { image: 'replaced by the upload' } },
  2: { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'dashboard' } },
};
const photo = encodePng(8, 8, [30, 90, 200]);
let browser;
try {
  await worker.ready();
  const runs = await Promise.all(['a', 'b', 'c'].map((n) => queue.add({ workflow, inputs: { '2.filename_prefix': `dashboard-${n}` }, uploads: { '1.image': photo } }, { id: `page-run-${n}` })));
  for (const run of runs) await run.result();
  await queue.pause();
  const waiting = await queue.add({ workflow, inputs: { '2.filename_prefix': 'dashboard-waiting' }, uploads: { '1.image': photo } }, { id: 'page-run-waiting' });
  report.steps.runs = { completed: runs.map((run) => run.id), waiting: waiting.id };

  browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: STEP_TIMEOUT_MS });
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const shows = (ids) => page.waitForFunction((wanted) => wanted.every((id) => document.body.innerText.includes(id)), ids);

  await page.goto(dashboard.url);
  await page.waitForFunction((queueName) => document.body.innerText.includes(queueName), name);
  report.steps.overview = 'the queue is listed';
  await page.goto(`${dashboard.url}/queue/${encodeURIComponent(name)}?status=completed`);
  await shows(runs.map((run) => run.id));
  report.steps.completed = 'each completed run is listed';
  await page.goto(`${dashboard.url}/queue/${encodeURIComponent(name)}?status=waiting`);
  await shows([waiting.id]);
  report.steps.waiting = 'the run added while paused is listed';
  if (errors.length > 0) throw new Error(`the page threw: ${errors.join('; ')}`);
  report.ok = true;
} catch (error) {
  await cleanUp();
  await finish(error instanceof Error ? error : new Error(String(error)));
}
await cleanUp();
await finish();

async function cleanUp() {
  await browser?.close().catch(() => undefined);
  await Promise.allSettled([dashboard.close(), worker.close(), queue.close()]);
  await sim.close();
  await redis.stop();
}
