import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { isUiWorkflow, setInputs, type CloudClient, type Workflow } from '../../../index.js';
import { createCloud } from '../../base/clients.js';
import type { CommandContext, CommandSpec } from '../../base/command.js';
import { CliError, usageError } from '../../base/errors.js';
import { EXIT, type ExitCode } from '../../base/exit-codes.js';
import { parseWholeNumber } from '../../base/values.js';
import { BatchReporter } from '../../live/batch-reporter.js';
import { workerCommand } from '../../live/batch-view.js';
import { batchAdminCommands } from './admin.js';
import { runLocalBatch } from './local.js';
import { runQueueBatch } from './queue.js';
import { DEFAULT_QUEUE, openQueue, redisUrl, shownUrl } from '../../base/redis.js';
import { SetsFileError } from './sets-error.js';
import { readSets, type BatchSet } from './sets.js';
import { applySets, loadWorkflow, locate, readWorkflowFlags } from '../../base/workflow-input.js';
import { checkBatchCost, estimateBatch } from './cost.js';

/** Sets running at once without `--redis`: what one machine's share of an account runs well (plans run 1, 3 or 5 jobs at once; jobs beyond wait on the server). */
const LOCAL_CONCURRENCY = 4;
const MAX_CONCURRENCY = 256;

/**
 * `graphcloud batch <workflow.json> --inputs <sets>`: runs the workflow once per input set of a
 * JSON Lines or CSV file, with a live table, and saves each set's outputs in a folder of its own.
 *
 * @example
 * ```ts
 * await runCli(root, ['batch', 'portrait.json', '--inputs', 'sweep.csv', '--out', './out'], io);
 * ```
 */
export const batchCommand: CommandSpec = {
  name: 'batch',
  summary: 'Run a workflow once per input set of a .jsonl or .csv file',
  description:
    'Run a saved workflow once per input set, a few at a time, with a live table (queued, running, done,\n' +
    'failed, time left); piped (or with --json) it prints one JSON object per submission and per result,\n' +
    'then a summary.\n\n' +
    'The sets file is JSON Lines (.jsonl, .ndjson: one object per line) or CSV (.csv: a header of input\n' +
    'addresses, then one set per line). Keys are input addresses as --set takes them (KSampler.seed);\n' +
    'a key @<address> uploads the file it names (relative to the sets file). CSV values are typed like\n' +
    '--set values; an empty CSV cell keeps the workflow\'s value ("" sets empty text).\n\n' +
    'Every set is checked before the first one is sent: a mistake names its line and column, and costs\n' +
    'nothing. Ctrl-C starts no new set and cancels the jobs the batch submitted; a second Ctrl-C leaves\n' +
    'at once, printing their ids.\n\n' +
    'With --redis (or GRAPHCLOUD_REDIS_URL) the sets become runs of a queue that `graphcloud worker`s run,\n' +
    'on any machines; the batch follows them (or, with --detach, adds them and exits). Its runs are\n' +
    '<batch id>-<set>: `graphcloud batch status|cancel|results <batch id>` read them from anywhere.',
  args: '<workflow.json>',
  positionals: [1, 1],
  service: 'cloud',
  options: {
    inputs: { type: 'string', value: '<file>', description: 'The input sets: a .jsonl or .csv file (required)' },
    out: { type: 'string', value: '<dir>', description: 'Save each set\'s outputs in <dir>/<set number> (never over an existing file)' },
    overwrite: { type: 'boolean', description: 'With --out: replace files of the same name' },
    concurrency: { type: 'string', value: '<n>', description: `Sets running at once (default ${LOCAL_CONCURRENCY})` },
    set: { type: 'string', multiple: true, value: '<address=value>', description: 'Set an input for every set (repeatable)' },
    upload: { type: 'string', multiple: true, value: '<address=path>', description: 'Upload a file into an input of every set (repeatable)' },
    timeout: { type: 'string', value: '<duration>', description: 'Give up on a set after this long, cancelling its job: 90s, 10m, 1h, none (default 1h)' },
    'skip-validation': { type: 'boolean', description: 'Send the sets without checking them against the node definitions' },
    'partner-key': { type: 'boolean', description: 'Send your API key for partner nodes (extra_data.api_key_platform_org)' },
    redis: { type: 'string', value: '<url>', description: 'Add the sets to the run queue on this Redis (default: $GRAPHCLOUD_REDIS_URL; no password here)' },
    queue: { type: 'string', value: '<name>', description: `With --redis: the queue's name (default ${DEFAULT_QUEUE})` },
    detach: { type: 'boolean', description: 'With --redis: add the sets and exit (follow them with `batch status`)' },
    'max-cost': { type: 'string', value: '<usd>', description: 'Refuse the whole batch, before adding or sending anything, when its estimate could cost more: 25, 0.50' },
    'allow-unpriced': { type: 'boolean', description: 'With --max-cost: count partner nodes without a price as free instead of refusing' },
  },
  subcommands: batchAdminCommands,
  examples: [
    'graphcloud batch portrait.json --inputs sweep.jsonl --out ./out',
    "printf 'KSampler.seed,Positive.text\\n1,a fox\\n2,a cat\\n' > sweep.csv && graphcloud batch portrait.json --inputs sweep.csv --concurrency 2",
    "graphcloud batch portrait.json --inputs sweep.csv --json | jq -c 'select(.type == \"result\") | [.set, .status]'",
    'GRAPHCLOUD_REDIS_URL=redis://127.0.0.1:6379 graphcloud batch portrait.json --inputs sweep.jsonl --detach',
  ],
  run: runBatchCommand,
};

