import { JobFailedError } from '../../index.js';
import { createCloud } from '../base/clients.js';
import type { CommandContext, CommandSpec } from '../base/command.js';
import { EXIT, type ExitCode } from '../base/exit-codes.js';
import { RunReporter } from '../live/run-reporter.js';
import { parseDuration } from '../base/values.js';
import { followJob } from './follow.js';

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
  const reporter = new RunReporter(ctx, undefined);
  const outcome = await followJob(
    ctx,
    reporter,
    async ({ signal, onEvent }) => {
      const watcher = cloud.jobs.watch(promptId, { signal, ...(waitTimeout === undefined ? {} : { waitTimeout }) });
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
  out.human(`${mark} Job ${promptId} ${out.style('bold', result.status)}${result.error?.message ? `: ${result.error.message}` : ''}`);
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
  subcommands: [watch],
  examples: ['graphcloud jobs watch <promptId>'],
};
