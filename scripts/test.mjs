// `npm test`: every check CI runs, in order, stopping at the first failure.
// Set GRAPHCLOUD_TEST_SKIP=id1,id2 to leave steps out locally (CI never does); the ids are the
// first column below (a step's full name works too). An unknown id is refused, so a typo does not
// quietly run everything.
import { spawnSync } from 'node:child_process';
import { ensureNode } from './node-floor.mjs';
import { ensurePrerequisites } from './prerequisites.mjs';

ensureNode('npm test', ['node', 'scripts/test.mjs']);

const steps = [
  ['typecheck', 'typecheck', 'node', ['node_modules/typescript/bin/tsc', '--noEmit', '-p', '.']],
  ['lint', 'lint', 'npx', ['eslint', '.']],
  ['layers', 'layering rules (dependency-cruiser, folder cycles)', 'node', ['scripts/check-layers.mjs']],
  ['citations', 'citations: no internal document named, every docs anchor exists', 'node', ['scripts/check-citations.mjs']],
  ['docs', 'docs: JSDoc with @example on every export', 'node', ['scripts/check-docs.mjs']],
  ['apiref', 'api reference: TypeDoc builds with no warning', 'node', ['scripts/check-apiref.mjs']],
  // The help's and docs' examples run once, on the built bin (the cli step): from the sources they prove nothing more.
  ['unit', 'unit tests', 'npx', ['vitest', 'run', '--exclude', 'test/cli/examples.test.ts']],
  ['build', 'build', 'npm', ['run', 'build', '--silent']],
  ['typecheck-e2e', 'typecheck e2e tests against dist', 'node', ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.e2e.json']],
  ['pack', 'package contents (npm pack: entry points, types, CHANGELOG; no tests, sources or credentials)', 'node', ['scripts/check-pack.mjs']],
  ['consumer', 'consumer type-check of every entry of the packed package (TypeScript 5.9, 6 and 7, skipLibCheck false)', 'node', ['scripts/check-consumer.mjs']],
  ['publint', 'publint', 'npx', ['publint', '--strict']],
  ['attw', 'types (attw, ESM-only profile)', 'npx', ['attw', '--pack', '.', '--profile', 'esm-only']],
  ['smoke-esm', 'smoke: ESM import of dist', 'node', ['test/smoke/esm.mjs']],
  ['smoke-cjs', 'smoke: CommonJS require of dist', 'node', ['test/smoke/cjs.cjs']],
  ['size', 'browser bundle size budgets and purity', 'node', ['scripts/size.mjs']],
  ['e2e', 'e2e: dist against the simulator', 'npx', ['vitest', 'run', '-c', 'vitest.e2e.config.ts']],
  // The unit run covers the command line from its sources; this runs the same tests on the built
  // bin (dist/cli.js, which loads the SDK through the package's own name), piped and in tmux.
  ['cli', 'e2e: the graphcloud bin (dist/cli.js), piped and in a pseudo-terminal', 'npx', ['vitest', 'run', 'test/cli'], { GRAPHCLOUD_CLI_BIN: 'dist/cli.js' }],
  ['examples', 'examples: every examples/*.ts run against dist and the in-process simulator, no env, loopback only', 'node', ['scripts/run-examples.mjs']],
  ['browser', 'browser: the example page in headless Chromium, through the relay (examples/browser)', 'node', ['--experimental-strip-types', 'examples/browser/test-page.mjs']],
  ['dashboard', "dashboard: bull-board lists the queue's runs in headless Chromium (examples/queue-dashboard-page.mjs)", 'node', ['--experimental-strip-types', 'examples/queue-dashboard-page.mjs']],
  ['runtimes', 'e2e: smoke on Node 22/24/26, Bun, Deno, Chromium', 'node', ['scripts/e2e-runtimes.mjs']],
];

const skip = new Set((process.env.GRAPHCLOUD_TEST_SKIP ?? '').split(',').map((s) => s.trim()).filter(Boolean));
const unknown = [...skip].filter((s) => !steps.some(([id, name]) => s === id || s === name));
if (unknown.length > 0) {
  console.error(`GRAPHCLOUD_TEST_SKIP names no step: ${unknown.join(', ')}. Steps: ${steps.map(([id]) => id).join(', ')}`);
  process.exit(2);
}
// Chromium, redis-server...: found, installed, or refused now rather than minutes in.
ensurePrerequisites(new Set(steps.filter(([id, name]) => !skip.has(id) && !skip.has(name)).map(([id]) => id)));
const started = Date.now();
for (const [id, name, command, args, env = {}] of steps) {
  if (skip.has(id) || skip.has(name)) {
    console.log(`\n– ${name}: skipped (GRAPHCLOUD_TEST_SKIP)`);
    continue;
  }
  console.log(`\n▶ ${name}: ${command} ${args.join(' ')}`);
  const t0 = Date.now();
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0', ...env } });
  if (result.status !== 0) {
    console.error(`\n✖ ${name} failed (exit ${result.status ?? result.signal}); skip it locally with GRAPHCLOUD_TEST_SKIP=${id}`);
    process.exit(1);
  }
  console.log(`✔ ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}
console.log(`\nAll checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s${skip.size > 0 ? ` (skipped: ${[...skip].join(', ')})` : ''}`);
