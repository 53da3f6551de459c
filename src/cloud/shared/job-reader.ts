// Reading jobs: a job's status and outputs (the jobs resource and the watcher's poll fallback share
// one reader, so a runtime detected by one is known to both), one job, the list (one page, or
// every page lazily), and the queue. Each runtime's parameter names are written here, and its
// answers read by wire.ts (docs/wire-protocol.md#cloud-job-control-listing-and-queue).
import { NotFoundError, paginateOffsets, path, redactUrl, ValidationError, type HttpClient, type RequestOptions } from '../../core/index.js';
import { CLOUD_DEFAULTS } from './defaults.js';
import type { JobDetail, JobPage, JobQueue, JobRoutes, JobSummary, ListJobsParams, QueueItem } from './job-types.js';
import { listOutputFiles, wireMap } from './outputs.js';
import { historyMessage, historyStatus, mapJobStatus, type StatusMapping } from './status.js';
import type { JobStatusInfo, NodeOutput } from './types.js';
import { AnyObjectSchema, jobTimes, JobDetailSchema, JobListSchema, JobStatusSchema, QueueSchema, toEpochMs, toErrorInfo, toExtraData, toJobDetail, toJobPage, toJobQueue, toOutputs, readOutputs, type RelayTokens } from './wire.js';

/**
 * What `JobReader` needs: the transport, and how this deployment answers.
 *
 * @example
 * ```ts
 * const { outputRoutes, jobRoutes: routes } = CLOUD_DEFAULTS;
 * const config: JobReaderConfig = { http, runtime: 'auto', outputRoutes, tokens, routes };
 * ```
 */
export interface JobReaderConfig {
  http: HttpClient;
  /** `local` reads `/history/{id}`; `auto` switches to it when the status route answers 404. */
  runtime: 'cloud' | 'local' | 'auto';
  statusMap?: Readonly<Record<string, StatusMapping>> | undefined;
  /** Routes asked in order for a finished job's outputs (`{id}` is replaced). */
  outputRoutes: readonly string[];
  /** Tokens of jobs submitted through a relay, sent with their reads. */
  tokens: RelayTokens;
  /** Routes of job listing and the queue (the queue is also asked when a watched job is absent from a local runtime's history). */
  routes: Readonly<JobRoutes>;
}

const SORT_NAMES = {
  cloud: { createdAt: 'create_time', executionTime: 'execution_time' },
  local: { createdAt: 'created_at', executionTime: 'execution_duration' },
} as const;

/** The default page size: the cloud's own default, and a bound on a local runtime's answer. */
export const DEFAULT_PAGE_SIZE = 100;

/** Ids of the jobs this client cancelled, or asked to cancel, that are remembered (the newest). */
const CANCELLED_KEPT = 1_000;
/** `historyStatus()`'s `raw` for a job its history does not hold. */
const ABSENT = 'history:absent';

/**
 * What a watch counts between its reads: the reads in a row that found the job nowhere.
 *
 * @example
 * ```ts
 * const absence: Absence = { reads: 0 };
 * await reader.watchStatus(promptId, { retry: false }, absence);
 * ```
 */
export interface Absence {
  reads: number;
}

/**
 * Reads what the server records of jobs: a job's status (the cloud's status route or, on a local
 * runtime, `/history/{id}`) and outputs (the output routes, in order), one job, the list, the
 * queue. The jobs resource and the watcher's fallback polling share one reader, so a runtime
 * detected by one is known to both.
 *
 * @example
 * ```ts
 * const reader = new JobReader({ http, runtime: 'auto', outputRoutes: CLOUD_DEFAULTS.outputRoutes, tokens, routes });
 * const { status, terminal } = await reader.status(promptId);
 * ```
 */
export class JobReader {
  readonly #config: JobReaderConfig;
  readonly #cancelled = new Set<string>();
  readonly #requested = new Set<string>();
  #runtime: 'cloud' | 'local' | undefined;
  /** Set once a local runtime answered the listing route 404: its jobs are listed from `/history` from then on. */
  #listingMissing = false;

  constructor(config: JobReaderConfig) {
    this.#config = config;
    this.#runtime = config.runtime === 'auto' ? undefined : config.runtime;
  }

  /** `local` once detected or configured, `cloud` when configured, `undefined` while unknown. */
  get runtime(): 'cloud' | 'local' | undefined {
    return this.#runtime;
  }

