/**
 * The types that public signatures name, each on its own page so that every signature links to
 * it. **They are not importable by these names**: this module exists only in the reference.
 *
 * - Most are reached through a client's type namespace, under the same name:
 *   `CloudClient.JobSummary`, `RegistryClient.Node`, `ProxyClient.UpscaleParams`. Each client's
 *   options type is `<Client>.Options` (`CloudClientOptions` here), and `ProxyImageInput` is
 *   `ProxyClient.ImageInput`.
 * - The resources are the types of the clients' properties: `CloudClient['jobs']` is
 *   `JobsResource`, `RegistryClient['nodes']` is `NodesResource`.
 * - The others are parts of those types and are reached through them:
 *   `CloudClient.WatchEventMap['executed']` is `ExecutedData`,
 *   `NonNullable<CloudClient.WatcherPolicyOptions['poll']>` is `Partial<PollPolicy>`; the Bun
 *   adapter's `BunSocket` and `BunServer` are the parameters of `BunRelayHandler` in
 *   `graphcloud/server`.
 *
 * @module reference
 */
export type { CloudClientOptions } from '../src/cloud/client.js';
export type { FilesResource, GetFileOptions, UploadMaskOptions, UploadOptions } from '../src/cloud/files.js';
export type { JobsResource, JobWatchOptions, WatchOptions } from '../src/cloud/jobs.js';
export type { HoldPolicy, PollPolicy, SocketPolicy, WatcherPolicyOptions } from '../src/cloud/shared/defaults.js';
export type { WorkflowIssue } from '../src/cloud/shared/types.js';
export type { CancelResult, JobDetail, JobPage, JobQueue, JobRoutes, JobSummary, ListJobsParams, QueueItem } from '../src/cloud/shared/job-types.js';
export type { StatusMapping } from '../src/cloud/shared/status.js';
export type { FileRef, JobErrorInfo, JobStatus, JobStatusInfo, NodeErrorDetail, NodeErrors, NodeOutput, OutputFile, OutputFileRef, SubmitResult, UploadResult, WorkflowNode } from '../src/cloud/shared/types.js';
export type { InputOptions, InputSpec, NodeDefinition, ObjectInfo, ValidateWorkflowOptions, WorkflowFormat } from '../src/cloud/workflow/validate.js';
export type { NodeDefinitionsResource } from '../src/cloud/definitions.js';
export type { Classes, NodeArgs, ShapeOf } from '../src/cloud/workflow/builder-types.js';
export type { CostEstimate, CostLimit, CostRange, PricedNode, UnpricedNode } from '../src/cloud/shared/cost-types.js';
export type { EstimateCostOptions } from '../src/cloud/estimate-cost.js';
export type { UploadSpec } from '../src/cloud/run-workflow.js';
export type { RunWorkflowOptions } from '../src/cloud/run-workflow.js';
export type { OutputsSource, SaveOutputsOptions, SavedOutput } from '../src/cloud/save-outputs.js';
export type { SubmitJobOptions } from '../src/cloud/submit.js';
export type {
  ExecutedData,
  ExecutingData,
  ExecutionCachedData,
  ExecutionErrorData,
  ExecutionInterruptedData,
  ExecutionStartData,
  JobProgress,
  ExecutionSuccessData,
  NotificationData,
  PreviewData,
  ProgressData,
  ProgressStateData,
  StatusData,
  TextData,
  WatchEventMap,
  WatcherListeners,
  WatcherStats,
} from '../src/cloud/watch/events.js';
export type { JobWatcher } from '../src/cloud/watch/job-watcher.js';
export type { WebSocketConstructor, WebSocketLike } from '../src/cloud/watch/socket.js';
export type { AddressCandidate } from '../src/cloud/workflow/errors.js';
export type { ResolvedAddress } from '../src/cloud/workflow/addresses.js';
export type { WorkflowConversionCode, WorkflowNodeRef } from '../src/cloud/workflow/errors.js';
export type { ToApiWorkflowOptions, UiLinkArray, UiLinkObject, UiNode, UiNodeId, UiWorkflow } from '../src/cloud/workflow/types.js';
export type { ApiErrorInit } from '../src/core/api-errors.js';
export type { Clock } from '../src/core/wait.js';
export type { DurationRange } from '../src/proxy/enums.js';
export type { RelightAdvancedSettings, RelightParams, SkinEnhancerCreativeParams, SkinEnhancerFaithfulParams, StyleTransferParams, UpscaleParams } from '../src/proxy/image-params.js';
export type { ImageFile, ProxyImageInput } from '../src/proxy/inputs.js';
export type { ProxyClientOptions, StatusPath, SubmitTaskOptions, WaitForTaskOptions } from '../src/proxy/options.js';
export type { ImageTasks, TaskMethod, VideoTasks } from '../src/proxy/submit.js';
export type { ImageTaskKind, ImageTaskParams, TaskKind, TaskParams, VideoTaskKind, VideoTaskParams } from '../src/proxy/tasks.js';
export type { ImageTask, ImageTaskResult, TaskOf, TaskPhase, TaskRef, TaskResultOf, TaskStatus, VideoCreation, VideoTask, VideoTaskResult } from '../src/proxy/types.js';
export type { ExtendFields, ExtendParams, MultiframeImageSetting, MultiframeParams, ReferenceToVideoParams } from '../src/proxy/video-params.js';
export type { RegistryClientOptions } from '../src/registry/client.js';
export type { GraphNodesResource } from '../src/registry/graph-nodes.js';
export type { GetNodeOptions, NodesResource } from '../src/registry/nodes.js';
export type { PublishersResource } from '../src/registry/publishers.js';
export type {
  CreateTokenParams,
  CreatedToken,
  GRAPH_NODE_POLICIES,
  GraphNode,
  GraphNodeParams,
  GraphNodePolicy,
  ListNodesParams,
  ListVersionsParams,
  NODE_STATUSES,
  NODE_VERSION_STATUSES,
  Node,
  NodePage,
  NodeParams,
  NodeStatus,
  NodeVersion,
  NodeVersionStatus,
  NodeVersionsParams,
  PUBLISHER_ROLES,
  PUBLISHER_STATUSES,
  PersonalAccessToken,
  PublishVersionParams,
  PublishedVersionFields,
  Publisher,
  PublisherMember,
  PublisherParams,
  PublisherPermissions,
  PublisherRole,
  PublisherStatus,
  SearchNodesParams,
  VersionPage,
  VersionUpdateParams,
} from '../src/registry/types.js';
export type { VersionsResource } from '../src/registry/versions.js';
export type { BunServer, BunSocket, BunSocketData } from '../src/server/bun.js';
export type { RouteGroup, RoutePattern, RouteScope, UpstreamName } from '../src/server/routes.js';
export type { UpstreamState } from '../src/server/socket-upstream.js';
