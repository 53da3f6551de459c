// Reading jobs: the list (one page, or every page lazily), one job, and the queue. Each runtime's
// parameter names are written here, and its answers read by model/job-wire.ts
// (docs/wire-protocol.md#cloud-job-control-listing-and-queue).
import { NotFoundError, paginateOffsets, path, ValidationError, type HttpClient, type RequestOptions } from '../core/index.js';
import type { JobDetail, JobPage, JobQueue, JobRoutes, JobSummary, ListJobsParams } from './model/job-types.js';
import { JobDetailSchema, JobListSchema, QueueSchema, toExtraData, toJobDetail, toJobPage, toJobQueue } from './model/job-wire.js';
import { historyPage } from './model/job-history.js';
import type { JobReader } from './model/job-reader.js';
import { readOutputs } from './model/outputs.js';
import { AnyObjectSchema } from './model/schemas.js';
import { historyStatus, type StatusMapping } from './model/status.js';

/**
 * What reading jobs needs: the transport, the shared job reader (it knows the runtime), the routes.
 *
 * @example
 * ```ts
 * const deps: JobLookupDeps = { http, reader, routes: CLOUD_DEFAULTS.jobRoutes };
 * ```
 */
export interface JobLookupDeps {
  http: HttpClient;
  reader: JobReader;
  routes: Readonly<JobRoutes>;
  statusMap?: Readonly<Record<string, StatusMapping>> | undefined;
  /** Set once a local runtime answered the listing route 404: its jobs are listed from `/history` from then on. */
  listing?: { missing: boolean } | undefined;
}

const SORT_NAMES = {
  cloud: { createdAt: 'create_time', executionTime: 'execution_time' },
  local: { createdAt: 'created_at', executionTime: 'execution_duration' },
} as const;

/** The default page size: the cloud's own default, and a bound on a local runtime's answer. */
export const DEFAULT_PAGE_SIZE = 100;

/**
 * Reads one page of `GET /api/jobs`, with the runtime's own sort names; on a local runtime without
 * that route (`404`, remembered in `deps.listing`), from its queue and `GET /history`.
 *
 * @example
 * ```ts
 * const page = await listJobs(deps, { status: 'failed', limit: 20 });
 * ```
 */
export async function listJobs(deps: JobLookupDeps, params: ListJobsParams, options: RequestOptions | undefined): Promise<JobPage> {
  const { http, reader, routes, statusMap } = deps;
  const runtime = await reader.detect(options);
  if (runtime === 'local' && params.outputType !== undefined) {
    throw new ValidationError([{ path: 'params.outputType', rule: 'the cloud only: a local runtime cannot filter jobs by output type', received: params.outputType }], 'cloud.jobs.list()');
  }
  if (runtime === 'local' && deps.listing?.missing === true) return scrubbed(http, await listFromHistory(deps, params, options));
  const offset = params.offset ?? 0;
  const status = params.status === undefined ? undefined : typeof params.status === 'string' ? params.status : params.status.join(',');
  const body = await http.request({
    method: 'GET',
    path: routes.jobs,
    query: {
      status,
      sort_by: params.sortBy === undefined ? undefined : SORT_NAMES[runtime][params.sortBy],
      sort_order: params.sortOrder,
      offset,
      limit: params.limit ?? DEFAULT_PAGE_SIZE,
      output_type: params.outputType,
    },
    schema: JobListSchema,
    options,
  }).catch((error: unknown) => {
    // ComfyUI 0.3.77 has no listing route: its jobs are in its queue and /history (docs/cloud.md).
    if (!(error instanceof NotFoundError) || runtime !== 'local') throw error;
    if (deps.listing) deps.listing.missing = true;
    return undefined;
  });
  if (!body) return scrubbed(http, await listFromHistory(deps, params, options));
  return scrubbed(http, toJobPage(body, offset, statusMap));
}

/**
 * A page of a local runtime's jobs from its queue and `GET /history`, filtered, ordered and cut
 * by the client. Newest first by submission without a status filter (the default), only the
 * newest `offset + limit` entries of the history are asked for (`max_items`); otherwise all of it.
 */
async function listFromHistory(deps: JobLookupDeps, params: ListJobsParams, options: RequestOptions | undefined): Promise<JobPage> {
  const queue = await getQueue(deps, options);
  const newestFirst = params.status === undefined && params.sortBy !== 'executionTime' && params.sortOrder !== 'asc';
  const maxItems = newestFirst ? (params.offset ?? 0) + (params.limit ?? DEFAULT_PAGE_SIZE) : undefined;
  const history = await deps.http.request({ method: 'GET', path: '/history', query: { max_items: maxItems }, schema: AnyObjectSchema, options });
  const complete = maxItems === undefined || Object.keys(history).length < maxItems;
  return historyPage(queue, { history, complete }, params, DEFAULT_PAGE_SIZE, deps.statusMap);
}

