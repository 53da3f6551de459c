import { GraphcloudError } from './graphcloud-error.js';

/**
 * The server could not be reached, or the connection broke before a response arrived.
 * For a POST this means the outcome is unknown: the SDK never retries it (a second paid job).
 *
 * @example
 * ```ts
 * if (error instanceof ConnectionError) console.log(error.method, error.url);
 * ```
 */
export class ConnectionError extends GraphcloudError {
  override name = 'ConnectionError';
  readonly method: string;
  /** The request URL, credentials redacted. */
  readonly url: string;
  /** The status, when the headers arrived and the body then broke; `undefined` when nothing arrived. */
  readonly status: number | undefined;

  constructor(method: string, url: string, cause?: unknown, status?: number) {
    const reason = cause instanceof Error ? `: ${cause.message}` : '';
    const what = status ? `answered ${status}, then the connection broke while the body was read` : 'failed before a response arrived';
    // For a POST the server may have accepted the request: say so, since it is not sent again.
    const post = method === 'POST' ? ' (the server may have accepted it; it was not sent again)' : '';
    super(`${method} ${url} ${what}${post}${reason}`, { cause });
    this.method = method;
    this.url = url;
    this.status = status;
  }
}
