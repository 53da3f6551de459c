// The SDK's error classes (the HTTP status family classes are in api-errors.ts): every one a
// GraphcloudError, readable by its `name` in logs and JSON.

/**
 * Paid work the SDK submitted and then stopped following: a cloud job (`kind: 'job'`) or a media
 * task (its task kind and id). Wait for it again with `cloud.jobs.watch(promptId)` or
 * `proxy.waitForTask(submitted)`.
 *
 * @example
 * ```ts
 * const lost: SubmittedWork = { kind: 'job', promptId: '7c1f…' };
 * ```
 */
export type SubmittedWork =
  | {
      /** A cloud job. */
      kind: 'job';
      /** The job's id (`prompt_id`): `cloud.jobs.watch(promptId)` follows it again. */
      promptId: string;
    }
  | {
      /** The media task's kind (`'upscale'`, `'referenceToVideo'`...). */
      kind: string;
      /** The task's id (`task_id`): `proxy.waitForTask({ kind, taskId })` follows it again. */
      taskId: string;
    };

/**
 * Base class of every error the SDK throws (aborts reject with the caller's `signal.reason` instead).
 *
 * @example
 * ```ts
 * try { await registry.nodes.get('comfy-x'); }
 * catch (error) { if (error instanceof GraphcloudError) console.error(error.message); }
 * ```
 */
export class GraphcloudError extends Error {
  /** `'GraphcloudError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`); each subclass has its own. */
  override name = 'GraphcloudError';
  /**
   * Set when the error ended a wait for work already submitted (and paid for): the job or task
   * goes on, and this names it so it is not lost.
   */
  declare submitted?: SubmittedWork | undefined;

  /** A plain, credential-free description used by `JSON.stringify(error)`. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (key !== 'cause') out[key] = value;
    }
    return out;
  }
}

/**
 * Marks an error as ending the wait for `work`: an SDK error gets `submitted` (once); anything
 * else (the caller's abort reason) is returned unchanged.
 *
 * @example
 * ```ts
 * catch (error) { throw withSubmitted(error, { kind: 'job', promptId }); }
 * ```
 */
export function withSubmitted(error: unknown, work: SubmittedWork): unknown {
  if (error instanceof GraphcloudError && error.submitted === undefined) error.submitted = work;
  return error;
}

/**
 * The client was closed (`close()` or `await using`): work in flight stopped, and later calls
 * fail with this error. Jobs and tasks already submitted go on running on the server.
 *
 * @example
 * ```ts
 * await registry.close();
 * await registry.nodes.get('x').catch((e) => e instanceof ClientClosedError); // true
 * ```
 */
export class ClientClosedError extends GraphcloudError {
  /** `'ClientClosedError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'ClientClosedError';

  constructor(client: string) {
    super(`The ${client} was closed; create a new client to send more requests`);
  }
}

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
  readonly timeoutMs!: number;
  /** What timed out, e.g. `GET https://…/nodes/x` or `task 123`. */
  readonly operation!: string;

  constructor(operation: string, timeoutMs: number, cause?: unknown) {
    super(`${operation} timed out after ${timeoutMs} ms${cause instanceof Error ? ` (last error: ${cause.message})` : ''}`, cause === undefined ? undefined : { cause });
    // Sets each field declared above (`!`: assigned here, not by an initializer), in their order.
    Object.assign(this, { timeoutMs, operation });
  }
}

/**
 * One rule an argument broke.
 * @example
 * ```ts
 * catch (error) { if (error instanceof ValidationError) for (const i of error.issues) console.log(i.path, i.rule, i.received); }
 * ```
 */
export interface ValidationIssue {
  /** Dotted path of the field, e.g. `advanced_settings.contrast` or `image_settings[1].key_image`. */
  path: string;
  /** The rule that failed, e.g. `integer 0..100`, `one of: 2x, 4x`, `required`. */
  rule: string;
  /** The value received (long strings are shortened). */
  received: unknown;
}

/**
 * Bad arguments caught before any request was sent: nothing was sent, nothing was paid.
 * Lists every broken rule at once.
 *
 * @example
 * ```ts
 * try { await registry.nodes.review('my-node', 6); }
 * catch (error) { if (error instanceof ValidationError) console.log(error.issues); }
 * ```
 */
export class ValidationError extends GraphcloudError {
  /** `'ValidationError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`); subclasses have their own. */
  override name = 'ValidationError';
  /** Every rule the arguments broke, at least one; long string values are shortened in `received`. */
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[], context?: string) {
    const lines = issues.map((i) => `  - ${i.path}: expected ${i.rule}, received ${describe(i.received)}`);
    super(`${context ? `${context}: ` : ''}${issues.length} invalid argument${issues.length === 1 ? '' : 's'}; nothing was sent\n${lines.join('\n')}`);
    this.issues = issues.map((i) => ({ ...i, received: shorten(i.received) }));
  }
}