  /**
   * Notes a job this client cancelled (`cloud.jobs.cancel()` was accepted): a watch that then
   * finds it nowhere ends as `cancelled`.
   */
  noteCancelled(promptId: string): void {
    remember(this.#cancelled, promptId);
  }

  /**
   * Notes a job this client asked to cancel (`cloud.jobs.cancel()` was called), before the answer:
   * the job may end while the request is on its way, and its result still says it was asked.
   */
  noteCancelRequested(promptId: string): void {
    remember(this.#requested, promptId);
  }

  /** True when this client asked to cancel the job (one of the newest 1,000 such jobs). */
  cancelRequested(promptId: string): boolean {
    return this.#requested.has(promptId);
  }

  /**
   * The status of a watched job. A job deleted from a local runtime's queue is in neither its
   * queue nor its history afterwards, and a job the cloud removed from its queue is a `404`
   * (docs/wire-protocol.md#cloud-job-control-listing-and-queue): a job this client cancelled is
   * then `cancelled`; any other job found nowhere `DEFAULTS.cloud.absentReads` reads in a row
   * (counted in `absence`) is a `NotFoundError` (`code: 'job_not_found'`). Fewer reads are lag: a
   * finished job reaches the history just after its last message.
   */
  async watchStatus(promptId: string, options: RequestOptions, absence: Absence): Promise<JobStatusInfo> {
    const read = () =>
      this.status(promptId, options).catch((error: unknown) => {
        if (error instanceof NotFoundError && this.#cancelled.has(promptId)) return cancelledHere(promptId);
        throw error;
      });
    let info = await read();
    // Found, or cancelled by this client (terminal): not absent.
    if (info.raw !== ABSENT || (await this.#queued(promptId, options)) !== false) {
      absence.reads = 0;
      return info;
    }
    // Absent from the history when it was read, gone from the queue when that was read after: the
    // job may have ended in between (it leaves the queue as it enters the history), so the history,
    // the one that moves last, is read again before anything is concluded.
    info = await read();
    if (info.raw !== ABSENT) {
      absence.reads = 0;
      return info;
    }
    if (this.#cancelled.has(promptId)) return cancelledHere(promptId);
    absence.reads += 1;
    if (absence.reads < CLOUD_DEFAULTS.absentReads) return info;
    const { http } = this.#config;
    const message = `Job ${promptId} is in neither the queue nor the history of this local runtime (${absence.reads} reads in a row): it was removed from the queue by another client, or never existed`;
    throw new NotFoundError({ status: 404, method: 'GET', url: redactUrl(`${http.baseUrl}/history/${encodeURIComponent(promptId)}`), body: { error: 'job_not_found', message } });
  }

  /** The status of one job, mapped onto the documented values (`raw` keeps the server's). */
  async status(promptId: string, options?: RequestOptions): Promise<JobStatusInfo> {
    const info = await this.#status(promptId, this.#config.tokens.withToken(promptId, options));
    // A failure message is the server's text, and a server may echo the key it received in it.
    if (info.errorMessage) info.errorMessage = this.#config.http.scrub(info.errorMessage);
    return info;
  }

  /**
   * The runtime, found out once when it is not known yet: a status read of an id nobody has
   * (`404` from the status route and an answer from `/history/{id}` is a local runtime; two
   * `404`s the cloud).
   */
  async detect(options?: RequestOptions): Promise<'cloud' | 'local'> {
    if (this.#runtime) return this.#runtime;
    await this.#status(globalThis.crypto.randomUUID(), options).catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
    });
    this.#runtime ??= 'cloud';
    return this.#runtime;
  }

  async #status(promptId: string, options: RequestOptions | undefined): Promise<JobStatusInfo> {
    if (this.#runtime === 'local') return this.#history(promptId, options);
    const { http, statusMap } = this.#config;
    try {
      const body = await http.request({ method: 'GET', path: path`/api/job/${promptId}/status`, schema: JobStatusSchema, options });
      // Only the cloud has the status route (docs/wire-protocol.md#cloud-local-runtimes).
      this.#runtime ??= 'cloud';
      return { promptId, ...mapJobStatus(body.status, statusMap), raw: body.status, errorMessage: body.error_message ?? undefined };
    } catch (error) {
      // A local runtime has no status route (docs/wire-protocol.md#cloud-local-runtimes).
      if (!(error instanceof NotFoundError) || this.#runtime === 'cloud') throw error;
      return this.#history(promptId, options, error);
    }
  }

  /**
   * A finished job's outputs from the first output route that names them; `complete: false`
   * when none did (`404`, `{}`, or an error).
   */
  async outputs(promptId: string, options?: RequestOptions): Promise<{ outputs: Record<string, NodeOutput>; complete: boolean }> {
    const scoped = this.#config.tokens.withToken(promptId, options);
    for (const route of this.#config.outputRoutes) {
      try {
        // The core's retry applies: a transient 5xx must not cost a paid job its outputs; a 404
        // (a route this server lacks) is not retried, and the next route is asked.
        const body = await this.#config.http.request({ method: 'GET', path: route.replaceAll('{id}', encodeURIComponent(promptId)), schema: AnyObjectSchema, options: scoped });
        const outputs = readOutputs(body, promptId);
        if (outputs) return { outputs, complete: true };
      } catch (error) {
        if (options?.signal?.aborted) throw options.signal.reason;
        if (this.#config.http.closed.aborted) throw error;
        // A missing route or a failing one: try the next; the caller reports the outputs as incomplete.
      }
    }
    return { outputs: wireMap<NodeOutput>(), complete: false };
  }

  /**
   * One page of `GET /api/jobs`, with the runtime's own sort names; on a local runtime without
   * that route (`404`, remembered), from its queue and `GET /history`.
   */
  async list(params: ListJobsParams, options: RequestOptions | undefined): Promise<JobPage> {
    const { http, statusMap } = this.#config;
    const runtime = await this.detect(options);
    if (runtime === 'local' && params.outputType !== undefined) {
      throw new ValidationError([{ path: 'params.outputType', rule: 'the cloud only: a local runtime cannot filter jobs by output type', received: params.outputType }], 'cloud.jobs.list()');
    }
    const offset = params.offset ?? 0;
    const status = params.status === undefined ? undefined : [params.status].flat().join(',');
    // Only a local runtime is ever found without the listing route: from then on, asked no more.
    const body = this.#listingMissing ? undefined : await http.request({
      method: 'GET',
      path: this.#config.routes.jobs,
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
      this.#listingMissing = true;
      return undefined;
    });
    // Error texts and `extra_data` are the server's, and may echo the client's secrets.
    if (!body) return http.scrub(await this.#listFromHistory(params, options));
    return http.scrub(toJobPage(body, offset, statusMap));
  }

  /** Every job matching `params`, page after page, each page fetched when the loop reaches it. */
  listAll(params: ListJobsParams, options: RequestOptions | undefined): AsyncIterable<JobSummary> {
    const limit = params.limit ?? DEFAULT_PAGE_SIZE;
    return paginateOffsets(async (offset) => {
      const page = await this.list({ ...params, offset, limit }, options);
      return { items: page.jobs, hasMore: page.hasMore, total: page.total };
    }, params.offset ?? 0, limit);
  }

  /**
   * One job (`GET /api/jobs/{id}`), or `undefined` when the server has no such job. A local runtime
   * without that route (older versions) is asked through its queue and `/history/{id}`.
   */
  async get(promptId: string, options: RequestOptions | undefined): Promise<JobDetail | undefined> {
    const { http, statusMap, routes } = this.#config;
    try {
      const route = routes.job.replaceAll('{id}', encodeURIComponent(promptId));
      const body = await http.request({ method: 'GET', path: route, schema: JobDetailSchema, options });
      return http.scrub(toJobDetail(body, statusMap));
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    if ((await this.detect(options)) !== 'local') return undefined;
    return http.scrub(await this.#findLocally(promptId, options));
  }

  /** The queue (`GET /api/queue`): running jobs, and pending ones in run order with their position. */
  async queue(options: RequestOptions | undefined): Promise<JobQueue> {
    const body = await this.#config.http.request({ method: 'GET', path: this.#config.routes.queue, schema: QueueSchema, options });
    return toJobQueue(body);
  }

  /**
   * A page of a local runtime's jobs from its queue and `GET /history`, filtered, ordered and cut
   * by the client. Newest first by submission without a status filter (the default), only the
   * newest `offset + limit` entries of the history are asked for (`max_items`); otherwise all of it.
   */
  async #listFromHistory(params: ListJobsParams, options: RequestOptions | undefined): Promise<JobPage> {
    const queue = await this.queue(options);
    const newestFirst = params.status === undefined && params.sortBy !== 'executionTime' && params.sortOrder !== 'asc';
    const maxItems = newestFirst ? (params.offset ?? 0) + (params.limit ?? DEFAULT_PAGE_SIZE) : undefined;
    const history = await this.#config.http.request({ method: 'GET', path: '/history', query: { max_items: maxItems }, schema: AnyObjectSchema, options });
    const complete = maxItems === undefined || Object.keys(history).length < maxItems;
    return historyPage(queue, { history, complete }, params, DEFAULT_PAGE_SIZE, this.#config.statusMap);
  }

  /** A job of a local runtime without the job route: in its queue, in its history, or unknown. */
  async #findLocally(promptId: string, options: RequestOptions | undefined): Promise<JobDetail | undefined> {
    const queued = findQueued(await this.queue(options), promptId);
    const none = wireMap<NodeOutput>();
    if (queued) return { ...queuedSummary(queued), outputs: none, workflow: queued.workflow, extraData: undefined };
    const body = await this.#config.http.request({ method: 'GET', path: path`/history/${promptId}`, schema: AnyObjectSchema, options });
    if (!Object.hasOwn(body, promptId)) return undefined;
    const status = historyStatus(promptId, body, this.#config.statusMap);
    const entry = AnyObjectSchema.safeParse(body[promptId]);
    // A history entry's prompt is [number, prompt_id, prompt, extra_data, outputs to execute].
    const sent = entry.success && Array.isArray(entry.data.prompt) ? entry.data.prompt : [];
    const prompt = AnyObjectSchema.safeParse(sent[2]);
    return {
      ...queuedSummary({ promptId, status: status.status, number: typeof sent[0] === 'number' ? sent[0] : undefined }, status.raw),
      error: status.status === 'failed' || status.status === 'cancelled' ? { message: status.errorMessage ?? `Job ${status.status}` } : undefined,
      outputs: readOutputs(body, promptId) ?? none,
      workflow: prompt.success ? (prompt.data as JobDetail['workflow']) : undefined,
      extraData: toExtraData(sent[3]),
    };
  }

  /** Whether the job is in the queue (running or pending); `undefined` when the queue cannot be read. */
  async #queued(promptId: string, options: RequestOptions): Promise<boolean | undefined> {
    try {
      return findQueued(await this.queue(this.#config.tokens.withToken(promptId, options)), promptId) !== undefined;
    } catch (error) {
      // A server without the route (a relay) cannot tell: the job is not counted as absent.
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  async #history(promptId: string, options: RequestOptions | undefined, statusRoute404?: NotFoundError): Promise<JobStatusInfo> {
    const body = await this.#config.http
      .request({ method: 'GET', path: path`/history/${promptId}`, schema: AnyObjectSchema, options })
      .catch((error: unknown) => {
        throw statusRoute404 && error instanceof NotFoundError ? statusRoute404 : error;
      });
    // The status route is missing but /history answers: a local runtime.
    this.#runtime ??= 'local';
    return historyStatus(promptId, body, this.#config.statusMap);
  }
}

/** The job `promptId` of the queue, running or pending. */
function findQueued(queue: JobQueue, promptId: string): QueueItem | undefined {
  return [...queue.running, ...queue.pending].find((item) => item.promptId === promptId);
}

/** A listed job of which only the queue knows anything: its id, status and number. */
function queuedSummary(item: Pick<JobSummary, 'promptId' | 'status' | 'number'>, raw = `queue:${item.status}`): JobSummary {
  const { promptId, status, number } = item;
  const none = { error: undefined, outputsCount: undefined, preview: undefined, workflowId: undefined };
  return { promptId, status, raw, ...jobTimes(), number, ...none };
}

/** Adds `promptId` to `ids` as its newest, keeping the newest `CANCELLED_KEPT`. */
function remember(ids: Set<string>, promptId: string): void {
  ids.delete(promptId);
  ids.add(promptId);
  if (ids.size > CANCELLED_KEPT) ids.delete(ids.values().next().value as string);
}

function cancelledHere(promptId: string): JobStatusInfo {
  return { promptId, status: 'cancelled', raw: 'cancelled', terminal: true, errorMessage: `Job ${promptId} was cancelled (cloud.jobs.cancel())` };
}

// A local runtime without `GET /api/jobs` (ComfyUI 0.3.77) lists jobs from its queue and
// `GET /history` (docs/wire-protocol.md#cloud-local-runtimes): each is read into the listing's own
// `JobSummary`, and the listing's filters, order and paging are applied here, by the client.
const ENDS = ['execution_success', 'execution_error', 'execution_interrupted'];

/**
 * Reads one entry of `GET /history` (`{prompt: [number, id, prompt, extra_data, outputs],
 * outputs, status: {status_str, completed, messages}}`) as a listed job: times from the run's
 * messages, the error from its `execution_error`, the output files from `outputs`.
 *
 * @example
 * ```ts
 * historySummary('p', { prompt: [3, 'p', {}, {}, ['9']], outputs: {}, status: { status_str: 'success', completed: true, messages: [] } }).status; // 'completed'
 * ```
 */
export function historySummary(promptId: string, entry: unknown, statusMap?: Readonly<Record<string, StatusMapping>>): JobSummary {
  const record = AnyObjectSchema.safeParse(entry);
  const data = record.success ? record.data : {};
  const info = historyStatus(promptId, { [promptId]: data }, statusMap);
  const prompt = Array.isArray(data.prompt) ? data.prompt : [];
  const extra = AnyObjectSchema.safeParse(prompt[3]);
  const message = (types: readonly string[]): Record<string, unknown> | undefined => {
    const parsed = AnyObjectSchema.safeParse(historyMessage(data, types));
    return parsed.success ? parsed.data : undefined;
  };
  const time = (value: unknown) => toEpochMs(typeof value === 'number' ? value : undefined);
  const startedAt = time(message(['execution_start'])?.timestamp);
  const endedAt = time(message(ENDS)?.timestamp);
  const files = listOutputFiles(toOutputs(data.outputs) ?? {});
  const failed = info.status === 'failed' || info.status === 'cancelled';
  return {
    promptId,
    status: info.status,
    raw: info.raw,
    ...jobTimes(time(extra.success ? extra.data.create_time : undefined), startedAt, endedAt),
    number: typeof prompt[0] === 'number' ? prompt[0] : undefined,
    error: failed ? (toErrorInfo(message(['execution_error']), info.errorMessage) ?? { message: info.errorMessage ?? `Job ${info.status}` }) : undefined,
    outputsCount: files.length,
    preview: files[0]?.ref,
    workflowId: undefined,
  };
}

/**
 * One page of the jobs of a local runtime without the listing route: its queue (running, then
 * pending) and its history, filtered by `status`, ordered by `sortBy` (`createdAt` follows the
 * queue number, the order of submission) and `sortOrder`, then cut at `offset` and `limit`.
 * `complete: false` says the history holds only the newest entries (`max_items`).
 *
 * @example
 * ```ts
 * const page = historyPage(queue, { history, complete: true }, { status: 'failed', limit: 20 }, 100);
 * ```
 */
export function historyPage(
  queue: JobQueue,
  { history, complete }: { history: Record<string, unknown>; complete: boolean },
  params: ListJobsParams,
  defaultLimit: number,
  statusMap?: Readonly<Record<string, StatusMapping>>,
): JobPage {
  const queued = [...queue.running, ...queue.pending].map((item) => queuedSummary(item));
  const inQueue = new Set(queued.map((job) => job.promptId));
  const done = Object.keys(history).filter((id) => !inQueue.has(id)).map((id) => historySummary(id, history[id], statusMap));
  const wanted = params.status === undefined ? undefined : new Set([params.status].flat());
  const found = [...queued, ...done].filter((job) => !wanted || wanted.has(job.status));
  // A queued job has no number only on a broken answer: it sorts as the newest.
  const key = params.sortBy === 'executionTime' ? (job: JobSummary) => job.durationMs ?? -1 : (job: JobSummary) => job.number ?? Number.MAX_SAFE_INTEGER;
  const sign = params.sortOrder === 'asc' ? 1 : -1;
  found.sort((a, b) => sign * (key(a) - key(b) || (a.number ?? 0) - (b.number ?? 0)));
  const offset = params.offset ?? 0;
  const limit = params.limit ?? defaultLimit;
  const jobs = found.slice(offset, offset + limit);
  // Only the newest entries were asked for (`complete: false`): the total is unknown, and more may follow.
  if (!complete) return { jobs, offset, limit, total: undefined, hasMore: true };
  return { jobs, offset, limit, total: found.length, hasMore: offset + jobs.length < found.length };
}