async function runBatchCommand(ctx: CommandContext): Promise<ExitCode> {
  const { options } = ctx;
  const help = `${ctx.path} --help`;
  const file = ctx.positionals[0]!;
  const inputs = options.inputs;
  if (typeof inputs !== 'string' || inputs === '') throw usageError('--inputs <file> is required: a .jsonl or .csv file of input sets.', help);
  const concurrency = parseWholeNumber(options.concurrency, '--concurrency', help, { min: 1, max: MAX_CONCURRENCY, fallback: LOCAL_CONCURRENCY });
  const redis = redisUrl(ctx, help);
  if (redis === undefined && (options.detach || options.queue !== undefined)) throw usageError(`--${options.detach ? 'detach' : 'queue'} needs a run queue: pass --redis <url> or set GRAPHCLOUD_REDIS_URL.`, help);
  if (options.detach && options.out !== undefined) throw detachedOut(typeof options.out === 'string' ? options.out : '<dir>', typeof options.queue === 'string' ? options.queue : undefined);
  if (redis !== undefined && options.concurrency !== undefined) throw usageError('--concurrency is for a batch run in this process; with --redis the workers decide (graphcloud worker --concurrency).', help);
  const queueName = typeof options.queue === 'string' ? options.queue : DEFAULT_QUEUE;
  const validate = options['skip-validation'] !== true;
  const { raw, sets, uploads, waitTimeout, maxCost } = await readWorkflowFlags(ctx, file, help);
  await using cloud = createCloud(ctx);
  const signal = ctx.interrupts.signal;
  const info = validate || isUiWorkflow(raw) ? await cloud.nodes.list({ signal }) : undefined;
  const workflow = applySets(await loadWorkflow(raw, file, () => cloud.nodes.list({ signal }), help), sets, info, help);
  const common = Object.fromEntries(uploads.map((u) => {
    const { nodeId, input } = locate(workflow, u.key, info);
    return [`${nodeId}.${input}`, u.value];
  }));
  const batch = await readSets(inputs, workflow, info, help);
  await checkUploads(inputs, batch);

  const reporter = new BatchReporter(ctx, batch.length, workflow);
  try {
    if (validate) {
      reporter.preparing(`checking ${batch.length} set${batch.length === 1 ? '' : 's'} against the node definitions`);
      await checkSets(cloud, inputs, workflow, batch, Object.keys(common), signal);
      reporter.preparing(undefined);
    }
    if (maxCost !== undefined) {
      // The whole batch, before anything is added or sent.
      reporter.preparing(`estimating ${batch.length} set${batch.length === 1 ? '' : 's'}`);
      checkBatchCost(await estimateBatch(cloud, workflow, batch, signal), maxCost, options['allow-unpriced'] === true, help);
      reporter.preparing(undefined);
    }
  } catch (error) {
    reporter.stop();
    throw error;
  }
  const out = typeof options.out === 'string' ? options.out : undefined;
  const partnerApiKey = options['partner-key'] === true ? true : undefined;
  if (redis !== undefined) {
    await using queue = await openQueue(ctx, redis, queueName, true);
    const batchId = newBatchId(inputs);
    ctx.out.json({ type: 'batch', sets: batch.length, queue: queueName, batchId });
    ctx.out.human(`${ctx.out.style('green', '✔')} Batch ${batchId}: ${batch.length} set${batch.length === 1 ? '' : 's'} for queue ${queueName} on ${shownUrl(redis)}`);
    try {
      await runQueueBatch(ctx, queue, workflow, batch, reporter, { batchId, out, uploads: common, partnerApiKey, detach: options.detach === true });
    } catch (error) {
      reporter.stop();
      throw error;
    }
    if (options.detach) {
      reporter.stop();
      const queueFlag = queueName === DEFAULT_QUEUE ? '' : ` --queue ${queueName}`;
      ctx.out.human(`  Added; \`graphcloud worker\` runs them. Follow: graphcloud batch status ${batchId}${queueFlag}`);
      ctx.out.human(`  Save their outputs once they ended: graphcloud batch results ${batchId}${queueFlag} --out <dir>`);
      // Added runs wait for a worker: say so when none is connected yet.
      const { workers } = await queue.status().catch(() => ({ workers: undefined }));
      if (workers === 0) {
        ctx.out.json({ type: 'no-worker', queue: queueName });
        ctx.out.human(`  ${ctx.out.style('yellow', '⚠')} No worker is connected to queue ${queueName} yet: start one with \`${workerCommand(queueName)}\`.`);
      }
      return EXIT.ok;
    }
    reporter.finish(out);
  } else {
    ctx.out.json({ type: 'batch', sets: batch.length, concurrency });
    try {
      await runLocalBatch(ctx, cloud, workflow, batch, reporter, { concurrency, out, uploads: common, waitTimeout, partnerApiKey });
    } finally {
      reporter.finish(out);
    }
  }
  const { failed, cancelled } = reporter.state.counts;
  if (failed > 0) return EXIT.failed;
  return cancelled > 0 ? EXIT.cancelled : EXIT.ok;
}

