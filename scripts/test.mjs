// `npm test`: every check CI runs, in order, stopping at the first failure.
// Set GRAPHCLOUD_TEST_SKIP=step1,step2 to leave steps out locally (CI never does).
import { spawnSync } from 'node:child_process';

const steps = [
  ['typecheck', 'npx', ['tsc', '--noEmit', '-p', '.']],
  ['lint', 'npx', ['eslint', '.']],
  ['docs: JSDoc with @example on every export', 'node', ['scripts/check-docs.mjs']],
  ['unit tests', 'npx', ['vitest', 'run']],
  ['build', 'npm', ['run', 'build', '--silent']],
  ['typecheck e2e tests against dist', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.e2e.json']],
  ['publint', 'npx', ['publint', '--strict']],
  ['types (attw, ESM-only profile)', 'npx', ['attw', '--pack', '.', '--profile', 'esm-only']],
  ['smoke: ESM import of dist', 'node', ['test/smoke/esm.mjs']],
  ['smoke: CommonJS require of dist', 'node', ['test/smoke/cjs.cjs']],
  ['browser bundle size and purity', 'node', ['scripts/size.mjs']],
  ['e2e: dist against the simulator', 'npx', ['vitest', 'run', '-c', 'vitest.e2e.config.ts']],
  ['e2e: smoke on Node 22/24/26, Bun, Deno, Chromium', 'node', ['scripts/e2e-runtimes.mjs']],
];

const skip = new Set((process.env.GRAPHCLOUD_TEST_SKIP ?? '').split(',').filter(Boolean));
const started = Date.now();
for (const [name, command, args] of steps) {
  if (skip.has(name)) continue;
  console.log(`\n▶ ${name}: ${command} ${args.join(' ')}`);
  const t0 = Date.now();
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0' } });
  if (result.status !== 0) {
    console.error(`\n✖ ${name} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
  console.log(`✔ ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}
console.log(`\nAll checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
