export { RegistryClient, type RegistryClientOptions } from './registry/index.js';
export type {
  GetNodeOptions,
  GraphNode,
  GraphNodeParams,
  GraphNodePolicy,
  ListVersionsParams,
  Node,
  NodeParams,
  NodeStatus,
  NodeVersion,
  NodeVersionStatus,
  Publisher,
  PublisherMember,
  PublisherParams,
  PublisherRole,
  PublisherStatus,
  VersionPage,
  VersionUpdateParams,
} from './registry/index.js';
export { GRAPH_NODE_POLICIES, NODE_STATUSES, NODE_VERSION_STATUSES, PUBLISHER_ROLES, PUBLISHER_STATUSES } from './registry/index.js';
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
