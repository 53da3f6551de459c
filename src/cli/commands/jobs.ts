import { JobFailedError, listOutputFiles, type CloudClient } from '../../index.js';
import { createCloud } from '../base/clients.js';
import type { CommandContext, CommandSpec } from '../base/command.js';
import { CliError, formatMs, usageError } from '../base/errors.js';
import { EXIT, type ExitCode } from '../base/exit-codes.js';
import { printFields, printTable } from '../base/table.js';
import { parseDuration, parseWholeNumber } from '../base/values.js';
import { RunReporter } from '../live/run-reporter.js';
import { followJob } from '../live/follow.js';
import { saveJobOutputs } from '../base/outputs.js';
import { formatSpent } from '../base/money.js';

const STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const;

const list: CommandSpec = {
  name: 'list',
  summary: 'List your jobs, newest first',
  positionals: [0, 0],
  service: 'cloud',
  options: {
    status: { type: 'string', multiple: true, value: '<status>', description: `Only jobs with this status (repeatable): ${STATUSES.join(', ')}` },
    limit: { type: 'string', value: '<n>', description: 'How many jobs to list (default 20)' },
  },
  examples: ['graphcloud jobs list', "graphcloud jobs list --status failed --limit 100 --json | jq -r '.promptId'"],
  run: runList,
};

async function runList(ctx: CommandContext): Promise<ExitCode> {
  const help = `${ctx.path} --help`;
  const statuses = ((ctx.options.status as string[] | undefined) ?? []).flatMap((s) => s.split(',')).map((s) => s.trim());
  const unknown = statuses.filter((s) => !(STATUSES as readonly string[]).includes(s));
  if (unknown.length > 0) throw usageError(`--status takes ${STATUSES.join(', ')}; received "${unknown.join('", "')}".`, help);
  const limit = parseWholeNumber(ctx.options.limit, '--limit', help, { min: 1, fallback: 20 });
  await using cloud = createCloud(ctx);
  const rows: string[][] = [];
  const params: CloudClient.ListJobsParams = { limit: Math.min(limit, 100), ...(statuses.length > 0 ? { status: statuses as CloudClient.JobStatus[] } : {}) };
  for await (const job of cloud.jobs.listAll(params, { signal: ctx.interrupts.signal })) {
    ctx.out.json({ ...job });
    rows.push([job.promptId, job.status, job.createdAt === undefined ? '' : localTime(job.createdAt), job.durationMs === undefined ? '' : formatMs(job.durationMs), job.error?.message ?? (job.outputsCount === undefined ? '' : `${job.outputsCount} output${job.outputsCount === 1 ? '' : 's'}`)]);
    if (rows.length >= limit) break;
  }
  if (rows.length === 0) ctx.out.human(statuses.length > 0 ? `No ${statuses.join(' or ')} jobs.` : 'No jobs yet.');
  printTable(ctx.out, ['JOB', 'STATUS', 'CREATED', 'TOOK', 'OUTCOME'], rows);
  return EXIT.ok;
}

const get: CommandSpec = {
  name: 'get',
  summary: 'Show one job: status, times, error, outputs',
  args: '<promptId>',
  positionals: [1, 1],
  service: 'cloud',
  options: {
    out: { type: 'string', value: '<dir>', description: 'Save its output files in <dir> (never over an existing file)' },
    overwrite: { type: 'boolean', description: 'With --out: replace files of the same name' },
  },
  examples: ['graphcloud jobs get 5d1e2c3a-8c4e-4f0e-9a51-0b6f1c2d3e4f --out ./out'],
  run: runGet,
};

async function runGet(ctx: CommandContext): Promise<ExitCode> {
  const { out } = ctx;
  const promptId = ctx.positionals[0]!;
  await using cloud = createCloud(ctx);
  const job = await cloud.jobs.get(promptId, { signal: ctx.interrupts.signal });
  if (!job) throw new CliError(`The cloud has no job ${promptId}.`, 'Check the id: `graphcloud jobs list` shows your jobs.', EXIT.error);
  const saved = typeof ctx.options.out === 'string' ? await saveJobOutputs(ctx, cloud, job, ctx.options.out) : [];
  out.json({ type: 'job', ...job, saved });
  out.human(`${out.style('bold', `Job ${job.promptId}`)}  ${statusText(ctx, job.status)}`);
  const rows: [string, string | undefined][] = [
    ['created', job.createdAt === undefined ? undefined : localTime(job.createdAt)],
    ['started', job.startedAt === undefined ? undefined : localTime(job.startedAt)],
    ['ended', job.endedAt === undefined ? undefined : localTime(job.endedAt)],
    ['took', job.durationMs === undefined ? undefined : formatMs(job.durationMs)],
    ['error', job.error ? `${job.error.nodeId ? `node ${job.error.nodeId}${job.error.nodeType ? ` (${job.error.nodeType})` : ''}: ` : ''}${job.error.message}` : undefined],
  ];
  printFields(out, rows);
  const files = listOutputFiles(job.outputs);
  if (saved.length > 0) {
    out.human(`  Saved ${saved.length} file${saved.length === 1 ? '' : 's'}:`);
    for (const file of saved) out.human(`    ${file.path}`);
  } else if (files.length > 0) {
    out.human(`  ${files.length} output file${files.length === 1 ? '' : 's'} (pass --out <dir> to save them):`);
    for (const { nodeId, ref } of files) out.human(`    node ${nodeId}: ${ref.subfolder ? `${ref.subfolder}/` : ''}${ref.filename}`);
  }
  return EXIT.ok;
}

