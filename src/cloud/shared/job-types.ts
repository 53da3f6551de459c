import type { FileRef, JobErrorInfo, JobStatus, NodeOutput, Workflow } from './types.js';

/**
 * One job as `cloud.jobs.list()` and `listAll()` give it. Times are milliseconds since the epoch
 * whatever the server wrote (the cloud writes seconds, a local runtime milliseconds).
 *
 * @example
 * ```ts
 * for await (const job of cloud.jobs.listAll({ status: 'failed' })) console.log(job.promptId, job.error?.message);
 * ```
 */
export interface JobSummary {
  /** The job's id (`prompt_id`). */
  promptId: string;
  /** The documented value (raw server states are mapped, as by `getStatus()`). */
  status: JobStatus;
  /** The value the server sent. */
  raw: string;
  /** When the job was submitted, in ms since the epoch. */
  createdAt: number | undefined;
  /** When it started running, in ms since the epoch. */
  startedAt: number | undefined;
  /** When it ended, in ms since the epoch. */
  endedAt: number | undefined;
  /** `endedAt - startedAt`, when both are known. */
  durationMs: number | undefined;
  /** The queue number the server gave it (`priority`). */
  number: number | undefined;
  /** Why it failed. */
  error: JobErrorInfo | undefined;
  /** How many output files it made. */
  outputsCount: number | undefined;
  /** One of its output files, for a thumbnail. */
  preview: FileRef | undefined;
  /** The id of the saved workflow the job was run from (`workflow_id`), when the server records one. */
  workflowId: string | undefined;
}

/**
 * One job with its outputs and workflow (`cloud.jobs.get()`).
 *
 * @example
 * ```ts
 * const job = await cloud.jobs.get(promptId);
 * if (job?.status === 'completed') await cloud.files.saveOutputs(job, './out');
 * ```
 */
export interface JobDetail extends JobSummary {
  /** Outputs by node id, as the server recorded them. */
  outputs: Record<string, NodeOutput>;
  /** The API-format workflow it ran, when the server returned it. */
  workflow: Workflow | undefined;
  /**
   * The `extra_data` it was submitted with (`client_id`, what `extraData` added...), when the
   * server returned it; partner credentials (`api_key_platform_org`, `auth_token_platform_org`)
   * are left out.
   */
  extraData: Record<string, unknown> | undefined;
}

/**
 * One page of `cloud.jobs.list()`.
 *
 * @example
 * ```ts
 * const { jobs, hasMore, total } = await cloud.jobs.list({ limit: 20 });
 * ```
 */
export interface JobPage {
  /** The jobs of this page, in the order asked (`sortBy`, `sortOrder`). */
  jobs: JobSummary[];
  /** How many jobs come before this page: the server's `pagination.offset`, else the one asked. */
  offset: number;
  /** The page size the server applied, when it says (the cloud's default is 100). */
  limit: number | undefined;
  /** Jobs matching the filter across every page, when the server says it. */
  total: number | undefined;
  /** More jobs follow this page. */
  hasMore: boolean;
}

/**
 * Filters, order and paging of `cloud.jobs.list()` and `listAll()`; the SDK writes each
 * runtime's own parameter names.
 *
 * @example
 * ```ts
 * cloud.jobs.listAll({ status: ['pending', 'in_progress'], sortBy: 'createdAt', sortOrder: 'asc' });
 * ```
 */
export interface ListJobsParams {
  /** Only jobs with this status, or one of these. */
  status?: JobStatus | readonly JobStatus[] | undefined;
  /**
   * `createdAt` (the cloud's `create_time`, a local runtime's `created_at`) or `executionTime`
   * (`execution_time`, `execution_duration`).
   * @default 'createdAt'
   */
  sortBy?: 'createdAt' | 'executionTime' | undefined;
  /** @default 'desc' (newest first) */
  sortOrder?: 'asc' | 'desc' | undefined;
  /** Jobs to skip. @default 0 */
  offset?: number | undefined;
  /**
   * Jobs per page, 1 to 1000 (`listAll()` fetches pages of this size).
   * @default 100
   */
  limit?: number | undefined;
  /** Only jobs with outputs of this kind (the cloud only; refused on a local runtime). */
  outputType?: 'image' | 'video' | 'audio' | undefined;
}

