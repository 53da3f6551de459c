import { ApiError, type ApiErrorInit } from './api-error.js';

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
