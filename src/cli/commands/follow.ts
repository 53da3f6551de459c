import { JobFailedError, type JobResult, type WatchEvent } from '../../index.js';
import type { CommandContext } from '../base/command.js';
import { CliError, describeError } from '../base/errors.js';
import { EXIT } from '../base/exit-codes.js';
import type { RunReporter } from '../live/run-reporter.js';

/**
 * What the command following a job hands to the SDK call it makes.
 *
 * @example
 * ```ts
 * followJob(ctx, reporter, (hooks) => cloud.runWorkflow(workflow, { ...hooks }), { cancel });
 * ```
 */
export interface FollowHooks {
  signal: AbortSignal;
  onSubmitted: (submitted: { promptId: string }) => void;
  onEvent: (event: WatchEvent) => void;
}

/**
 * What the command can do for the job beyond watching it.
 *
 * @example
 * ```ts
 * const control: JobControl = { promptId, cancel: (id) => cloud.jobs.cancel(id) };
 * ```
 */
export interface JobControl {
  /** The job's id, when it exists already (`jobs watch`). */
  promptId?: string | undefined;
  /** Asks the server to cancel the job; resolves with whether it did. */
  cancel?: ((promptId: string) => Promise<{ cancelled: boolean }>) | undefined;
  /** The job's 1-based position in the queue while it waits, when the server says. */
  queuePosition?: ((promptId: string, signal: AbortSignal) => Promise<number | undefined>) | undefined;
}

const QUEUE_POLL_MS = 2_000;

/**
 * Follows a job to its end with the promised Ctrl-C: the first press asks the server to cancel
 * the job and keeps waiting for the answer (before the submission, it stops the command); a
 * second press leaves at once, printing the job's id. Resolves with the result, or with the
 * `JobFailedError` of a failed or cancelled run (which the caller reports).
 *
 * @throws {CliError} interrupted before the job was accepted, or while no cancel is possible.
 * @example
 * ```ts
 * const outcome = await followJob(ctx, reporter, (hooks) => cloud.runWorkflow(workflow, hooks), { cancel });
 * ```
 */
export async function followJob(ctx: CommandContext, reporter: RunReporter, start: (hooks: FollowHooks) => Promise<JobResult>, control: JobControl = {}): Promise<JobResult | JobFailedError> {
  const { interrupts, out } = ctx;
  const stop = new AbortController();
  let promptId = control.promptId;
  let stopQueue: (() => void) | undefined;
  interrupts.setLeaveNotice(() =>
    promptId
      ? { text: `Left without waiting: job ${promptId} goes on. Follow it: graphcloud jobs watch ${promptId}`, json: { type: 'left', promptId } }
      : { text: 'Left before the server accepted the job; if it did, `graphcloud jobs list` shows it.', json: { type: 'left' } },
  );
  interrupts.takeFirstPress(() => {
    if (promptId && control.cancel) {
      reporter.cancelling();
      control.cancel(promptId).then(
        ({ cancelled }) => {
          if (!cancelled) out.notice(out.errorStyle('dim', `The server did not cancel job ${promptId}: it had ended already.`));
        },
        (error: unknown) => out.notice(`${out.errorStyle('red', 'Cancelling failed:')} ${describeError(error, undefined).message} Press Ctrl-C again to leave; the job goes on.`),
      );
      return;
    }
    stop.abort(new CliError(promptId ? `Stopped waiting: job ${promptId} goes on.` : 'Interrupted before the job was accepted.', promptId ? `Follow it: graphcloud jobs watch ${promptId}` : 'If it was, `graphcloud jobs list` shows it.', EXIT.interrupted, promptId ? { submitted: `job ${promptId}` } : undefined));
  });
  const accepted = (id: string): void => {
    promptId = id;
    reporter.submitted(id);
    if (control.queuePosition) stopQueue = pollQueue(reporter, id, control.queuePosition);
  };
  if (promptId) accepted(promptId);
  try {
    return await start({ signal: stop.signal, onSubmitted: ({ promptId: id }) => accepted(id), onEvent: (event) => reporter.onEvent(event) });
  } catch (error) {
    if (error instanceof JobFailedError) return error;
    throw stop.signal.aborted ? stop.signal.reason : error;
  } finally {
    stopQueue?.();
    reporter.stop();
    interrupts.takeFirstPress(undefined);
    interrupts.setLeaveNotice(undefined);
  }
}

/** Reads the job's queue position while it is pending; returns the stop function. */
function pollQueue(reporter: RunReporter, promptId: string, read: NonNullable<JobControl['queuePosition']>): () => void {
  const stop = new AbortController();
  void (async () => {
    while (!stop.signal.aborted && (reporter.state.phase === 'pending' || reporter.state.phase === 'preparing')) {
      try {
        reporter.queued(await read(promptId, stop.signal));
      } catch {
        // The position is a nicety: a failed read changes nothing.
      }
      await sleep(QUEUE_POLL_MS, stop.signal);
    }
  })();
  return () => stop.abort();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref?.();
    signal.addEventListener('abort', done, { once: true });
  });
}
