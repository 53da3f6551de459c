// `npm run demo`: checks the Node floor (running itself under Node 24 from the npm registry when the
// machine's Node is older), then runs examples/demo.ts with tsx.
import { spawnSync } from 'node:child_process';
import { ensureNode } from './node-floor.mjs';

ensureNode('npm run demo', ['node', 'scripts/demo.mjs', ...process.argv.slice(2)]);
const result = spawnSync('npx', ['tsx', 'examples/demo.ts', ...process.argv.slice(2)], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(result.status ?? 1);