function shorten(value: unknown): unknown {
  return typeof value === 'string' && value.length > 80 ? `${value.slice(0, 40)}… (${value.length} chars)` : value;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(shorten(value));
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return typeof value;
  }
}

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
  readonly field!: string;
  /** Every problem found, as `path: message`. */
  readonly problems!: string[];
  /** The raw response body (parsed JSON when it was JSON, text otherwise). */
  readonly body: unknown;
  /** The HTTP method of the request (`GET`, `POST`...). */
  readonly method!: string;
  /** The request URL, credentials redacted. */
  readonly url!: string;

  constructor(init: { field: string; problems: string[]; body: unknown; method: string; url: string }) {
    const { field, problems, body, method, url } = init;
    super(`Unexpected response from ${method} ${url}: ${problems.join('; ')}`);
    // Sets each field declared above (`!`: assigned here, not by an initializer), in their order.
    Object.assign(this, { field, problems, body, method, url });
  }
}

// The code the SDK gives a request fetch refused because of its port: Node's fetch (undici)
// blocks the Fetch standard's "bad ports" (1, 6000, 5060...) with only "bad port", no code.
const BLOCKED_PORT = 'ERR_BLOCKED_PORT';

// Error codes that mean the request never left this machine: the connection was refused or never
// made (DNS, routing, the TLS handshake). Any other failure may have happened after the request
// reached the server.
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  BLOCKED_PORT,
]);

/**
 * The `code` of an error or of one of its causes (`ECONNREFUSED`...), when the runtime names one;
 * `ERR_BLOCKED_PORT` for fetch's "bad port", which has none.
 *
 * @example
 * ```ts
 * errorCode(new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) })); // 'ECONNREFUSED'
 * ```
 */
export function errorCode(error: unknown): string | undefined {
  let current = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    if ((current as { message?: unknown }).message === 'bad port') return BLOCKED_PORT;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The server could not be reached, or the connection broke before a whole response arrived.
 * `notSent` is true when the request certainly never left this machine (a refused connection, an
 * unknown host): sending it again is safe. Otherwise, for a POST, the server may have accepted
 * it: the SDK never sends a POST again (a second paid job).
 *
 * @example
 * ```ts
 * if (error instanceof ConnectionError && error.notSent) await submitAgain();
 * ```
 */
export class ConnectionError extends GraphcloudError {
  /** `'ConnectionError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`); subclasses have their own. */
  override name = 'ConnectionError';
  /** The HTTP method of the request (`GET`, `POST`...): for a `POST` that was not `notSent`, the server may have accepted it. */
  readonly method!: string;
  /** The request URL, credentials redacted. */
  readonly url!: string;
  /** The status, when the headers arrived and the body then broke; `undefined` when nothing arrived. */
  readonly status!: number | undefined;
  /**
   * The runtime's error code (`ECONNREFUSED`, `ENOTFOUND`...), when it gave one; `ERR_BLOCKED_PORT`
   * when fetch refused the URL's port (a port the Fetch standard blocks, such as 6000): sending
   * again cannot help, so it is not retried.
   */
  readonly code!: string | undefined;
  /** True when the request certainly never reached a server: safe to send again. */
  readonly notSent!: boolean;

  constructor(method: string, url: string, cause?: unknown, status?: number) {
    const code = status === undefined ? errorCode(cause) : undefined;
    const notSent = code !== undefined && NOT_SENT_CODES.has(code);
    const reason = cause instanceof Error ? `: ${cause.message}` : '';
    let what: string;
    if (status) what = `answered ${status}, then the connection broke while the body was read`;
    else if (code === BLOCKED_PORT) what = 'was not sent: fetch refuses to connect to this port (the Fetch standard blocks it); serve the API on another port';
    else if (notSent) what = `could not connect${code ? ` (${code})` : ''}; nothing was sent, so it is safe to send again`;
    else what = 'failed before a response arrived';
    // For a POST the server may have accepted the request: say so, since it is not sent again.
    const post = method === 'POST' && !notSent ? ' (the server may have accepted it; it was not sent again)' : '';
    super(`${method} ${url} ${what}${post}${reason}`, { cause });
    // Sets each field declared above (`!`: assigned here, not by an initializer), in their order.
    Object.assign(this, { method, url, status, code, notSent });
  }
}
