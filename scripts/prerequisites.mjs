// The tools `npm test` needs beyond node_modules, checked before its first step (a missing one
// used to fail the browser step after minutes of other steps). A step left out with
// GRAPHCLOUD_TEST_SKIP asks nothing. What is missing is installed the way .ci/run installs it
// (apt-get, when running as root where apt-get exists); otherwise the check stops at once (exit 2)
// printing the one command that installs it.
//
// One entry per tool: `steps` are the ids of scripts/test.mjs that need it, `package` its Debian
// package, `find` where it is (an executable file, or undefined).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

export const PREREQUISITES = [
  {
    name: 'Chromium',
    why: 'the browser steps drive headless Chromium',
    package: 'chromium',
    steps: ['browser', 'runtimes', 'dashboard'],
    find: (env) => executable(env.CHROMIUM_PATH || '/usr/bin/chromium'),
    looked: (env) => (env.CHROMIUM_PATH ? `CHROMIUM_PATH=${env.CHROMIUM_PATH}` : '/usr/bin/chromium (or set CHROMIUM_PATH)'),
  },
  {
    name: 'redis-server',
    why: 'the queue tests (BullMQ) start their own redis-server',
    package: 'redis-server',
    steps: ['unit', 'cli', 'examples', 'dashboard'],
    find: (env) => (env.REDIS_SERVER_PATH ? executable(env.REDIS_SERVER_PATH) : onPath('redis-server', env)),
    looked: (env) => (env.REDIS_SERVER_PATH ? `REDIS_SERVER_PATH=${env.REDIS_SERVER_PATH}` : 'PATH (or set REDIS_SERVER_PATH)'),
  },
];

/**
 * Returns when every tool the steps `ids` need is found, installing the missing ones with apt-get
 * when it can; otherwise prints what is missing and the command that installs it, and exits 2.
 */
export function ensurePrerequisites(ids, env = process.env) {
  const needed = PREREQUISITES.filter((tool) => tool.steps.some((step) => ids.has(step)));
  let missing = needed.filter((tool) => !tool.find(env));
  if (missing.length === 0) return;
  const command = (tools) => `apt-get install -y ${tools.map((tool) => tool.package).join(' ')}`;
  if (process.getuid?.() === 0 && onPath('apt-get', env)) {
    console.log(`Installing ${missing.map((tool) => tool.name).join(' and ')} first, as .ci/run does: ${command(missing)}`);
    spawnSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    spawnSync('apt-get', ['install', '-y', '-qq', ...missing.map((tool) => tool.package)], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
    missing = needed.filter((tool) => !tool.find(env));
    if (missing.length === 0) return;
  }
  console.error('npm test cannot run: missing prerequisites (checked before the first step).');
  for (const tool of missing) console.error(`  ✖ ${tool.name}: not found at ${tool.looked(env)}; ${tool.why} (steps: ${tool.steps.join(', ')})`);
  console.error(`Install ${missing.length > 1 ? 'them' : 'it'} (as root; or leave the steps out with GRAPHCLOUD_TEST_SKIP):\n${command(missing)}`);
  process.exit(2);
}

function executable(file) {
  try {
    if (!statSync(file).isFile()) return undefined;
    accessSync(file, constants.X_OK);
    return file;
  } catch {
    return undefined;
  }
}

function onPath(name, env) {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    const found = dir && executable(path.join(dir, name));
    if (found) return found;
  }
  return undefined;
}
