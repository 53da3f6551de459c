// `npm run chaos`: 1,000 concurrent `cloud.runWorkflow()` jobs against the simulator while it drops
// and refuses sockets, stalls status bodies, answers 5xx and restarts (test/chaos/run-chaos.ts),
// then prints the table the README shows. Exits 1 unless every job got its own outputs with no
// hang, no duplicate submission, no unhandled rejection and no credential found.
// Options: --jobs N (default 1000), --concurrency N (default 100), --seed N (default 1),
// --runtime cloud|local (default cloud: the simulator plays a local runtime instead),
// --profile classic|intense (default classic). The intense profile adds
// runs that lose their end messages while the socket stays up, runs that fail and runs cancelled
// while running or before they are watched; every result must be the status the simulator
// recorded for its job (and, completed, its own outputs).
// `npm run chaos -- queue [--jobs N]`: the queue's fault run instead (test/chaos/queue-chaos.ts):
// 2,000 runs by default through 4 RunWorker processes on a real redis-server while two workers are
// killed and started again and Redis restarts once; exits 1 unless every run completed once with
// its own outputs and the simulator saw one submission per run.
import { parseArgs } from 'node:util';
import { tsImport } from 'tsx/esm/api';
import { ensureNode } from './node-floor.mjs';

ensureNode('npm run chaos', ['node', 'scripts/chaos.mjs', ...process.argv.slice(2)]);

const { values, positionals } = parseArgs({
  options: { jobs: { type: 'string' }, concurrency: { type: 'string', default: '100' }, seed: { type: 'string', default: '1' }, profile: { type: 'string', default: 'classic' }, runtime: { type: 'string', default: 'cloud' } },
  allowPositionals: true,
});
if (positionals.length > 1 || (positionals.length === 1 && positionals[0] !== 'queue')) {
  console.error(`npm run chaos takes no argument, or "queue"; received ${positionals.join(' ')}`);
  process.exit(2);
}
if (positionals[0] === 'queue') {
  const runs = Number(values.jobs ?? 2000);
  if (!Number.isInteger(runs) || runs < 1) {
    console.error(`--jobs must be a whole number of at least 1, received ${JSON.stringify(values.jobs)}`);
    process.exit(2);
  }
  const { runQueueChaos, formatQueueTable } = await tsImport('../test/chaos/queue-chaos.ts', import.meta.url);
  const report = await runQueueChaos({ runs });
  console.log(formatQueueTable(report));
  const perfect = report.completed === runs && report.wrongOutputs === 0 && report.submissions === runs && report.duplicateSubmissions === 0 && report.workerKills === 2 && report.redisRestarts === 1;
  process.exit(perfect ? 0 : 1);
}
if (values.profile !== 'classic' && values.profile !== 'intense') {
  console.error(`--profile must be classic or intense, received ${JSON.stringify(values.profile)}`);
  process.exit(2);
}
if (values.runtime !== 'cloud' && values.runtime !== 'local') {
  console.error(`--runtime must be cloud or local, received ${JSON.stringify(values.runtime)}`);
  process.exit(2);
}
values.jobs ??= '1000';
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
const report = await runChaos({ jobs, concurrency, seed, profile: values.profile, runtime: values.runtime });
console.log(formatTable(report));
const perfect =
  report.correct === jobs && report.hangs === 0 && report.duplicateSubmissions === 0 && report.unhandledRejections === 0 && report.credentialsFound === 0 && report.foreignErrors === 0;
process.exit(perfect ? 0 : 1);
