import { join } from 'node:path';
import type { JobResult, Workflow } from '../../../index.js';
import type { RunInfo, RunQueue } from '../../../queue/index.js';
import type { CommandContext } from '../../base/command.js';
import { CliError } from '../../base/errors.js';
import { EXIT } from '../../base/exit-codes.js';
import type { BatchReporter, SetEnd } from '../../live/batch-reporter.js';
import { setFolder } from './local.js';
import { runIdOf } from '../../base/redis.js';
import type { BatchSet } from './sets.js';
import { eachAtMost } from '../../base/pool.js';
import { Downloads } from '../../base/outputs.js';

/** Sets added to the queue at once (each may upload its files first). */
const ADD_CONCURRENCY = 16;
/** Runs followed at once, in set order: enough to cover every worker's runs, few enough that their re-reads stay cheap. */
const FOLLOWED = 100;
/** Cancel requests sent at once after Ctrl-C. */
const CANCEL_CONCURRENCY = 32;
/** How often a batch that follows its runs checks that workers are connected and still hold its running runs. */
const HOLDERS_CHECK_MS = 2_000;

/**
 * How the sets of a batch go through the queue.
 *
 * @example
 * ```ts
 * const options: QueueBatchOptions = { batchId: 'sweep-7f3a9c21', out: './out', detach: false };
 * ```
 */
export interface QueueBatchOptions {
  /** The batch's id: its runs are `<batchId>-<set>`. */
  batchId: string;
  out?: string | undefined;
  /** Uploads every set makes (`--upload`), by `<nodeId>.<input>`; a set's own win. */
  uploads?: Record<string, string> | undefined;
  partnerApiKey?: true | undefined;
  /** Add the runs and return without following them. */
  detach: boolean;
}

/**
 * Adds every set to the queue as a run (`<batchId>-<set>`; its files are uploaded as it is added),
 * then follows the runs, whichever worker runs them, saving each one's outputs as it completes.
 * The first Ctrl-C adds no more and cancels every run the batch added (a queued run is removed, a
 * running one has its job cancelled by its worker), then waits for them to end.
 *
 * @example
 * ```ts
 * await runQueueBatch(ctx, queue, workflow, sets, reporter, { batchId, detach: false });
 * ```
 */
export async function runQueueBatch(ctx: CommandContext, queue: RunQueue, workflow: Workflow, sets: readonly BatchSet[], reporter: BatchReporter, options: QueueBatchOptions): Promise<void> {
  const { interrupts } = ctx;
  const stop = new AbortController();
  let added = 0;
  const ended = new Set<number>();
  let cancelling = false;
  // Cancelling a run twice does nothing more: a pass after the adding ended reaches the late ones.
  const cancelAll = (): Promise<number> => {
    cancelling = true;
    return eachAtMost(sets.slice(0, added).filter((set) => !ended.has(set.index)), CANCEL_CONCURRENCY, async (set) => {
      await queue.cancel(runIdOf(options.batchId, set.index)).catch(() => undefined);
    });
  };
  interrupts.takeFirstPress(() => {
    stop.abort(new CliError('Cancelled.', undefined, EXIT.cancelled));
    reporter.cancelling();
    void cancelAll();
  });
  interrupts.setLeaveNotice(() => ({
    text: `Left the batch ${options.batchId}${cancelling ? ' (its runs were being cancelled)' : ''}: see it with \`graphcloud batch status ${options.batchId}\`.`,
    json: { type: 'left', batchId: options.batchId, cancelAsked: cancelling },
  }));
  try {
    reporter.preparing(`adding ${sets.length} set${sets.length === 1 ? '' : 's'} to queue ${queue.name}`);
    await eachAtMost(sets, ADD_CONCURRENCY, async (set) => {
      if (stop.signal.aborted) return;
      await queue.add({ workflow, inputs: set.inputs, uploads: { ...options.uploads, ...set.uploads }, partnerApiKey: options.partnerApiKey }, { id: runIdOf(options.batchId, set.index), signal: stop.signal });
      added = Math.max(added, set.index);
    }).catch(async (error: unknown) => {
      if (stop.signal.aborted) return;
      // A set that cannot be added (an upload refused, a run too large) ends the batch: what it
      // added is cancelled rather than left running unwatched.
      stop.abort(error);
      await cancelAll();
      throw error;
    });
    reporter.preparing(undefined);
    ctx.out.json({ type: 'added', batchId: options.batchId, queue: queue.name, sets: added });
    // Sets never added were never sent.
    for (const set of sets.slice(added)) {
      ended.add(set.index);
      reporter.ended(set, { status: 'cancelled' }, true);
    }
    if (stop.signal.aborted) await cancelAll();
    if (options.detach) return;
    await using downloads = new Downloads(ctx);
    const following = new AbortController();
    const checking = checkHolders(queue, options.batchId, sets, reporter, following.signal);
    try {
      await eachAtMost(sets.slice(0, added), FOLLOWED, async (set) => {
        const end = await follow(queue, runIdOf(options.batchId, set.index), set, reporter);
        const saved = end.status === 'done' && options.out && end.result ? await downloads.save(end.result, end.runtime, join(options.out, setFolder(set.index, sets.length))) : undefined;
        ended.add(set.index);
        const { result, runtime: _runtime, ...rest } = end;
        reporter.ended(set, { ...rest, ...(saved ? { saved } : end.status === 'done' ? { outputs: result?.outputs } : {}) });
      });
    } finally {
      following.abort();
      await checking;
    }
  } finally {
    interrupts.takeFirstPress(undefined);
    interrupts.setLeaveNotice(undefined);
  }
}

