import { GraphcloudError } from './graphcloud-error.js';

/**
 * A response body did not have the shape the SDK reads. `field` names the first bad field;
 * `body` keeps the raw body so nothing is lost.
 *
 * @example
 * ```ts
 * if (error instanceof ResponseValidationError) console.log(error.field, error.body);
 * ```
 */
export class ResponseValidationError extends GraphcloudError {
  /** `'ResponseValidationError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'ResponseValidationError';
  /** Dotted path of the first field that failed, `(root)` for the body itself. */
  readonly field: string;
  /** Every problem found, as `path: message`. */
  readonly problems: string[];
  /** The raw response body (parsed JSON when it was JSON, text otherwise). */
  readonly body: unknown;
  /** The HTTP method of the request (`GET`, `POST`...). */
  readonly method: string;
  /** The request URL, credentials redacted. */
  readonly url: string;

  constructor(init: { field: string; problems: string[]; body: unknown; method: string; url: string }) {
    super(`Unexpected response from ${init.method} ${init.url}: ${init.problems.join('; ')}`);
    this.field = init.field;
    this.problems = init.problems;
    this.body = init.body;
    this.method = init.method;
    this.url = init.url;
  }
}
