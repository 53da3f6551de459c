import { GraphcloudError } from '../core/index.js';
import type { TaskKind } from './types.js';

/**
 * Why a task did not deliver: the vendor reported a failure, or a success with no result.
 * @example if (error instanceof TaskFailedError && error.reason === 'no-result') retryLater();
 */
export type TaskFailureReason = 'failed' | 'no-result';

/**
 * A media task ended without a result: the vendor reported `FAILED`/`failed`, or a success with no
 * generated image or video. `errCode` is the vendor's `err_code` when it sent one. No money is
 * refunded by the SDK and the task is never resubmitted.
 *
 * @example
 * ```ts
 * try { await proxy.waitForTask(task); }
 * catch (error) { if (error instanceof TaskFailedError) console.log(error.taskId, error.errCode); }
 * ```
 */
export class TaskFailedError extends GraphcloudError {
  override name = 'TaskFailedError';
  readonly kind: TaskKind;
  readonly taskId: string;
  /** The vendor's final status (`FAILED`, `failed`, or the success value that had no result). */
  readonly status: string;
  readonly reason: TaskFailureReason;
  /** The vendor's `err_code`, when it sent one. */
  readonly errCode: string | undefined;
  /** The last status body, unchanged. */
  readonly raw: unknown;

  constructor(init: { kind: TaskKind; taskId: string; status: string; reason: TaskFailureReason; errCode?: string | undefined; raw: unknown }) {
    const why = init.reason === 'failed' ? `failed${init.errCode ? ` (${init.errCode})` : ''}` : `reported ${init.status} with no result`;
    super(`${init.kind} task ${init.taskId} ${why}`);
    this.kind = init.kind;
    this.taskId = init.taskId;
    this.status = init.status;
    this.reason = init.reason;
    this.errCode = init.errCode;
    this.raw = init.raw;
  }
}
