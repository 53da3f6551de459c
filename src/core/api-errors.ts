import { GraphcloudError } from './errors.js';

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
  readonly status!: number;
  /**
   * A machine-readable error code, when the body has one: its `error` when that is a non-empty
   * string, or `error.type` (a rejected workflow's `prompt_outputs_failed_validation`...). See
   * docs/wire-protocol.md#error-bodies.
   */
  readonly code!: string | undefined;
  /** The body's `details` (or `error.details`) as the server sent it, often a list of strings; `undefined` when absent. */
  readonly details!: unknown;
  /** The whole answer body: parsed JSON, the text of a non-JSON body, or `undefined` when it was empty. Credentials the request carried are scrubbed from it. */
  readonly body!: unknown;
  /** The HTTP method of the request (`GET`, `POST`...). */
  readonly method!: string;
  /** The request URL, credentials redacted. */
  readonly url!: string;
  /** The request id the server sent back (`x-request-id`, `request-id`, `x-amzn-requestid` or `cf-ray`): quote it to the service's support. `undefined` when none came. */
  readonly requestId!: string | undefined;
  /** The server's `Retry-After`, in milliseconds, when it sent one (mostly with 429 and 503). */
  readonly retryAfterMs!: number | undefined;

  constructor(init: ApiErrorInit) {
    const { message, code, details } = readErrorBody(init.body);
    const { status, body, method, url, requestId, retryAfterMs } = init;
    super(`${status} ${message ?? 'request failed'} (${method} ${url}${requestId ? `, request id ${requestId}` : ''})`);
    // Sets each field declared above (`!`: assigned here, not by an initializer), in their order.
    Object.assign(this, { status, code, details, body, method, url, requestId, retryAfterMs });
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
  // `error` is a code (a non-empty string, also the message when there is no other) or an object.
  const code = typeof record.error === 'string' && record.error !== '' ? record.error : undefined;
  const inner = record.error && typeof record.error === 'object' ? (record.error as Record<string, unknown>) : {};
  const innerMessage = typeof inner.message === 'string' ? inner.message : code;
  return {
    message: typeof record.message === 'string' && record.message !== '' ? record.message : innerMessage,
    code: typeof inner.type === 'string' ? inner.type : code,
    details: record.details !== undefined ? record.details : inner.details,
  };
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

/**
 * 400: the server rejected the request as malformed.
 * @example
 * ```ts
 * if (error instanceof BadRequestError) console.log(error.code, error.details);
 * ```
 */
export class BadRequestError extends ApiError {
  /** `'BadRequestError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'BadRequestError';
}
/**
 * 401: missing or bad credential.
 * @example
 * ```ts
 * if (error instanceof AuthenticationError) await refreshToken();
 * ```
 */
export class AuthenticationError extends ApiError {
  /** `'AuthenticationError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'AuthenticationError';
}
/**
 * 402: no credits left; never retried.
 * @example
 * ```ts
 * if (error instanceof PaymentRequiredError) notifyBilling(error.requestId);
 * ```
 */
export class PaymentRequiredError extends ApiError {
  /** `'PaymentRequiredError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'PaymentRequiredError';
}
/**
 * 403: authenticated but not allowed (for example not an owner of the publisher).
 * @example
 * ```ts
 * if (error instanceof PermissionDeniedError) console.log('ask an owner:', error.message);
 * ```
 */
export class PermissionDeniedError extends ApiError {
  /** `'PermissionDeniedError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'PermissionDeniedError';
}
/**
 * 404: no such resource.
 * @example
 * ```ts
 * const node = await registry.nodes.get(id).catch((e) => (e instanceof NotFoundError ? undefined : Promise.reject(e)));
 * ```
 */
export class NotFoundError extends ApiError {
  /** `'NotFoundError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'NotFoundError';
}
/**
 * 409: conflict (duplicate id, account problem).
 * @example
 * ```ts
 * if (error instanceof ConflictError) console.log(error.body);
 * ```
 */
export class ConflictError extends ApiError {
  /** `'ConflictError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'ConflictError';
}
/**
 * 422: the request was understood but its content is invalid.
 * @example
 * ```ts
 * if (error instanceof UnprocessableEntityError) console.log(error.details);
 * ```
 */
export class UnprocessableEntityError extends ApiError {
  /** `'UnprocessableEntityError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'UnprocessableEntityError';
}
/**
 * 429: rate limited; `retryAfterMs` holds the server's `Retry-After`.
 * @example
 * ```ts
 * if (error instanceof RateLimitError) await sleep(error.retryAfterMs ?? 1000);
 * ```
 */
export class RateLimitError extends ApiError {
  /** `'RateLimitError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'RateLimitError';
}
/**
 * 5xx: the server failed (idempotent calls were already retried).
 * @example
 * ```ts
 * if (error instanceof InternalServerError) console.log(error.status, error.requestId);
 * ```
 */
export class InternalServerError extends ApiError {
  /** `'InternalServerError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'InternalServerError';
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/**
 * Builds the `ApiError` subclass of a status family.
 * @example
 * ```ts
 * createApiError({ status: 404, method: 'GET', url, body: undefined }) instanceof NotFoundError; // true
 * ```
 */
export function createApiError(init: ApiErrorInit): ApiError {
  const ErrorClass = BY_STATUS[init.status] ?? (init.status >= 500 ? InternalServerError : ApiError);
  return new ErrorClass(init);
}
