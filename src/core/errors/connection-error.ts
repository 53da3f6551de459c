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

  constructor(method: string, url: string, cause?: unknown) {
    const reason = cause instanceof Error ? `: ${cause.message}` : '';
    super(`${method} ${url} failed before a response arrived${reason}`, { cause });
    this.method = method;
    this.url = url;
  }
}
