// The errors of graphcloud/queue, and errors as they cross processes: a worker writes what it met
// as a RunErrorInfo on the run, and any process reads it back as an SDK error. Also the one rule
// of which refusals are the account's (they pause the queue instead of failing the run).
import { ApiError, AuthenticationError, GraphcloudError, PaymentRequiredError } from '../core/index.js';
import { JobFailedError, SubmissionUnknownError, SubscriptionInactiveError } from '../cloud/shared/errors.js';
import type { JobResult } from '../cloud/shared/types.js';
import type { RunData } from './run.js';
import type { RunErrorInfo } from './types.js';

/**
 * `run.result()` of a run that failed or was cancelled: `error` is what the worker met (class,
 * message, status), `result` the job's result when the cloud ran it (outputs of the nodes that ran).
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof RunFailedError) console.log(e.runId, e.state, e.error.name, e.promptId); }
 * ```
 */
export class RunFailedError extends GraphcloudError {
  /** `'RunFailedError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'RunFailedError';
  /** The run's id. */
  readonly runId: string;
  /** How it ended. */
  readonly state: 'failed' | 'cancelled';
  /** What the worker met. */
  readonly error: RunErrorInfo;
  /** The job's result, when the cloud ran it. */
  readonly result: JobResult | undefined;
  /** The cloud's prompt id, when the run was submitted. */
  readonly promptId: string | undefined;

  constructor(runId: string, state: 'failed' | 'cancelled', error: RunErrorInfo, result: JobResult | undefined, promptId: string | undefined) {
    super(`Run ${runId} ${state === 'failed' ? 'failed' : 'was cancelled'}: ${error.name}: ${error.message}`);
    this.runId = runId;
    this.state = state;
    this.error = error;
    this.result = result;
    this.promptId = promptId;
    if (promptId !== undefined) this.submitted = { kind: 'job', promptId };
  }
}

/**
 * What is known of a run that may have been submitted but whose job could not be found: its
 * worker marked it "submitting" and tagged the submission (`extra_data.graphcloud_run`), then
 * stopped before the answer was stored, and the worker that took it over found no job with that
 * tag among the jobs created since. The run ends in state `unknown`; it is never submitted again
 * on a guess. A `SubmissionUnknownError`, like a lost answer in one process.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof RunUnknownError) console.log(e.runId, e.runtime, new Date(e.submittingSince)); }
 * ```
 */
export class RunUnknownError extends SubmissionUnknownError {
  /** `'RunUnknownError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'RunUnknownError';
  /** The run's id: the tag its submission carried in `extra_data.graphcloud_run`. */
  readonly runId: string;
  /** The runtime it was sent to. */
  readonly runtime: string;
  /** When its worker marked it submitting, in ms since the epoch. */
  readonly submittingSince: number;
  /** How many jobs created since were read in the search. */
  readonly searched: number;

  constructor(runId: string, runtime: string, submittingSince: number, searched: number, promptId?: string) {
    const cause = new Error(`no job tagged with run ${runId} among the ${searched} jobs created since ${new Date(submittingSince).toISOString()}`);
    super(`${runtime}/api/prompt`, cause, promptId, false);
    this.runId = runId;
    this.runtime = runtime;
    this.submittingSince = submittingSince;
    this.searched = searched;
    this.message = `Run ${runId}: its worker stopped while submitting it to ${runtime}, and ${cause.message}. The job may exist and be billed; it was not submitted again. Check your jobs (cloud.jobs.listAll()) before adding it again.`;
  }
}

/**
 * A run the budget cannot count: a partner node whose price no estimate knows.
 *
 * @example
 * ```ts
 * new UnpricedRunError('order-1234', ['7 (SomePartnerNode): no price badge']);
 * ```
 */
export class UnpricedRunError extends GraphcloudError {
  override name = 'UnpricedRunError';
  constructor(runId: string, nodes: readonly string[]) {
    super(`run ${runId} has partner nodes without a price (${nodes.join('; ')}): the queue's budget cannot count it, so it is not sent. Remove the budget (queue.setBudget(null)) to run it`);
  }
}

/**
 * What an error says, in a form Redis can keep (no stack, no cause chain, bounded text).
 *
 * @example
 * ```ts
 * toErrorInfo(new JobFailedError(result)); // { name: 'JobFailedError', message: 'Job p failed: ...' }
 * ```
 */
export function toErrorInfo(error: unknown): RunErrorInfo {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error).slice(0, 4096) };
  const info: RunErrorInfo = { name: error.name, message: error.message.slice(0, 4096) };
  if (error instanceof ApiError) info.status = error.status;
  if (error instanceof JobFailedError) info.details = { promptId: error.promptId, status: error.status, error: error.result.error };
  if (error instanceof RunUnknownError) info.details = { runId: error.runId, runtime: error.runtime, submittingSince: error.submittingSince, searched: error.searched };
  return info;
}

/**
 * Whether a refusal is the account's (bad key, payment required, subscription inactive): every
 * run would meet it, so the queue pauses instead of failing them one by one.
 *
 * @example
 * ```ts
 * if (isAccountRefusal(error)) await pauseQueue(error);
 * ```
 */
export function isAccountRefusal(error: unknown): boolean {
  return error instanceof AuthenticationError || error instanceof PaymentRequiredError || error instanceof SubscriptionInactiveError;
}

/**
 * The error `run.result()` rejects with for a run that ended without completing.
 *
 * @example
 * ```ts
 * throw toRunError(id, data);
 * ```
 */
export function toRunError(runId: string, data: RunData | undefined, failedReason: string | undefined): GraphcloudError {
  const outcome = data?.outcome;
  const promptId = data?.stage?.promptId;
  if (outcome?.state === 'unknown') {
    const details = outcome.error.details ?? {};
    const since = typeof details.submittingSince === 'number' ? details.submittingSince : (data?.stage?.since ?? 0);
    const searched = typeof details.searched === 'number' ? details.searched : 0;
    return new RunUnknownError(runId, data?.stage?.runtime ?? 'the runtime', since, searched, data?.stage?.chosenPromptId);
  }
  const error = outcome?.error ?? { name: 'Error', message: failedReason ?? 'the run failed' };
  return new RunFailedError(runId, outcome?.state === 'cancelled' ? 'cancelled' : 'failed', error, outcome?.result, promptId);
}
