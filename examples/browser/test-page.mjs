// `npm test` step "browser": the example page (examples/browser) in headless Chromium, against the
// simulator behind the relay, built package only (run `npm run build` first). It picks an image,
// runs the workflow to its end (the final <img> loaded at the simulator's real output size, the
// progress bar at 100%, live previews shown), runs it again and cancels it, takes screenshots
// (examples/browser/artifacts/, gitignored), and checks that nothing the page sent or received
// (headers, URLs, bodies, socket frames) holds the platform key. Prints one JSON line; exit 1 on
// any failure. Chromium is the system one (CHROMIUM_PATH, default /usr/bin/chromium).
//
//   node --experimental-strip-types examples/browser/test-page.mjs
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { encodePng, startSimulator } from 'graphcloud/testing';
import { startExampleServer } from './server.ts';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
const STEP_TIMEOUT_MS = 30_000;
const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url));
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const started = Date.now();
const report = { ok: false, steps: {} };

// Nothing may outlive its budget: a hung browser or server fails the run.
const watchdog = setTimeout(() => finish(new Error('gave up after 3 minutes')), 180_000);

function check(condition, message) {
  if (!condition) throw new Error(message);
}

async function finish(error) {
  clearTimeout(watchdog);
  report.ms = Date.now() - started;
  if (error) report.error = error.message;
  console.log(JSON.stringify(report));
  process.exit(error ? 1 : 0);
}

if (!existsSync(executablePath)) await finish(new Error(`no Chromium at ${executablePath} (set CHROMIUM_PATH, or skip this step with GRAPHCLOUD_TEST_SKIP=browser)`));
mkdirSync(artifacts, { recursive: true });

// Slow enough steps that a cancel lands while the run is going (about 0.5 s per node).
const sim = await startSimulator({ stepDelayMs: 100, progressSteps: 4 });
const server = await startExampleServer({ cloudUrl: sim.cloudUrl, apiKey: sim.apiKey, secret: randomBytes(32).toString('hex') });
const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: STEP_TIMEOUT_MS });
const sent = [];
const received = [];
const pending = [];
const errors = [];
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => {
    pending.push(request.allHeaders().then((headers) => sent.push(`${request.method()} ${request.url()} ${JSON.stringify(headers)} ${request.postDataBuffer()?.toString('latin1') ?? ''}`)));
  });
  page.on('response', (response) => {
    pending.push(response.allHeaders().then((headers) => received.push(`${response.status()} ${response.url()} ${JSON.stringify(headers)}`)));
    pending.push(response.body().then((body) => received.push(body.toString('latin1')), () => undefined));
  });
  page.on('websocket', (socket) => {
    sent.push(`socket ${socket.url()}`);
    socket.on('framesent', (frame) => sent.push(String(frame.payload)));
    socket.on('framereceived', (frame) => received.push(Buffer.isBuffer(frame.payload) ? frame.payload.toString('latin1') : String(frame.payload)));
  });

  await page.goto(server.url);

  // A run to its end.
  await page.setInputFiles('#file', { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from(encodePng(48, 30, [200, 120, 40])) });
  await page.click('#run');
  await page.waitForSelector('#status:is([data-state="done"], [data-state="failed"], [data-state="cancelled"])');
  const done = await page.evaluate(() => {
    const result = document.getElementById('result');
    return {
      state: document.getElementById('status').dataset.state,
      status: document.getElementById('status').textContent,
      width: result.naturalWidth,
      height: result.naturalHeight,
      loaded: result.complete,
      src: result.src,
      progress: document.getElementById('progress').value,
      previews: Number(document.getElementById('preview').dataset.count ?? 0),
    };
  });
  report.steps.run = done;
  await page.screenshot({ path: `${artifacts}page-done.png`, fullPage: true });
  check(done.state === 'done', `the run did not finish: ${done.state}: ${done.status}`);
  check(done.loaded && done.width === 96 && done.height === 60, `the result <img> is ${done.width}×${done.height}, expected the simulator's 96×60 (48×30 scaled by 2)`);
  check(done.progress === 100, `the progress bar stopped at ${done.progress}%`);
  check(done.previews > 0, 'no live preview was shown');
  check(done.src.startsWith(`${server.url}/api/graphcloud/api/view?`), `the result came from ${done.src}, not the relay`);

  // A run cancelled while it runs.
  await page.setInputFiles('#file', { name: 'second.png', mimeType: 'image/png', buffer: Buffer.from(encodePng(20, 20, [10, 200, 90])) });
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('status').dataset.state === 'running' && document.getElementById('progress').value > 0);
  await page.click('#cancel');
  await page.waitForSelector('#status:is([data-state="done"], [data-state="failed"], [data-state="cancelled"])');
  const cancelled = await page.evaluate(() => ({ state: document.getElementById('status').dataset.state, status: document.getElementById('status').textContent }));
  report.steps.cancel = { ...cancelled, server: sim.state.jobs().at(-1)?.status };
  await page.screenshot({ path: `${artifacts}page-cancelled.png`, fullPage: true });
  check(cancelled.state === 'cancelled', `the cancel did not take: ${cancelled.state}: ${cancelled.status}`);
  check(report.steps.cancel.server === 'cancelled', `the job is ${report.steps.cancel.server} on the server, not cancelled`);

  // What the page sent and received: never the key, and nothing but its own server.
  await Promise.allSettled(pending);
  const everything = [...sent, ...received];
  report.steps.traffic = { sent: sent.length, received: received.length, screenshots: `${artifacts}page-*.png` };
  check(sent.length > 10 && received.length > 10, 'the page traffic was not recorded');
  check(!everything.some((text) => text.includes(sim.apiKey)), 'the platform key appeared in what the page sent or received');
  // Every request went to the page's own server (blob: URLs are the previews the page made itself).
  const targets = sent.filter((line) => /^(GET|POST|PUT|DELETE|socket) /.test(line)).map((line) => new URL(line.split(' ')[1]));
  const origins = new Set(targets.filter((url) => url.protocol !== 'blob:').map((url) => url.host));
  check(origins.size === 1 && origins.has(new URL(server.url).host), `the page talked to ${[...origins].join(', ')}`);
  check(errors.length === 0, `page errors: ${errors.join(' | ')}`);
  report.ok = true;
} catch (error) {
  await finish(error);
} finally {
  await browser.close().catch(() => undefined);
  await server.close();
  await sim.close();
}
await finish();
