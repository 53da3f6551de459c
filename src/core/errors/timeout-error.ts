import { GraphcloudError } from './graphcloud-error.js';

/**
 * A per-attempt timeout or an overall deadline expired.
 *
 * @example
 * ```ts
 * await cloud.runWorkflow(workflow, { timeout: 60_000 }).catch((e) => e instanceof TimeoutError);
 * ```
 */
export class TimeoutError extends GraphcloudError {
  /** `'TimeoutError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'TimeoutError';
  /** The limit that expired, in milliseconds. */
  readonly timeoutMs: number;
  /** What timed out, e.g. `GET https://…/nodes/x` or `task 123`. */
  readonly operation: string;

  constructor(operation: string, timeoutMs: number, cause?: unknown) {
    super(`${operation} timed out after ${timeoutMs} ms${cause instanceof Error ? ` (last error: ${cause.message})` : ''}`, cause === undefined ? undefined : { cause });
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}
