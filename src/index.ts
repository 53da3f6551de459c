// The public surface: each area's index is curated; the core exports only errors and types.
export * from './registry/index.js';
export * from './proxy/index.js';
export * from './cloud/index.js';
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  GraphcloudError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
  UnprocessableEntityError,
  ValidationError,
} from './core/index.js';
export type { ClientOptions, Credential, FileInput, RequestEvent, RequestOptions, ResponseEvent, RetryPolicy, ValidationIssue } from './core/index.js';
export { DEFAULTS } from './defaults.js';
