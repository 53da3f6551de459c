// `npm run bench`: runs every benchmark under bench/ (each prints a markdown table).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const only = process.argv.slice(2);
const files = readdirSync('bench').filter((f) => f.endsWith('.ts') && !f.startsWith('_') && (only.length === 0 || only.some((o) => f.includes(o)))).sort();
let failed = false;
for (const file of files) {
  console.log(`\n## ${file}\n`);
  const result = spawnSync('npx', ['tsx', `bench/${file}`], { stdio: 'inherit' });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
