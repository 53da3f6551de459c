import { GraphcloudError } from '../core/index.js';
import type { TaskKind } from './tasks.js';

/**
 * A media task ended without a result: the vendor reported `FAILED`/`failed` (`reason: 'failed'`),
 * or a success with no generated image or video (`reason: 'no-result'`). `errCode` is the vendor's
 * `err_code` when it sent one. The SDK refunds nothing and never resubmits the task.
 *
 * @example
 * ```ts
 * try { await proxy.waitForTask(task); }
 * catch (error) { if (error instanceof TaskFailedError) console.log(error.taskId, error.reason, error.errCode); }
 * ```
 */
export class TaskFailedError extends GraphcloudError {
  /** `'TaskFailedError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'TaskFailedError';
  /** The task kind (`upscale`, `referenceToVideo`...). */
  readonly kind!: TaskKind;
  /** The task's id. */
  readonly taskId!: string;
  /** The vendor's final status (`FAILED`, `failed`, or the success value that had no result). */
  readonly status!: string;
  /** `failed`: the vendor said so; `no-result`: it reported success with nothing to show. */
  readonly reason!: 'failed' | 'no-result';
  /** The vendor's `err_code`, when it sent one. */
  readonly errCode: string | undefined;
  /** The last status body, unchanged. */
  readonly raw: unknown;

  constructor(init: { kind: TaskKind; taskId: string; status: string; reason: 'failed' | 'no-result'; errCode?: string | undefined; raw: unknown }) {
    const why = init.reason === 'failed' ? `failed${init.errCode ? ` (${init.errCode})` : ''}` : `reported ${init.status} with no result`;
    super(`${init.kind} task ${init.taskId} ${why}`);
    // Sets each field declared above (`!`: assigned here, not by an initializer), in their order.
    Object.assign(this, init);
  }
}
