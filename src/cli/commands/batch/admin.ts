import { join } from 'node:path';
import type { JobResult } from '../../../index.js';
import type { RunInfo } from '../../../queue/index.js';
import { ENDED_STATES } from '../../../queue/types.js';
import type { CommandContext, CommandSpec, OptionSpec } from '../../base/command.js';
import { CliError, usageError } from '../../base/errors.js';
import { EXIT, type ExitCode } from '../../base/exit-codes.js';
import { printTable } from '../../base/table.js';
import { setFolder } from './local.js';
import { Downloads } from '../../base/outputs.js';
import { batchRuns, DEFAULT_QUEUE, openQueue, redisUrl } from '../../base/redis.js';

const QUEUE_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  redis: { type: 'string', value: '<url>', description: 'The run queue\'s Redis (default: $GRAPHCLOUD_REDIS_URL; no password here)' },
  queue: { type: 'string', value: '<name>', description: `The queue's name (default ${DEFAULT_QUEUE})` },
};

/**
 * `graphcloud batch status|cancel|results <batch id>`: a batch added with `--redis`, read from the
 * queue by any process.
 *
 * @example
 * ```ts
 * await runCli(root, ['batch', 'status', 'sweep-7f3a9c21'], io);
 * ```
 */
export const batchAdminCommands: readonly CommandSpec[] = [
  {
    name: 'status',
    summary: 'How the runs of a batch stand (from the run queue)',
    description: 'How the runs of a batch added with --redis stand: how many are queued, running, completed, failed,\ncancelled, and the runs that did not complete. Piped (or with --json): one line per run, then a summary.',
    args: '<batch id>',
    positionals: [1, 1],
    options: QUEUE_OPTIONS,
    examples: ['graphcloud batch status sweep-7f3a9c21', "graphcloud batch status sweep-7f3a9c21 --json | jq -r 'select(.state == \"failed\") | .id'"],
    run: (ctx) => withRuns(ctx, status),
  },
  {
    name: 'cancel',
    summary: 'Cancel every run of a batch that has not ended',
    description: 'Cancel every run of a batch that has not ended, from any machine: a queued run is removed and never\nsubmitted; a running one has its job cancelled once by the worker that holds it.',
    args: '<batch id>',
    positionals: [1, 1],
    options: QUEUE_OPTIONS,
    examples: ['graphcloud batch cancel sweep-7f3a9c21'],
    run: (ctx) => withRuns(ctx, cancel),
  },
  {
    name: 'results',
    summary: "Save the outputs of a batch's completed runs",
    description: "Save the outputs of a batch's completed runs in <dir>/<set>, as `batch --out` does (never over a\nfile); without --out, list them. Runs that did not complete are listed with their state.",
    args: '<batch id>',
    positionals: [1, 1],
    service: 'cloud',
    options: { ...QUEUE_OPTIONS, out: { type: 'string', value: '<dir>', description: "Save each completed run's outputs in <dir>/<set>" }, overwrite: { type: 'boolean', description: 'With --out: replace files of the same name' } },
    examples: ['graphcloud batch results sweep-7f3a9c21 --out ./out'],
    run: (ctx) => withRuns(ctx, results),
  },
];

type Action = (ctx: CommandContext, batchId: string, runs: readonly RunInfo[], queue: Awaited<ReturnType<typeof openQueue>>) => Promise<ExitCode>;

async function withRuns(ctx: CommandContext, action: Action): Promise<ExitCode> {
  const help = `${ctx.path} --help`;
  const url = redisUrl(ctx, help);
  if (url === undefined) throw usageError('No run queue is set: pass --redis <url> or set GRAPHCLOUD_REDIS_URL.', help);
  const batchId = ctx.positionals[0]!;
  const name = typeof ctx.options.queue === 'string' ? ctx.options.queue : DEFAULT_QUEUE;
  await using queue = await openQueue(ctx, url, name, false);
  const runs = await batchRuns(queue, batchId);
  if (runs.length === 0) throw new CliError(`Queue ${name} holds no run of a batch ${batchId}.`, 'Check the batch id and --queue (finished runs are kept 7 days).', EXIT.error);
  return await action(ctx, batchId, runs, queue);
}

/** The set number of a run `<batch id>-<set>`. */
const setOf = (batchId: string, run: RunInfo): number => Number(run.id.slice(batchId.length + 1));

