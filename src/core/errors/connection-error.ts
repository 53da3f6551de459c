import { GraphcloudError } from './graphcloud-error.js';

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
  readonly method: string;
  /** The request URL, credentials redacted. */
  readonly url: string;
  /** The status, when the headers arrived and the body then broke; `undefined` when nothing arrived. */
  readonly status: number | undefined;
  /**
   * The runtime's error code (`ECONNREFUSED`, `ENOTFOUND`...), when it gave one; `ERR_BLOCKED_PORT`
   * when fetch refused the URL's port (a port the Fetch standard blocks, such as 6000): sending
   * again cannot help, so it is not retried.
   */
  readonly code: string | undefined;
  /** True when the request certainly never reached a server: safe to send again. */
  readonly notSent: boolean;

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
    this.method = method;
    this.url = url;
    this.status = status;
    this.code = code;
    this.notSent = notSent;
  }
}