/**
 * A job in the queue (`cloud.jobs.getQueue()`).
 *
 * @example
 * ```ts
 * const { pending } = await cloud.jobs.getQueue();
 * const mine = pending.find((item) => item.promptId === promptId);
 * if (mine) console.log(`${mine.position - 1} jobs before yours`);
 * ```
 */
export interface QueueItem {
  /** The job's id. */
  promptId: string;
  /** The server's queue number: pending jobs run in this order. */
  number: number;
  /** `0` for a running job; `1` for the pending job that runs next, `2` after it... */
  position: number;
  /** `in_progress` for a running job (in `running`), `pending` for a waiting one (in `pending`). */
  status: 'pending' | 'in_progress';
  /** The API-format workflow, when the server listed it. */
  workflow: Workflow | undefined;
  /** The output nodes that will run, when the server listed them. */
  outputNodes: string[] | undefined;
}

/**
 * The queue as the caller sees it (the cloud lists only your own jobs).
 *
 * @example
 * ```ts
 * const { running, pending } = await cloud.jobs.getQueue();
 * ```
 */
export interface JobQueue {
  /** The jobs running now (usually one per worker). */
  running: QueueItem[];
  /** In the order they will run. */
  pending: QueueItem[];
}

/**
 * What `cloud.jobs.cancel()` did.
 *
 * - `via: 'cancel'`: the server's cancel route stopped or dequeued the job;
 * - `via: 'queue'`: the job was pending and was removed from the queue (it never runs);
 * - `via: 'interrupt'`: the job was running on a local runtime and was interrupted.
 *
 * When `cancelled` is false, `reason` says why: `ended_or_unknown` (finished, never existed, or
 * another user's), or `running_not_cancellable` (running on a server without the cancel route,
 * where the only stop is `cloud.jobs.interruptAll()`, which stops every running job of yours).
 *
 * @example
 * ```ts
 * const { cancelled, reason } = await cloud.jobs.cancel(promptId);
 * if (reason === 'running_not_cancellable') await cloud.jobs.interruptAll();
 * ```
 */
export interface CancelResult {
  /** True when the job was stopped or dequeued; it then never produces outputs. */
  cancelled: boolean;
  /** How it was cancelled (see above); `undefined` when `cancelled` is false. */
  via: 'cancel' | 'queue' | 'interrupt' | undefined;
  /** Why it was not cancelled (see above); `undefined` when `cancelled` is true. */
  reason: 'ended_or_unknown' | 'running_not_cancellable' | undefined;
}

/**
 * Routes of job control and listing, as `new CloudClient({ jobRoutes })` overrides them (`{id}`
 * is replaced by the prompt id). `cancel: false` skips the cancel route (servers without it).
 *
 * @example
 * ```ts
 * new CloudClient({ baseUrl, apiKey, jobRoutes: { cancel: false } });
 * ```
 */
export interface JobRoutes {
  /** Cancels one job (`POST`), or `false` when the server has no such route. @default '/api/jobs/{id}/cancel' */
  cancel: string | false;
  /** Lists jobs (`GET`, with the listing's query). @default '/api/jobs' */
  jobs: string;
  /** Reads one job with its outputs (`GET`). @default '/api/jobs/{id}' */
  job: string;
  /** Reads the queue (`GET`) and removes pending jobs from it (`POST {delete: [ids]}`). @default '/api/queue' */
  queue: string;
  /** Stops the running job (`POST`): on the cloud every running job of the user. @default '/api/interrupt' */
  interrupt: string;
}
