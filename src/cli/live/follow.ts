import { JobFailedError, TimeoutError, type CloudClient, type JobResult, type WatchEvent } from '../../index.js';

type WorkflowIssue = CloudClient.WorkflowIssue;
import type { CommandContext } from '../base/command.js';
import { CliError, describeError, formatMs } from '../base/errors.js';
import { EXIT, type ExitCode } from '../base/exit-codes.js';
import type { RunReporter } from './run-reporter.js';

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
  onSubmitted: (submitted: { promptId: string; warnings?: WorkflowIssue[] | undefined }) => void;
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
  cancel?: ((promptId: string) => Promise<{ cancelled: boolean; reason?: string | undefined }>) | undefined;
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
  let cancelAsked = false;
  let stopQueue: (() => void) | undefined;
  interrupts.setLeaveNotice(() => {
    if (!promptId) return { text: 'Left before the server accepted the job; if it did, `graphcloud jobs list` shows it.', json: { type: 'left' } };
    const what = cancelAsked ? `its cancellation was asked; see how it ended: graphcloud jobs get ${promptId}` : `it goes on. Follow it: graphcloud jobs watch ${promptId}`;
    return { text: `Left without waiting for job ${promptId}: ${what}`, json: { type: 'left', promptId, cancelAsked } };
  });
  interrupts.takeFirstPress(() => {
    if (promptId && control.cancel) {
      cancelAsked = true;
      reporter.cancelling();
      control.cancel(promptId).then(
        ({ cancelled, reason }) => {
          if (cancelled) return;
          if (reason === 'running_not_cancellable') {
            out.notice(`${out.errorStyle('yellow', '⚠')} This server cannot cancel one running job (only stop every running job of yours). Press Ctrl-C again to leave; job ${promptId} goes on.`);
          } else out.notice(out.errorStyle('dim', `The server did not cancel job ${promptId}: it had ended already.`));
        },
        (error: unknown) => out.notice(`${out.errorStyle('red', 'Cancelling failed:')} ${describeError(error, undefined).message} Press Ctrl-C again to leave; the job goes on.`),
      );
      return;
    }
    // Not accepted yet (or only watched): stop. A job accepted meanwhile is cancelled below.
    stop.abort(new CliError(promptId ? `Stopped watching: job ${promptId} goes on.` : 'Interrupted before the job was accepted; nothing runs.', promptId ? `Follow it again: graphcloud jobs watch ${promptId}` : undefined, EXIT.interrupted, promptId ? { submitted: `job ${promptId}` } : undefined));
  });
  const accepted = (id: string): void => {
    promptId = id;
    reporter.submitted(id);
    if (control.queuePosition) stopQueue = pollQueue(reporter, id, control.queuePosition);
  };
  if (control.promptId) accepted(control.promptId);
  try {
    const onSubmitted = ({ promptId: id, warnings }: { promptId: string; warnings?: WorkflowIssue[] | undefined }) => {
      accepted(id);
      // Sent, though the check before sending could not read some nodes' definitions: say which.
      for (const issue of warnings ?? []) {
        out.json({ type: 'warning', ...issue });
        if (out.mode === 'human') out.notice(`${out.errorStyle('yellow', '⚠')} node ${issue.nodeId}: ${issue.message}`);
      }
    };
    const result = await start({ signal: stop.signal, onSubmitted, onEvent: (event) => reporter.onEvent(event) });
    reporter.stop();
    if (cancelAsked) out.notice(out.errorStyle('dim', `Job ${result.promptId} ended before the cancellation took effect.`));
    return result;
  } catch (error) {
    if (error instanceof JobFailedError) return error;
    const timedOut = error instanceof TimeoutError && error.submitted !== undefined;
    // Nobody waits for the job any more (the deadline, or Ctrl-C as it was being accepted): a
    // command that may cancel it does, and says whether it could.
    if (promptId && control.cancel && !control.promptId && (timedOut || stop.signal.aborted)) {
      throw await abandon(promptId, control.cancel, timedOut ? `Stopped waiting after ${formatMs((error as TimeoutError).timeoutMs)}` : 'Interrupted as the job was accepted', timedOut ? EXIT.timeout : EXIT.cancelled);
    }
    throw stop.signal.aborted ? stop.signal.reason : error;
  } finally {
    stopQueue?.();
    reporter.stop();
    interrupts.takeFirstPress(undefined);
    interrupts.setLeaveNotice(undefined);
  }
}

/** Cancels a job nobody waits for; the error says whether it was. */
async function abandon(promptId: string, cancel: NonNullable<JobControl['cancel']>, what: string, code: ExitCode): Promise<CliError> {
  const outcome = await cancel(promptId).catch((error: unknown) => ({ cancelled: false, reason: describeError(error, undefined).message }));
  if (outcome.cancelled) return new CliError(`${what}; job ${promptId} was cancelled.`, undefined, code);
  const why = outcome.reason === 'ended_or_unknown' ? 'it had ended' : outcome.reason === 'running_not_cancellable' ? 'this server cannot stop one running job' : outcome.reason;
  return new CliError(`${what}; job ${promptId} could not be cancelled (${why}) and goes on.`, `Follow it: graphcloud jobs watch ${promptId}`, code === EXIT.cancelled ? EXIT.interrupted : code, { submitted: `job ${promptId}` });
}

/**
 * The job's 1-based position among the pending jobs (`cloud.jobs.getQueue()`), or undefined when
 * it is not pending any more.
 *
 * @example
 * ```ts
 * await queuePositionOf(cloud, promptId, signal); // 3
 * ```
 */
export async function queuePositionOf(cloud: CloudClient, promptId: string, signal: AbortSignal): Promise<number | undefined> {
  const { pending } = await cloud.jobs.getQueue({ signal });
  return pending.find((item) => item.promptId === promptId)?.position;
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
