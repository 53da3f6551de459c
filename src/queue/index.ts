/**
 * Runs that outlive a process, on BullMQ and Redis: `RunQueue` (add, get, list, cancel, the one
 * concurrency limit) and `RunWorker` (any number, on any machines, or one per local runtime).
 * `bullmq` and `ioredis` are optional peer dependencies: install them to use this entry; the main
 * entry never loads them. See docs/queue.md.
 *
 * @module graphcloud/queue
 */
export { RunQueue } from './run-queue.js';
export { RunWorker } from './run-worker.js';
export { Run } from './run-handle.js';
export { RunFailedError, RunUnknownError } from './errors.js';
export { QUEUE_DEFAULTS } from './options.js';
export type { RunCost } from '../cloud/shared/types.js';
export type {
  AddRunOptions,
  Budget,
  BudgetStatus,
  CancelRunResult,
  CloseWorkerOptions,
  ListRunsOptions,
  PauseReason,
  QueueStatus,
  RedisConnection,
  RunErrorInfo,
  RunEvent,
  RunInfo,
  RunPage,
  RunProgress,
  RunQueueOptions,
  RunResult,
  RunSpec,
  RunState,
  RunWorkerOptions,
  TaskRunSpec,
  WorkflowRunSpec,
} from './types.js';