/**
 * Every job matching `params`, page after page, each page fetched when the loop reaches it.
 *
 * @example
 * ```ts
 * for await (const job of listAllJobs(deps, { status: 'completed' }, undefined)) console.log(job.promptId);
 * ```
 */
export function listAllJobs(deps: JobLookupDeps, params: ListJobsParams, options: RequestOptions | undefined): AsyncIterable<JobSummary> {
  const limit = params.limit ?? DEFAULT_PAGE_SIZE;
  return paginateOffsets(async (offset) => {
    const page = await listJobs(deps, { ...params, offset, limit }, options);
    return { items: page.jobs, hasMore: page.hasMore, total: page.total };
  }, params.offset ?? 0, limit);
}

/**
 * One job (`GET /api/jobs/{id}`), or `undefined` when the server has no such job. A local runtime
 * without that route (older versions) is asked through its queue and `/history/{id}`.
 *
 * @example
 * ```ts
 * const job = await getJob(deps, promptId, undefined);
 * ```
 */
export async function getJob(deps: JobLookupDeps, promptId: string, options: RequestOptions | undefined): Promise<JobDetail | undefined> {
  const { http, routes, statusMap } = deps;
  try {
    const body = await http.request({ method: 'GET', path: routes.job.replaceAll('{id}', encodeURIComponent(promptId)), schema: JobDetailSchema, options });
    return scrubbed(http, toJobDetail(body, statusMap));
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  if ((await deps.reader.detect(options)) !== 'local') return undefined;
  return scrubbed(http, await findLocally(deps, promptId, options));
}

/**
 * The queue (`GET /api/queue`): running jobs, and pending ones in run order with their position.
 *
 * @example
 * ```ts
 * const { pending } = await getQueue(deps, undefined);
 * ```
 */
export async function getQueue(deps: JobLookupDeps, options: RequestOptions | undefined): Promise<JobQueue> {
  const body = await deps.http.request({ method: 'GET', path: deps.routes.queue, schema: QueueSchema, options });
  return toJobQueue(body);
}

/** A job of a local runtime without the job route: in its queue, in its history, or unknown. */
async function findLocally(deps: JobLookupDeps, promptId: string, options: RequestOptions | undefined): Promise<JobDetail | undefined> {
  const queue = await getQueue(deps, options);
  const queued = [...queue.running, ...queue.pending].find((item) => item.promptId === promptId);
  const empty = { raw: '', createdAt: undefined, startedAt: undefined, endedAt: undefined, durationMs: undefined, error: undefined, outputsCount: undefined, preview: undefined, workflowId: undefined, extraData: undefined };
  if (queued) return { ...empty, promptId, status: queued.status, raw: `queue:${queued.status}`, number: queued.number, outputs: Object.create(null) as JobDetail['outputs'], workflow: queued.workflow };
  const body = await deps.http.request({ method: 'GET', path: path`/history/${promptId}`, schema: AnyObjectSchema, options });
  if (!Object.hasOwn(body, promptId)) return undefined;
  const status = historyStatus(promptId, body, deps.statusMap);
  const entry = AnyObjectSchema.safeParse(body[promptId]);
  const prompt = entry.success && Array.isArray(entry.data.prompt) ? AnyObjectSchema.safeParse(entry.data.prompt[2]) : undefined;
  return {
    ...empty,
    promptId,
    status: status.status,
    raw: status.raw,
    number: entry.success && Array.isArray(entry.data.prompt) && typeof entry.data.prompt[0] === 'number' ? entry.data.prompt[0] : undefined,
    error: status.status === 'failed' || status.status === 'cancelled' ? { message: status.errorMessage ?? `Job ${status.status}` } : undefined,
    outputs: readOutputs(body, promptId) ?? (Object.create(null) as JobDetail['outputs']),
    workflow: prompt?.success ? (prompt.data as JobDetail['workflow']) : undefined,
    // A history entry's prompt is [number, prompt_id, prompt, extra_data, outputs to execute].
    extraData: toExtraData(entry.success && Array.isArray(entry.data.prompt) ? entry.data.prompt[3] : undefined),
  };
}

/** The value with the client's secrets scrubbed: error texts and `extra_data` are the server's, and may echo them. */
function scrubbed<T>(http: HttpClient, value: T): T {
  return http.scrub(value);
}