/**
 * `--detach` exits once the runs are added, so nothing would save their outputs: refused before
 * anything is sent, naming the command that saves them later.
 */
function detachedOut(dir: string, queue: string | undefined): CliError {
  const queueFlag = queue === undefined || queue === DEFAULT_QUEUE ? '' : ` --queue ${queue}`;
  return new CliError(
    '--out cannot be used with --detach: a detached batch exits once its runs are added, before any has outputs to save.',
    `Drop --out; once the runs ended, save their outputs with: graphcloud batch results <batch id>${queueFlag} --out ${dir} (the batch id is printed when the runs are added).`,
    EXIT.usage,
  );
}

/** A batch id from the sets file's name: `sweep-7f3a9c21` (never only digits, never a colon: run ids forbid them). */
function newBatchId(file: string): string {
  const stem = basename(file, extname(file)).replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 40) || 'batch';
  return `${stem}-${globalThis.crypto.randomUUID().slice(0, 8)}`;
}

/** Every file a set uploads can be read (each path checked once), before anything is sent. */
async function checkUploads(file: string, batch: readonly BatchSet[]): Promise<void> {
  const checked = new Set<string>();
  for (const set of batch) {
    for (const [target, path] of Object.entries(set.uploads)) {
      if (checked.has(path)) continue;
      checked.add(path);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) throw new SetsFileError(file, set.line, set.columns.get(target) ?? 1, `cannot read ${path}: ${info ? 'it is not a file' : 'no such file'}.`);
    }
  }
}

/** Checks each set's workflow against the node definitions; the first set with issues fails the batch, naming its line. */
async function checkSets(cloud: CloudClient, file: string, workflow: Workflow, batch: readonly BatchSet[], common: readonly string[], signal: AbortSignal): Promise<void> {
  for (const set of batch) {
    const uploaded = new Set([...common, ...Object.keys(set.uploads)]);
    const issues = (await cloud.validateWorkflow(setInputs(workflow, set.inputs), { signal })).filter((i) => !uploaded.has(`${i.nodeId}.${i.input ?? ''}`));
    if (issues.length === 0) continue;
    const lines = issues.map((i) => {
      const column = set.columns.get(`${i.nodeId}.${i.input ?? ''}`);
      return `  - node ${i.nodeId}${i.input ? ` input ${i.input}` : ''}${column ? ` (column ${column})` : ''}: ${i.message}`;
    });
    const first = issues.map((i) => set.columns.get(`${i.nodeId}.${i.input ?? ''}`)).find((c) => c !== undefined) ?? 1;
    throw new SetsFileError(file, set.line, first, `set ${set.index} does not match the server's node definitions:\n${lines.join('\n')}`);
  }
}
