import { join } from 'node:path';
import {
  AuthenticationError,
  ConnectionError,
  InsufficientCreditsError,
  JobFailedError,
  PermissionDeniedError,
  SubscriptionInactiveError,
  type CloudClient,
  type Workflow,
} from '../../../index.js';
import type { CommandContext } from '../../base/command.js';
import { CliError, describeError } from '../../base/errors.js';
import { EXIT } from '../../base/exit-codes.js';
import type { BatchReporter } from '../../live/batch-reporter.js';
import { eachAtMost } from '../../base/pool.js';
import type { BatchSet } from './sets.js';
import { saveJobOutputs } from '../../base/outputs.js';

/**
 * How the sets of a batch run in this process.
 *
 * @example
 * ```ts
 * const options: LocalBatchOptions = { concurrency: 4, out: './out', waitTimeout: 3_600_000 };
 * ```
 */
export interface LocalBatchOptions {
  /** Sets running at once. */
  concurrency: number;
  /** Where each set's outputs go, in a folder of its own (`<out>/<set>`). */
  out?: string | undefined;
  /** Uploads every set makes (`--upload`), by `<nodeId>.<input>`; a set's own win. */
  uploads?: Record<string, string> | undefined;
  /** The deadline of each run's wait (`--timeout`). */
  waitTimeout?: number | false | undefined;
  partnerApiKey?: true | undefined;
}

/**
 * The name of a set's output folder: its number, padded so that folders sort in the file's order.
 *
 * @example
 * ```ts
 * setFolder(7, 120); // '007'
 * ```
 */
export function setFolder(index: number, total: number): string {
  return String(index).padStart(String(total).length, '0');
}

/**
 * Runs every set with `cloud.runWorkflow()`, at most `concurrency` at once, saving each one's
 * outputs as it ends. The first Ctrl-C starts no new set, asks the server to cancel each job the
 * batch submitted (a set still uploading is stopped, and its job cancelled if it was accepted
 * meanwhile) and waits for them to end; a second press leaves at once, naming the jobs that go
 * on. An error of the account (a refused key, no credits, no subscription) or an unreachable
 * cloud starts no new set either, and is thrown once the running ones ended.
 *
 * @throws the account's or the connection's error, after the sets running ended.
 * @example
 * ```ts
 * await runLocalBatch(ctx, cloud, workflow, sets, reporter, { concurrency: 4, out: './out' });
 * ```
 */
export async function runLocalBatch(ctx: CommandContext, cloud: CloudClient, workflow: Workflow, sets: readonly BatchSet[], reporter: BatchReporter, options: LocalBatchOptions): Promise<void> {
  const { interrupts, out } = ctx;
  const inflight = new Map<number, { stop: AbortController; promptId: string | undefined }>();
  let stopping = false;
  let fatal: unknown;

  interrupts.takeFirstPress(() => {
    stopping = true;
    reporter.cancelling();
    for (const run of inflight.values()) {
      if (!run.promptId) {
        // runWorkflow cancels a job accepted as it stops (cancelOnAbort).
        run.stop.abort(new CliError('Cancelled before the job was accepted.', undefined, EXIT.cancelled));
        continue;
      }
      const promptId = run.promptId;
      cloud.jobs.cancel(promptId).then(
        ({ cancelled }) => {
          if (!cancelled) out.notice(out.errorStyle('dim', `The server did not cancel job ${promptId}: it had ended, or cannot be stopped alone.`));
        },
        (error: unknown) => out.notice(`${out.errorStyle('red', 'Cancelling failed:')} job ${promptId}: ${describeError(error, undefined).message}`),
      );
    }
  });
  interrupts.setLeaveNotice(() => {
    const ids = [...inflight.values()].flatMap((run) => (run.promptId ? [run.promptId] : []));
    if (ids.length === 0) return { text: 'Left the batch; no job of it was running.', json: { type: 'left', promptIds: [] } };
    const what = stopping ? 'Their cancellation was asked; see how each ended: graphcloud jobs get <id>' : 'They go on; follow one: graphcloud jobs watch <id>';
    return { text: `Left the batch without waiting for ${ids.length} job${ids.length === 1 ? '' : 's'}:\n${ids.map((id) => `  ${id}`).join('\n')}\n${what}`, json: { type: 'left', promptIds: ids, cancelAsked: stopping } };
  });

  const runOne = async (set: BatchSet): Promise<void> => {
    const run = { stop: new AbortController(), promptId: undefined as string | undefined };
    inflight.set(set.index, run);
    reporter.started(set);
    try {
      const result = await cloud.runWorkflow(workflow, {
        inputs: set.inputs,
        uploads: { ...options.uploads, ...set.uploads },
        // Every set was checked before the first one started.
        validate: false,
        signal: run.stop.signal,
        cancelOnAbort: true,
        partnerApiKey: options.partnerApiKey,
        ...(options.waitTimeout === undefined ? {} : { waitTimeout: options.waitTimeout }),
        onSubmitted: ({ promptId }) => {
          run.promptId = promptId;
          reporter.submitted(set, promptId);
        },
        onEvent: (event) => reporter.onEvent(set, event),
      });
      const saved = options.out ? await saveJobOutputs(ctx, cloud, result, join(options.out, setFolder(set.index, sets.length))) : undefined;
      reporter.ended(set, { status: 'done', promptId: result.promptId, ...(saved ? { saved } : { outputs: result.outputs }), cost: result.cost });
    } catch (error) {
      if (error instanceof JobFailedError) {
        const { result } = error;
        reporter.ended(set, { status: result.status === 'cancelled' ? 'cancelled' : 'failed', promptId: result.promptId, error: result.error?.message, outputs: result.outputs, cost: result.cost });
      } else if (run.stop.signal.aborted) {
        reporter.ended(set, { status: 'cancelled', promptId: run.promptId });
      } else {
        if (stopsTheBatch(error)) fatal ??= error;
        reporter.ended(set, { status: 'failed', promptId: run.promptId, error: describeError(error, ctx.config.errorContext('cloud')).message });
      }
    } finally {
      inflight.delete(set.index);
    }
  };

  let started: number;
  try {
    started = await eachAtMost(sets, options.concurrency, runOne, () => stopping || fatal !== undefined);
  } finally {
    interrupts.takeFirstPress(undefined);
    interrupts.setLeaveNotice(undefined);
  }
  // The sets never started were never sent.
  for (const set of sets.slice(started)) reporter.ended(set, { status: 'cancelled' }, true);
  if (fatal !== undefined) throw fatal;
}

/** An error every other set would meet too: the account's, or a cloud that cannot be reached. */
function stopsTheBatch(error: unknown): boolean {
  return (
    error instanceof AuthenticationError ||
    error instanceof PermissionDeniedError ||
    error instanceof InsufficientCreditsError ||
    error instanceof SubscriptionInactiveError ||
    error instanceof ConnectionError
  );
}
