// `npm run chaos`: 1,000 concurrent `cloud.runWorkflow()` jobs against the simulator while it drops
// and refuses sockets, stalls status bodies, answers 5xx and restarts (test/chaos/run-chaos.ts),
// then prints the table the README shows. Exits 1 unless every job got its own outputs with no
// hang, no duplicate submission, no unhandled rejection and no credential found.
// Options: --jobs N (default 1000), --concurrency N (default 100), --seed N (default 1).
import { parseArgs } from 'node:util';
import { tsImport } from 'tsx/esm/api';
import { ensureNode } from './node-floor.mjs';

ensureNode('npm run chaos', ['node', 'scripts/chaos.mjs', ...process.argv.slice(2)]);

const { values } = parseArgs({
  options: { jobs: { type: 'string', default: '1000' }, concurrency: { type: 'string', default: '100' }, seed: { type: 'string', default: '1' } },
});
const jobs = Number(values.jobs);
const concurrency = Number(values.concurrency);
const seed = Number(values.seed);
for (const [name, value] of Object.entries({ jobs, concurrency, seed })) {
  if (!Number.isInteger(value) || value < (name === 'seed' ? 0 : 1)) {
    console.error(`--${name} must be a whole number${name === 'seed' ? '' : ' of at least 1'}, received ${JSON.stringify(values[name])}`);
    process.exit(2);
  }
}

const { runChaos, formatTable } = await tsImport('../test/chaos/run-chaos.ts', import.meta.url);
const report = await runChaos({ jobs, concurrency, seed });
console.log(formatTable(report));
const perfect =
  report.correct === jobs && report.hangs === 0 && report.duplicateSubmissions === 0 && report.unhandledRejections === 0 && report.credentialsFound === 0 && report.foreignErrors === 0;
process.exit(perfect ? 0 : 1);
