import { GraphcloudError } from './graphcloud-error.js';

/** What the core knows about a failed HTTP exchange. */
export interface ApiErrorInit {
  status: number;
  method: string;
  /** Already redacted. */
  url: string;
  /** Parsed JSON body, the text of a non-JSON body, or `undefined` when empty. */
  body: unknown;
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
  override name = 'ApiError';
  readonly status: number;
  readonly code: string | undefined;
  readonly details: unknown;
  readonly body: unknown;
  readonly method: string;
  readonly url: string;
  readonly requestId: string | undefined;
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

// An HTML error page (a gateway's 502): its scripts and styles are not text, its entities are.
function htmlToText(body: string): string {
  return body
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}
