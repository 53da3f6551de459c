import { ApiError, type ApiErrorInit } from './api-error.js';

/** 400: the server rejected the request as malformed. */
export class BadRequestError extends ApiError { override name = 'BadRequestError'; }
/** 401: missing or bad credential. */
export class AuthenticationError extends ApiError { override name = 'AuthenticationError'; }
/** 402: no credits left; never retried. */
export class PaymentRequiredError extends ApiError { override name = 'PaymentRequiredError'; }
/** 403: authenticated but not allowed (for example not an owner of the publisher). */
export class PermissionDeniedError extends ApiError { override name = 'PermissionDeniedError'; }
/** 404: no such resource. */
export class NotFoundError extends ApiError { override name = 'NotFoundError'; }
/** 409: conflict (duplicate id, account problem). */
export class ConflictError extends ApiError { override name = 'ConflictError'; }
/** 422: the request was understood but its content is invalid. */
export class UnprocessableEntityError extends ApiError { override name = 'UnprocessableEntityError'; }
/** 429: rate limited; `retryAfterMs` holds the server's `Retry-After`. */
export class RateLimitError extends ApiError { override name = 'RateLimitError'; }
/** 5xx: the server failed. */
export class InternalServerError extends ApiError { override name = 'InternalServerError'; }

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

/** Builds the `ApiError` subclass of a status family. */
export function createApiError(init: ApiErrorInit): ApiError {
  const ErrorClass = BY_STATUS[init.status] ?? (init.status >= 500 ? InternalServerError : ApiError);
  return new ErrorClass(init);
}
