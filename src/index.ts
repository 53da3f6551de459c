/**
 * The SDK: `CloudClient`, `RegistryClient` and `ProxyClient`, their errors, `DEFAULTS` and the
 * workflow helpers. Each client's types live under its name (`CloudClient.RunWorkflowOptions`).
 *
 * @module graphcloud
 */

// The public surface, curated: what the README shows and nothing internal. Values and errors are
// named here; each client's types live under its name (`CloudClient.RunWorkflowOptions`,
// `RegistryClient.Node`, `ProxyClient.UpscaleParams`), so this list stays short.

// Clients
export { CloudClient } from './cloud/client.js';
export { RegistryClient } from './registry/client.js';
export { ProxyClient } from './proxy/client.js';

// Helpers and constants
export { DEFAULTS } from './defaults.js';
export { PROXY_ENUMS } from './proxy/enums.js';
export { validateWorkflow } from './cloud/workflow/validate.js';
export { listOutputFiles } from './cloud/shared/outputs.js';
export { isUiWorkflow, resolveAddress, setInputs } from './cloud/workflow/index.js';
export { workflow } from './cloud/workflow/builder.js';
export type { Link, NodeHandle, NodeOptions, NodeRef, NodeShape, Output, WorkflowBuilder, WorkflowBuilderBase, WorkflowBuilderOptions, WorkflowInput } from './cloud/workflow/builder-types.js';
// The converter loads on first use, in this entry as in CloudClient (9.9 KB gzip kept out of a page's first load).
export { toApiWorkflow } from './cloud/workflow/to-api-lazy.js';

// Errors: every error the SDK throws is a GraphcloudError
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ClientClosedError,
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
export {
  BudgetExceededError,
  InsufficientCreditsError,
  InvalidWorkflowError,
  JobFailedError,
  OutputDownloadError,
  SubmissionUnknownError,
  SubscriptionInactiveError,
  WatcherClosedError,
  WorkflowError,
  WorkflowValidationError,
} from './cloud/shared/errors.js';
export { WorkflowAddressError, WorkflowConversionError } from './cloud/workflow/index.js';
export { TaskFailedError } from './proxy/errors.js';
export { PackageUploadError } from './registry/errors.js';

// Types shared by every client, and the cloud's three everyday types
export type { Backoff, ClientOptions, Credential, FileInput, RequestEvent, RequestOptions, ResponseEvent, RetryPolicy, SubmittedWork, ValidationIssue, WaitOptions } from './core/index.js';
export type { JobResult, NodeOutput, RunCost, Workflow } from './cloud/shared/types.js';
export type { RunResult } from './cloud/run-workflow.js';
export type { WatchEvent } from './cloud/watch/events.js';
