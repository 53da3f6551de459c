import { GraphcloudError } from '../../core/index.js';
import type { JobResult } from '../../cloud/shared/types.js';

/**
 * What is known of a run's end when it did not complete: the error's class and message, and the
 * fields that say what was paid for (`promptId`, `taskId`).
 *
 * @example
 * ```ts
 * if (info.error?.name === 'SubmissionUnknownError') console.log(info.error.message);
 * ```
 */
export interface RunErrorInfo {
  /** The class of the error the worker met (`JobFailedError`, `SubmissionUnknownError`...). */
  name: string;
  /** Its message. */
  message: string;
  /** The HTTP status, for an error of the API. */
  status?: number | undefined;
  /** What the error carried beyond its message (the failed job's error, what was searched...). */
  details?: Record<string, unknown> | undefined;
}

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