const cancel: CommandSpec = {
  name: 'cancel',
  summary: 'Cancel a job: dequeued when pending, stopped when running',
  description: 'Cancel a job: a pending job leaves the queue and never runs; a running job is stopped where the\nserver can stop one job (it never stops your other jobs). Exit code 0 when the job was cancelled, 6 when not.',
  args: '<promptId>',
  positionals: [1, 1],
  service: 'cloud',
  examples: ['graphcloud jobs cancel 5d1e2c3a-8c4e-4f0e-9a51-0b6f1c2d3e4f'],
  run: runCancel,
};

async function runCancel(ctx: CommandContext): Promise<ExitCode> {
  const { out } = ctx;
  const promptId = ctx.positionals[0]!;
  await using cloud = createCloud(ctx);
  const result = await cloud.jobs.cancel(promptId, { signal: ctx.interrupts.signal });
  out.json({ type: 'cancel', promptId, ...result });
  if (result.cancelled) {
    const how = result.via === 'queue' ? 'removed from the queue; it will not run' : 'stopped';
    out.human(`${out.style('green', '✔')} Cancelled job ${promptId} (${how}).`);
    return EXIT.ok;
  }
  if (result.reason === 'running_not_cancellable') {
    throw new CliError(`Job ${promptId} is running, and this server cannot stop one running job.`, 'It can only stop every running job of yours at once; the SDK offers that as cloud.jobs.interruptAll().', EXIT.error);
  }
  throw new CliError(`Job ${promptId} was not cancelled: it has ended, or there is no such job of yours.`, '`graphcloud jobs get <id>` shows how it ended.', EXIT.error);
}

function statusText(ctx: CommandContext, status: string): string {
  const colour = status === 'completed' ? 'green' : status === 'failed' ? 'red' : status === 'cancelled' ? 'yellow' : 'cyan';
  return ctx.out.style(colour, status);
}

function localTime(ms: number): string {
  const date = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

const watch: CommandSpec = {
  name: 'watch',
  summary: 'Follow a job until it ends, with live progress',
  description: 'Follow a job submitted earlier (by `graphcloud run`, or from code) until it ends, with the same live\ndisplay and JSON lines as `graphcloud run`. Ctrl-C stops watching; the job goes on.',
  args: '<promptId>',
  positionals: [1, 1],
  service: 'cloud',
  options: {
    timeout: { type: 'string', value: '<duration>', description: 'Stop waiting after this long: 90s, 10m, 1h, none (default 1h)' },
  },
  examples: ['graphcloud jobs watch 5d1e2c3a-8c4e-4f0e-9a51-0b6f1c2d3e4f'],
  run: runWatch,
};

async function runWatch(ctx: CommandContext): Promise<ExitCode> {
  const { out } = ctx;
  const promptId = ctx.positionals[0]!;
  const help = `${ctx.path} --help`;
  const waitTimeout = typeof ctx.options.timeout === 'string' ? parseDuration(ctx.options.timeout, '--timeout', help) : undefined;
  await using cloud = createCloud(ctx);
  // Read first: an unknown id fails at once, and the job's workflow names its nodes in the display.
  const job = await cloud.jobs.get(promptId, { signal: ctx.interrupts.signal });
  if (!job) throw new CliError(`The cloud has no job ${promptId}.`, 'Check the id: `graphcloud jobs list` shows your jobs.', EXIT.error);
  const reporter = new RunReporter(ctx, job.workflow);
  const outcome = await followJob(
    ctx,
    reporter,
    async ({ signal, onEvent }) => {
      const watcher = cloud.jobs.watch(promptId, { signal, workflow: job.workflow, ...(waitTimeout === undefined ? {} : { waitTimeout }) });
      watcher.onEvent(onEvent);
      const result = await watcher.result();
      if (result.status !== 'completed') throw new JobFailedError(result as typeof result & { status: 'failed' | 'cancelled' });
      return result;
    },
    { promptId },
  );
  const result = outcome instanceof JobFailedError ? outcome.result : outcome;
  out.json({ type: 'result', ...result, files: undefined });
  const mark = result.status === 'completed' ? out.style('green', '✔') : result.status === 'cancelled' ? out.style('yellow', '■') : out.style('red', '✖');
  out.human(`${mark} Job ${promptId} ${out.style('bold', result.status)}${result.error?.message ? `: ${result.error.message}` : ''}${result.cost ? `; spent ${formatSpent(result.cost)}` : ''}`);
  return result.status === 'completed' ? EXIT.ok : result.status === 'cancelled' ? EXIT.cancelled : EXIT.failed;
}

/**
 * `graphcloud jobs`: follow, list, show and cancel jobs.
 *
 * @example
 * ```ts
 * await runCli(root, ['jobs', 'watch', promptId], io);
 * ```
 */
export const jobsCommand: CommandSpec = {
  name: 'jobs',
  summary: 'Follow, list, show and cancel jobs',
  subcommands: [list, get, watch, cancel],
  examples: ['graphcloud jobs list --status in_progress', 'graphcloud jobs watch <promptId>', 'graphcloud jobs cancel <promptId>'],
};
