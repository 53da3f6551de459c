import { holdsInUrl } from './scrub-forms.js';

/**
 * The codes of the relay's own refusals (`{error: code, message}` bodies), so an app can tell them
 * from the cloud's answers.
 *
 * @example
 * ```ts
 * const code: RelayErrorCode = 'route_not_allowed';
 * ```
 */
export type RelayErrorCode =
  | 'not_found'
  | 'bad_path'
  | 'route_not_allowed'
  | 'origin_not_allowed'
  | 'unauthorized'
  | 'authorize_failed'
  | 'job_token_required'
  | 'job_token_invalid'
  | 'task_token_required'
  | 'task_token_invalid'
  | 'file_not_in_job'
  | 'bad_request'
  | 'body_too_large'
  | 'body_timeout'
  | 'body_too_deep'
  | 'unsupported_media_type'
  | 'submission_refused'
  | 'hook_failed'
  | 'upgrade_required'
  | 'upstream_timeout'
  | 'upstream_unreachable'
  | 'upstream_refused'
  | 'unscrubbable_answer'
  | 'socket_unavailable'
  | 'relay_closed'
  | 'relay_failed';

/**
 * A refusal of the relay itself: JSON `{error, message}`, the shape the SDK reads its errors from
 * (docs/wire-protocol.md#error-bodies), never cached.
 *
 * @example
 * ```ts
 * return refuse(403, 'route_not_allowed', 'The relay does not forward GET /api/jobs');
 * ```
 */
export function refuse(status: number, code: RelayErrorCode, message: string, headers?: Record<string, string>): Response {
  return jsonAnswer(status, { error: code, message }, headers);
}

/**
 * A JSON answer of the relay, never cached.
 *
 * @example
 * ```ts
 * return jsonAnswer(200, { url });
 * ```
 */
export function jsonAnswer(status: number, body: unknown, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers } });
}

// Answer headers passed on to the browser; everything else (set-cookie, credentials, hop-by-hop,
// the upstream's CORS and server details) stays on the server.
const PASSED = ['content-type', 'content-disposition', 'cache-control', 'etag', 'last-modified', 'expires', 'retry-after', 'x-request-id', 'request-id'];

/**
 * The headers of an upstream answer that reach the browser: an allow-list, each value scrubbed of
 * the credentials. `content-length` is kept only when the body is passed on byte for byte (fetch
 * has decoded a compressed body, and a scrubbed one may change length).
 *
 * @example
 * ```ts
 * new Response(body, { status, headers: answerHeaders(upstream.headers, secrets, { keepLength: true }) });
 * ```
 */
export function answerHeaders(upstream: Headers, secrets: readonly string[], options: { keepLength: boolean }): Headers {
  const headers = new Headers({ 'x-content-type-options': 'nosniff' });
  for (const name of PASSED) {
    const value = upstream.get(name);
    if (value === null) continue;
    const scrubbed = scrubText(value, secrets);
    // A percent-escaped credential (`filename*=UTF-8''%73k…`) is decoded by the browser: dropped.
    if (!holdsInUrl(scrubbed, secrets)) headers.set(name, scrubbed);
  }
  const length = upstream.get('content-length');
  if (options.keepLength && length !== null && !upstream.has('content-encoding')) headers.set('content-length', length);
  return headers;
}

/**
 * True for the answers whose body is text (JSON, text/*, HTML, XML and `+xml` such as SVG,
 * JavaScript, or no type): decoded, scrubbed and re-encoded on the way out.
 *
 * @example
 * ```ts
 * isTextual('application/json; charset=utf-8'); // true
 * ```
 */
export function isTextual(contentType: string | null): boolean {
  if (contentType === null) return true;
  return /^(text\/|[\w.+-]+\/([\w.+-]*\+)?(json|xml)\b|application\/(javascript|ecmascript|x-javascript|x-www-form-urlencoded)\b)/i.test(contentType.trim());
}

const REDACTED = '[REDACTED]';

/**
 * Replaces every credential in a text.
 *
 * @example
 * ```ts
 * scrubText('{"key":"sk-123..."}', ['sk-123...']); // '{"key":"[REDACTED]"}'
 * ```
 */
export function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * True when `bytes` hold one of the byte patterns (a credential's UTF-8 or UTF-16 spelling): a
 * binary socket frame that does is not passed on.
 *
 * @example
 * ```ts
 * if (holdsSecret(frame, encodedSecrets)) return;
 * ```
 */
export function holdsSecret(bytes: Uint8Array, secrets: readonly Uint8Array[]): boolean {
  for (const secret of secrets) {
    const first = secret[0];
    if (first === undefined || secret.length > bytes.length) continue;
    for (let at = bytes.indexOf(first); at !== -1 && at + secret.length <= bytes.length; at = bytes.indexOf(first, at + 1)) {
      let same = true;
      for (let i = 1; i < secret.length; i++) {
        if (bytes[at + i] !== secret[i]) {
          same = false;
          break;
        }
      }
      if (same) return true;
    }
  }
  return false;
}
