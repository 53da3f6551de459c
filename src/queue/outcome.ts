// Errors as they cross processes: a worker writes what it met as a RunErrorInfo on the run, and
// any process reads it back as an SDK error. Also the one rule of which refusals are the
// account's (they pause the queue instead of failing the run).
import { ApiError, AuthenticationError, GraphcloudError, PaymentRequiredError } from '../core/index.js';
import { JobFailedError, SubscriptionInactiveError } from '../cloud/shared/errors.js';
import type { RunData } from './data.js';
import { RunFailedError } from './errors/run-failed-error.js';
import { RunUnknownError } from './errors/run-unknown-error.js';
import type { RunErrorInfo } from './types.js';

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