/**
 * While the batch follows its runs: whether any worker is connected to the queue, and for each set
 * running, whether its worker is gone (a worker killed leaves its runs until their lock lapses and
 * a live worker's stalled check takes them over). A failed read is skipped: the next one tells.
 */
async function checkHolders(queue: RunQueue, batchId: string, sets: readonly BatchSet[], reporter: BatchReporter, signal: AbortSignal): Promise<void> {
  const byIndex = new Map(sets.map((set) => [set.index, set]));
  while (!signal.aborted) {
    try {
      reporter.workers(queue.name, (await queue.status()).workers);
      for (const index of [...reporter.state.active.keys()]) {
        if (signal.aborted) return;
        const info = await queue.get(runIdOf(batchId, index));
        reporter.workerLost(byIndex.get(index)!, info?.workerLost?.takeoverWithinMs);
      }
    } catch {
      // Redis away for a moment: the runs' own events carry on, and so does this check.
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, HOLDERS_CHECK_MS);
      signal.addEventListener('abort', done, { once: true });
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  }
}

/** Follows one run to its end: started and submitted as its worker says, progress, then how it ended. */
async function follow(queue: RunQueue, id: string, set: BatchSet, reporter: BatchReporter): Promise<Omit<SetEnd, 'saved'> & { result?: JobResult | undefined; runtime?: string | undefined }> {
  let promptId: string | undefined;
  for await (const event of queue.run(id).events()) {
    if (event.type === 'progress') {
      reporter.progress(set, event.progress.fraction);
      continue;
    }
    if (event.state === 'submitting' || event.state === 'running') reporter.started(set);
    if (event.promptId && event.promptId !== promptId) {
      promptId = event.promptId;
      reporter.started(set);
      reporter.submitted(set, promptId);
    }
  }
  const info: RunInfo | undefined = await queue.get(id);
  const base = { promptId: info?.promptId ?? promptId, cost: info?.cost };
  switch (info?.state) {
    case 'completed':
      return { status: 'done', ...base, result: info.result as JobResult, runtime: info.runtime };
    case 'failed':
    case 'unknown':
      return { status: 'failed', ...base, error: info.error ? `${info.state === 'unknown' ? 'unknown: ' : ''}${info.error.message}` : undefined };
    default:
      return { status: 'cancelled', ...base };
  }
}
