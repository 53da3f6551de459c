export { CloudClient, type CloudClientOptions, type SubmitWorkflowOptions } from './client.js';
export { CLOUD_DEFAULTS, type WatcherPolicy, type WatcherPolicyOptions } from './defaults.js';
export {
  InsufficientCreditsError,
  InvalidWorkflowError,
  JobFailedError,
  OutputDownloadError,
  SubmissionUnknownError,
  SubscriptionInactiveError,
  WatcherClosedError,
  WorkflowError,
  WorkflowValidationError,
  type WorkflowIssue,
} from './errors.js';
export { listOutputFiles, type OutputFileRef } from './outputs.js';
export type { RunWorkflowOptions, UploadSpec } from './run-workflow.js';
export { JOB_STATUS_MAP, mapJobStatus, type StatusMapping } from './status.js';
export type { UploadImageOptions, UploadMaskOptions } from './uploads.js';
export { validateWorkflow, type InputOptions, type InputSpec, type NodeDefinition, type ObjectInfo, type ValidateWorkflowOptions } from './validate-workflow.js';
export type {
  FileRef,
  JobErrorInfo,
  JobResult,
  JobStatus,
  JobStatusInfo,
  NodeErrorDetail,
  NodeErrors,
  NodeOutput,
  OutputFile,
  SubmitResult,
  UploadResult,
  Workflow,
  WorkflowNode,
} from './types.js';
