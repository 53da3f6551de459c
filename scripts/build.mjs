// `npm run build`, and `prepack`: dist/ from scratch. tsup emits the JavaScript (tsup.config.ts),
// tsc the declarations, one per module (tsconfig.build.json).
// Every step's output goes to stderr: `npm pack --json` and `npm publish --json` print their JSON
// on stdout after prepack's build, and a build log there ("CLI Building entry: ...") made it
// unreadable (test/scripts/pack-json.test.ts).
//
//   node scripts/build.mjs
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const steps = [
  ['tsup', [binOf('tsup', 'tsup')]],
  ['tsc', [binOf('typescript', 'tsc'), '-p', 'tsconfig.build.json']],
];

rmSync('dist', { recursive: true, force: true });
for (const [name, args] of steps) {
  // The child's stdout is this process's stderr (fd 2).
  const run = spawnSync(process.execPath, args, { stdio: ['ignore', 2, 'inherit'] });
  if (run.status !== 0) {
    console.error(`build: ${name} failed (exit ${run.status ?? run.signal})`);
    process.exit(1);
  }
}

/** The script a devDependency's package.json#bin names. */
function binOf(pkg, command) {
  const dir = path.join('node_modules', pkg);
  const { bin } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return path.join(dir, typeof bin === 'string' ? bin : bin[command]);
}