function countStates(runs: readonly RunInfo[]): Record<string, number> {
  const counts: Record<string, number> = { queued: 0, submitting: 0, running: 0, completed: 0, failed: 0, cancelled: 0, unknown: 0 };
  for (const run of runs) counts[run.state] = (counts[run.state] ?? 0) + 1;
  return counts;
}

async function status(ctx: CommandContext, batchId: string, runs: readonly RunInfo[]): Promise<ExitCode> {
  const { out } = ctx;
  for (const run of runs) out.json({ type: 'run', set: setOf(batchId, run), id: run.id, state: run.state, promptId: run.promptId, ...(run.progress ? { progress: run.progress.fraction } : {}), ...(run.error ? { error: run.error.message } : {}) });
  const counts = countStates(runs);
  out.json({ type: 'summary', batchId, total: runs.length, ...counts });
  const shown = Object.entries(counts).filter(([, n]) => n > 0).map(([state, n]) => `${n} ${state}`);
  out.human(`Batch ${batchId}: ${runs.length} run${runs.length === 1 ? '' : 's'}; ${shown.join(', ')}`);
  const notDone = runs.filter((run) => run.state !== 'completed');
  printTable(out, ['SET', 'STATE', 'JOB', 'DETAIL'], notDone.map((run) => [String(setOf(batchId, run)), run.state, run.promptId ?? '', detailOf(run)]));
  return Promise.resolve(EXIT.ok);
}

/**
 * What the DETAIL column says of a run: progress while it runs; for a job that failed or was
 * cancelled, the job's own reason (the STATE and JOB columns already say which job ended how, as
 * the wrapping "Job X was cancelled: " would again); else the error's message.
 */
function detailOf(run: RunInfo): string {
  if (!run.error) return run.progress ? `${Math.floor(run.progress.fraction * 100)}%` : '';
  const jobError = run.error.name === 'JobFailedError' ? run.error.details?.error : undefined;
  const reason = jobError !== null && typeof jobError === 'object' && typeof (jobError as { message?: unknown }).message === 'string' ? (jobError as { message: string }).message : undefined;
  return reason || run.error.message;
}

async function cancel(ctx: CommandContext, batchId: string, runs: readonly RunInfo[], queue: Awaited<ReturnType<typeof openQueue>>): Promise<ExitCode> {
  const { out } = ctx;
  const actions = { removed: 0, requested: 0, ended: 0 };
  for (const run of runs) {
    const { action } = ENDED_STATES.has(run.state) ? { action: 'ended' as const } : await queue.cancel(run.id);
    actions[action] += 1;
    if (action !== 'ended') out.json({ type: 'cancel', set: setOf(batchId, run), id: run.id, action });
  }
  out.json({ type: 'summary', batchId, total: runs.length, ...actions });
  out.human(`${out.style('yellow', '■')} Batch ${batchId}: ${actions.removed} queued run${actions.removed === 1 ? '' : 's'} removed, ${actions.requested} running asked to cancel, ${actions.ended} had ended.`);
  return EXIT.ok;
}

async function results(ctx: CommandContext, batchId: string, runs: readonly RunInfo[]): Promise<ExitCode> {
  const { out, options } = ctx;
  const dir = typeof options.out === 'string' ? options.out : undefined;
  await using downloads = new Downloads(ctx);
  let saved = 0;
  for (const run of runs) {
    const set = setOf(batchId, run);
    if (run.state !== 'completed') {
      out.json({ type: 'result', set, id: run.id, state: run.state, ...(run.error ? { error: run.error.message } : {}) });
      out.human(`  set ${set}: ${run.state}${run.error ? ` (${run.error.message})` : ''}`);
      continue;
    }
    const result = run.result as JobResult;
    const files = dir ? await downloads.save(result, run.runtime, join(dir, setFolder(set, runs.length))) : undefined;
    saved += files?.length ?? 0;
    out.json({ type: 'result', set, id: run.id, state: run.state, promptId: run.promptId, ...(files ? { saved: files } : { outputs: result.outputs }) });
    if (!files) out.human(`  set ${set}: completed, job ${run.promptId ?? ''}`);
  }
  const completed = runs.filter((run) => run.state === 'completed').length;
  out.human(`${out.style('green', '✔')} Batch ${batchId}: ${completed} of ${runs.length} runs completed${dir ? `; ${saved} file${saved === 1 ? '' : 's'} saved in ${dir}, one folder per set` : ''}.`);
  return EXIT.ok;
}
