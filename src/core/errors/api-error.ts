import { GraphcloudError } from './graphcloud-error.js';

/** What the core knows about a failed HTTP exchange. */
export interface ApiErrorInit {
  /** The HTTP status of the answer (400 to 599). */
  status: number;
  /** The HTTP method of the request (`GET`, `POST`...). */
  method: string;
  /** Already redacted. */
  url: string;
  /** Parsed JSON body, the text of a non-JSON body, or `undefined` when empty. */
  body: unknown;
  /** The request id the server sent back (`x-request-id` and similar headers), when it sent one. */
  requestId?: string | undefined;
  /** `Retry-After` in milliseconds, when the server sent one. */
  retryAfterMs?: number | undefined;
}

/**
 * The server answered with a non-success status. Subclasses name the status family.
 * `code` is the body's `error` when it is a string; `details` the body's `details` list.
 *
 * @example
 * ```ts
 * try { await registry.nodes.get('missing'); }
 * catch (error) {
 *   if (error instanceof NotFoundError) console.log(error.status, error.requestId);
 * }
 * ```
 */
export class ApiError extends GraphcloudError {
  /** `'ApiError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`); each subclass has its own. */
  override name = 'ApiError';
  /** The HTTP status of the answer (400 to 599). */
  readonly status: number;
  /**
   * A machine-readable error code, when the body has one: its `error` when that is a non-empty
   * string, or `error.type` (a rejected workflow's `prompt_outputs_failed_validation`...). See
   * docs/wire-protocol.md#error-bodies.
   */
  readonly code: string | undefined;
  /** The body's `details` (or `error.details`) as the server sent it, often a list of strings; `undefined` when absent. */
  readonly details: unknown;
  /** The whole answer body: parsed JSON, the text of a non-JSON body, or `undefined` when it was empty. Credentials the request carried are scrubbed from it. */
  readonly body: unknown;
  /** The HTTP method of the request (`GET`, `POST`...). */
  readonly method: string;
  /** The request URL, credentials redacted. */
  readonly url: string;
  /** The request id the server sent back (`x-request-id`, `request-id`, `x-amzn-requestid` or `cf-ray`): quote it to the service's support. `undefined` when none came. */
  readonly requestId: string | undefined;
  /** The server's `Retry-After`, in milliseconds, when it sent one (mostly with 429 and 503). */
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit) {
    const parsed = readErrorBody(init.body);
    super(`${init.status} ${parsed.message ?? 'request failed'} (${init.method} ${init.url}${init.requestId ? `, request id ${init.requestId}` : ''})`);
    this.status = init.status;
    this.code = parsed.code;
    this.details = parsed.details;
    this.body = init.body;
    this.method = init.method;
    this.url = init.url;
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
  }
}

const EXCERPT = 200;

/** Reads every error body shape of the wire: `{error, message}`, `{message}`, `{message, details}`, `{error: {type, message}}`, empty, or text. */
export function readErrorBody(body: unknown): { message?: string; code?: string; details?: unknown } {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body === 'string') {
    const text = htmlToText(body);
    return { message: text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text };
  }
  if (typeof body !== 'object') return { message: String(body) };
  const record = body as Record<string, unknown>;
  const error = record.error;
  const out: { message?: string; code?: string; details?: unknown } = {};
  if (typeof error === 'string' && error !== '') out.code = error;
  if (error && typeof error === 'object') {
    const inner = error as Record<string, unknown>;
    if (typeof inner.type === 'string') out.code = inner.type;
    if (typeof inner.message === 'string') out.message = inner.message;
    if (inner.details !== undefined) out.details = inner.details;
  }
  if (typeof record.message === 'string' && record.message !== '') out.message = record.message;
  else if (!out.message && typeof error === 'string' && error !== '') out.message = error;
  if (record.details !== undefined) out.details = record.details;
  return out;
}

const ENTITIES: Readonly<Record<string, string>> = { '&nbsp;': ' ', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };

// An HTML error page (a gateway's 502): its scripts and styles are not text, its entities are.
// One pass decodes the entities: `&amp;lt;` stays the text `&lt;`.
function htmlToText(body: string): string {
  return body
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(?:nbsp|lt|gt|quot|#39|amp);/g, (entity) => ENTITIES[entity] ?? entity)
    .replace(/\s+/g, ' ')
    .trim();
}
