// The Node floor of the repository's own commands (`npm test`, `npm run demo`): the `engines`
// range of package.json. Below it, the command runs itself again under a current Node taken from
// the npm registry (`npx -p node@24`, which works on every platform), saying so in one line; when
// that cannot work, it stops with one sentence naming the version found, the one needed and the
// fix. Plain JavaScript that parses on old Node versions: it runs before anything else.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const RERUN_MARK = 'GRAPHCLOUD_NODE_RERUN';
const CURRENT = '24';

/** The minimum of `engines.node` (">=22.12" gives [22, 12, 0]). */
export function floor() {
  const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const match = /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(engines && engines.node ? engines.node : '');
  if (!match) throw new Error('package.json has no engines.node');
  return [Number(match[1]), Number(match[2] || 0), Number(match[3] || 0)];
}

/** True when `version` ("22.11.0") is below `minimum` ([22, 12, 0]). */
export function below(version, minimum) {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((parts[i] || 0) !== minimum[i]) return (parts[i] || 0) < minimum[i];
  }
  return false;
}

/**
 * Returns when the running Node meets the floor. Otherwise runs `rerun` (the command line to run
 * again, e.g. ['node', 'scripts/test.mjs']) under Node 24 from the npm registry and exits with its
 * status, or exits 1 with one sentence when that is impossible.
 */
export function ensureNode(what, rerun) {
  const minimum = floor();
  const found = process.versions.node;
  if (!below(found, minimum)) return;
  const needed = minimum.join('.');
  if (process.env[RERUN_MARK]) {
    console.error(`${what} needs Node ${needed} or newer; even the Node fetched from the npm registry reported ${found}. Install Node ${CURRENT} from https://nodejs.org (or \`nvm install ${CURRENT}\`) and run it again.`);
    process.exit(1);
  }
  console.error(`Node ${found} is older than the ${needed} this repository needs: running ${what} under Node ${CURRENT} from the npm registry (npx -p node@${CURRENT}; the first time downloads about 30 MB).`);
  // A quick probe first, so a failure to fetch Node is told apart from a failure of the command.
  const probe = spawnSync('npx', ['--yes', '-p', `node@${CURRENT}`, '--', 'node', '--version'], { encoding: 'utf8', shell: process.platform === 'win32' });
  if (probe.status !== 0 || below(String(probe.stdout).trim().replace(/^v/, ''), minimum)) {
    const why = probe.error ? probe.error.message : String(probe.stderr).trim().split('\n').pop() || `exit ${probe.status}`;
    console.error(`${what} needs Node ${needed} or newer and found ${found}; fetching Node ${CURRENT} with npx failed (${why}). Install Node ${CURRENT} from https://nodejs.org (or \`nvm install ${CURRENT}\`) and run it again.`);
    process.exit(1);
  }
  const result = spawnSync('npx', ['--yes', '-p', `node@${CURRENT}`, '--', ...rerun], {
    stdio: 'inherit',
    env: { ...process.env, [RERUN_MARK]: '1' },
    shell: process.platform === 'win32',
  });
  if (result.error || result.status === null) {
    console.error(`${what} needs Node ${needed} or newer and found ${found}; fetching Node ${CURRENT} with npx failed (${result.error ? result.error.message : `signal ${result.signal}`}). Install Node ${CURRENT} from https://nodejs.org (or \`nvm install ${CURRENT}\`) and run it again.`);
    process.exit(1);
  }
  process.exit(result.status);
}
