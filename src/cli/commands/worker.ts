import type { RunWorker } from '../../queue/index.js';
import type { CommandContext, CommandSpec } from '../base/command.js';
import { usageError } from '../base/errors.js';
import { EXIT, type ExitCode } from '../base/exit-codes.js';
import { parseWholeNumber } from '../base/values.js';
import { checkReachable, DEFAULT_QUEUE, loadQueue, redisUrl, shownUrl } from '../base/redis.js';

/**
 * `graphcloud worker`: runs the runs of a queue (added by `batch --redis` or `RunQueue.add()`) on
 * the environment's cloud, or on local runtimes (`--runtime`, one worker each: a pool), until
 * Ctrl-C.
 *
 * @example
 * ```ts
 * await runCli(root, ['worker', '--redis', 'redis://127.0.0.1:6379', '--runtime', 'http://gpu-1:8188'], io);
 * ```
 */
export const workerCommand: CommandSpec = {
  name: 'worker',
  summary: 'Run the runs of a queue (graphcloud batch --redis) until Ctrl-C',
  description:
    'Take runs from a queue in Redis and run them: on the cloud of the environment, or with --runtime on\n' +
    'local runtimes (one worker per URL: a pool; a runtime that stops answering pauses its worker, and\n' +
    'its runs go to the others). Start as many as you like, on any machines.\n\n' +
    'Ctrl-C (or SIGTERM) stops taking runs and hands the runs in flight back to the queue with their\n' +
    'stored job ids: another worker watches them, none is sent again. With --finish it waits for them\n' +
    'to end instead. A second Ctrl-C leaves at once (the runs are taken over once their lock expires).',
  service: 'cloud',
  options: {
    redis: { type: 'string', value: '<url>', description: 'The run queue\'s Redis (default: $GRAPHCLOUD_REDIS_URL; no password here)' },
    queue: { type: 'string', value: '<name>', description: `The queue's name (default ${DEFAULT_QUEUE})` },
    runtime: { type: 'string', multiple: true, value: '<url>', description: 'A local runtime to run on instead of the cloud; repeat for a pool' },
    concurrency: { type: 'string', value: '<n>', description: 'Runs each worker holds at once (default 4)' },
    finish: { type: 'boolean', description: 'On Ctrl-C, finish the runs in flight instead of handing them back' },
  },
  examples: [
    'GRAPHCLOUD_REDIS_URL=redis://127.0.0.1:6379 graphcloud worker',
    'graphcloud worker --redis redis://redis.internal:6379 --runtime http://gpu-1:8188 --runtime http://gpu-2:8188',
  ],
  run: runWorkerCommand,
};

async function runWorkerCommand(ctx: CommandContext): Promise<ExitCode> {
  const { options, out, interrupts } = ctx;
  const help = `${ctx.path} --help`;
  const url = redisUrl(ctx, help);
  if (url === undefined) throw usageError('No run queue is set: pass --redis <url> or set GRAPHCLOUD_REDIS_URL.', help);
  const name = typeof options.queue === 'string' ? options.queue : DEFAULT_QUEUE;
  const concurrency = options.concurrency === undefined ? undefined : parseWholeNumber(options.concurrency, '--concurrency', help, { min: 1, max: 256 });
  const runtimes = (options.runtime as string[] | undefined) ?? [];
  for (const runtime of runtimes) if (!/^https?:\/\/\S+$/.test(runtime)) throw usageError(`--runtime takes an http(s) URL, received "${runtime}".`, help);
  const cloud = runtimes.length === 0 ? ctx.config.cloud() : undefined;
  const proxy = proxyOf(ctx);
  await checkReachable(url);
  const { RunWorker } = await loadQueue();
  // Each line says when it happened (ISO 8601, UTC): a log read hours later is read by its times.
  const log = (line: string): void => {
    const at = new Date().toISOString();
    out.json({ type: 'log', at, message: line });
    out.human(out.style('dim', `${at} ${line}`));
  };
  const workers: RunWorker[] = (runtimes.length > 0 ? runtimes : [undefined]).map(
    (runtime) => new RunWorker({ connection: url, name, ...(runtime ? { runtime } : { cloud }), ...(proxy ? { proxy } : {}), ...(concurrency ? { concurrency } : {}), onLog: log }),
  );
  const finish = options.finish === true;
  let stopping = false;
  interrupts.setLeaveNotice(() => ({ text: `Left at once: the runs this worker held are taken over by another worker once their lock expires; none is sent again.`, json: { type: 'left' } }));
  try {
    await Promise.all(workers.map((worker) => worker.ready()));
    const where = runtimes.length > 0 ? `runtime${runtimes.length === 1 ? '' : 's'} ${runtimes.join(', ')}` : `the cloud at ${cloud!.baseUrl}`;
    out.json({ type: 'ready', queue: name, redis: shownUrl(url), runtimes, cloud: cloud?.baseUrl, concurrency: concurrency ?? 4 });
    out.human(`${out.style('green', '✔')} Worker on queue ${name} (${shownUrl(url)}): runs on ${where}, ${concurrency ?? 4} at once${runtimes.length > 1 ? ' each' : ''}.`);
    out.human(out.style('dim', `  Ctrl-C stops: runs in flight are ${finish ? 'finished first' : 'handed back with their job ids'}.`));
    await new Promise<void>((resolve) => {
      interrupts.takeFirstPress(resolve);
      interrupts.takeTerminate(resolve);
    });
    stopping = true;
    const held = workers.reduce((sum, worker) => sum + worker.inFlight, 0);
    out.notice(`${out.errorStyle('yellow', '⚠')} Stopping: ${held === 0 ? 'no run in flight' : finish ? `finishing ${held} run${held === 1 ? '' : 's'} in flight` : `handing ${held} run${held === 1 ? '' : 's'} back to the queue`}… (Ctrl-C again leaves now)`);
    await Promise.all(workers.map((worker) => worker.close({ finish })));
    out.json({ type: 'stopped', handedBack: finish ? 0 : held });
    out.human(`${out.style('green', '✔')} Worker stopped.`);
    return EXIT.ok;
  } finally {
    interrupts.takeFirstPress(undefined);
    interrupts.takeTerminate(undefined);
    interrupts.setLeaveNotice(undefined);
    if (!stopping) await Promise.allSettled(workers.map((worker) => worker.close()));
  }
}

/** The media proxy of the environment, for task runs, when one is configured. */
function proxyOf(ctx: CommandContext): ReturnType<CommandContext['config']['proxy']> | undefined {
  try {
    return ctx.config.proxy();
  } catch {
    return undefined;
  }
}
