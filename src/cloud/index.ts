// The cloud's public names (the main entry re-exports them).
export { CloudClient, type CloudClientOptions } from './client.js';
export { NodeDefinitionsResource } from './definitions.js';
export { FilesResource, type UploadMaskOptions, type UploadOptions } from './files.js';
export type { OutputsSource, SavedOutput, SaveOutputsOptions } from './save-outputs.js';
export { JobsResource, type JobWatchOptions, type WatchOptions } from './jobs.js';
export type { SubmitJobOptions } from './submit.js';
export type { EstimateCostOptions } from './estimate-cost.js';
export type { CostEstimate, CostLimit, CostRange, PricedNode, UnpricedNode } from './shared/cost-types.js';
export type { RunWorkflowOptions, UploadSpec } from './run-workflow.js';
export { CLOUD_DEFAULTS, type PollPolicy, type SocketPolicy, type WatcherPolicy, type WatcherPolicyOptions } from './shared/defaults.js';
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
} from './shared/errors.js';
export { listOutputFiles } from './shared/outputs.js';
export { JOB_STATUS_MAP, mapJobStatus, type StatusMapping } from './shared/status.js';
export { validateWorkflow, type InputOptions, type InputSpec, type NodeDefinition, type ObjectInfo, type ValidateWorkflowOptions } from './workflow/validate.js';
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
  OutputFileRef,
  RunCost,
  SubmitResult,
  UploadResult,
  Workflow,
  WorkflowIssue,
  WorkflowNode,
} from './shared/types.js';
export { JobWatcher } from './watch/job-watcher.js';
export type { WebSocketConstructor, WebSocketLike } from './watch/socket.js';
export type {
  ExecutedData,
  ExecutingData,
  ExecutionCachedData,
  ExecutionErrorData,
  ExecutionInterruptedData,
  ExecutionStartData,
  ExecutionSuccessData,
  JobProgress,
  NotificationData,
  PreviewData,
  ProgressData,
  ProgressStateData,
  StatusData,
  TextData,
  WatchEvent,
  WatchEventMap,
  WatcherListeners,
  WatcherStats,
} from './watch/events.js';
export {
  describeWorkflowFormat,
  isUiWorkflow,
  resolveAddress,
  setInputs,
  toApiWorkflow,
  WorkflowAddressError,
  WorkflowConversionError,
  type AddressCandidate,
  type ResolvedAddress,
  type ToApiWorkflowOptions,
  type UiWorkflow,
  type WorkflowConversionCode,
  type WorkflowFormat,
} from './workflow/index.js';
export type { CancelResult, JobDetail, JobPage, JobQueue, JobRoutes, JobSummary, ListJobsParams, QueueItem } from './shared/job-types.js';
