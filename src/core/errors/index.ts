export { GraphcloudError, ClientClosedError, withSubmitted, type SubmittedWork } from './graphcloud-error.js';
export { ApiError, readErrorBody, type ApiErrorInit } from './api-error.js';
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createApiError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from './status-errors.js';
export { ConnectionError } from './connection-error.js';
export { TimeoutError } from './timeout-error.js';
export { ResponseValidationError } from './response-validation-error.js';
export { ValidationError, type ValidationIssue } from './validation-error.js';
