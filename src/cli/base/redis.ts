import { connect } from 'node:net';
import type { RunQueue } from '../../queue/index.js';
import type { CommandContext } from './command.js';
import { ENV } from './config.js';
import { CliError, usageError } from './errors.js';
import { EXIT } from './exit-codes.js';

/** The queue `batch --redis` and `worker` use when `--queue` names none. */
export const DEFAULT_QUEUE = 'graphcloud';

/** The entry `graphcloud/queue`, loaded only by the commands that use Redis (it loads BullMQ). */
export type QueueModule = typeof import('../../queue/index.js');

/**
 * Loads `graphcloud/queue`; `bullmq` and `ioredis` are optional peer dependencies, so a missing
 * one is a sentence saying what to install, not a stack.
 *
 * @throws {CliError} bullmq or ioredis is not installed.
 * @example
 * ```ts
 * const { RunQueue } = await loadQueue();
 * ```
 */
export async function loadQueue(): Promise<QueueModule> {
  try {
    return await import('../../queue/index.js');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && /bullmq|ioredis/.test(message)) {
      throw new CliError('The run queue needs the packages bullmq and ioredis, and they are not installed.', 'Install them next to graphcloud: npm install bullmq ioredis', EXIT.error, { cause: error });
    }
    throw error;
  }
}

/**
 * The Redis URL of `--redis`, else of `GRAPHCLOUD_REDIS_URL`, or undefined for none. A password
 * belongs in the variable only (a flag lands in shell history and in `ps`).
 *
 * @throws {CliError} not a redis:// or rediss:// URL, or a password in the flag.
 * @example
 * ```ts
 * const url = redisUrl(ctx, 'graphcloud batch --help'); // 'redis://127.0.0.1:6379'
 * ```
 */
export function redisUrl(ctx: CommandContext, help: string): string | undefined {
  const flag = ctx.options.redis;
  const fromFlag = typeof flag === 'string' && flag !== '';
  const url = fromFlag ? flag : ctx.io.env[ENV.redisUrl]?.trim() || undefined;
  if (url === undefined) return undefined;
  if (!/^rediss?:\/\/[^\s]*$/.test(url)) throw usageError(`${fromFlag ? '--redis' : ENV.redisUrl} takes a redis:// or rediss:// URL, received "${shownUrl(url)}".`, help);
  if (fromFlag && /^rediss?:\/\/[^@/]*:[^@/]*@/.test(url)) throw new CliError('--redis holds a password: a flag lands in shell history and in `ps`.', `Set ${ENV.redisUrl} instead.`, EXIT.usage);
  return url;
}

/**
 * A Redis URL as it may be printed: without its user and password.
 *
 * @example
 * ```ts
 * shownUrl('redis://:secret@redis.internal:6379'); // 'redis://redis.internal:6379'
 * ```
 */
export function shownUrl(url: string): string {
  return url.replace(/^(rediss?:\/\/)[^@/]*@/, '$1');
}

/**
 * Opens the queue of `--queue` on the Redis of `--redis`, with the environment's cloud for uploads.
 *
 * @example
 * ```ts
 * await using queue = await openQueue(ctx, url, 'graphcloud');
 * ```
 */
export async function openQueue(ctx: CommandContext, url: string, name: string, withCloud: boolean): Promise<RunQueue> {
  await checkReachable(url);
  const { RunQueue } = await loadQueue();
  return new RunQueue({ connection: url, name, ...(withCloud ? { cloud: ctx.config.cloud() } : {}) });
}

const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Fails at once when nothing answers at the Redis URL's host and port: the queue's connections
 * wait through a Redis restart without end, which would make a mistyped URL hang.
 *
 * @throws {CliError} the connection is refused or does not open in 5 s (exit code 6).
 * @example
 * ```ts
 * await checkReachable('redis://127.0.0.1:6379');
 * ```
 */
export async function checkReachable(url: string): Promise<void> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = Number(parsed.port || 6379);
  const problem = await new Promise<string | undefined>((resolve) => {
    const socket = connect({ host, port });
    const done = (reason: string | undefined): void => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => done(`no answer in ${CONNECT_TIMEOUT_MS / 1000} s`));
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: Error & { code?: string }) => done(error.code ?? error.message));
  });
  if (problem !== undefined) throw new CliError(`Could not reach Redis at ${shownUrl(url)} (${problem}).`, `Check ${ENV.redisUrl} (or --redis), and that Redis runs.`, EXIT.error);
}

/**
 * The id of one set's run: `<batch id>-<set number>`; `batch status|cancel|results` find a batch's
 * runs by counting up from 1.
 *
 * @example
 * ```ts
 * runIdOf('sweep-7f3a9c21', 12); // 'sweep-7f3a9c21-12'
 * ```
 */
export function runIdOf(batchId: string, index: number): string {
  return `${batchId}-${index}`;
}

/**
 * Every run of a batch, in set order: reads `<batch id>-1`, `-2`... a hundred at a time, until one
 * is not in the queue.
 *
 * @example
 * ```ts
 * for (const run of await batchRuns(queue, 'sweep-7f3a9c21')) console.log(run.state);
 * ```
 */
export async function batchRuns(queue: RunQueue, batchId: string): Promise<NonNullable<Awaited<ReturnType<RunQueue['get']>>>[]> {
  const runs: NonNullable<Awaited<ReturnType<RunQueue['get']>>>[] = [];
  for (let first = 1; ; first += 100) {
    const page = await Promise.all(Array.from({ length: 100 }, (_, i) => queue.get(runIdOf(batchId, first + i))));
    for (const info of page) {
      if (!info) return runs;
      runs.push(info);
    }
  }
}
