import { NotFoundError, path, redactUrl, type HttpClient, type RequestOptions } from '../../core/index.js';
import { CLOUD_DEFAULTS } from './defaults.js';
import { QueueSchema, toJobQueue } from './job-wire.js';
import { readOutputs } from './outputs.js';
import type { RelayTokens } from './relay-tokens.js';
import { AnyObjectSchema, JobStatusSchema } from './schemas.js';
import { historyStatus, mapJobStatus, type StatusMapping } from './status.js';
import type { JobStatusInfo, NodeOutput } from './types.js';

/**
 * What `JobReader` needs: the transport, and how this deployment answers.
 *
 * @example
 * ```ts
 * const config: JobReaderConfig = { http, runtime: 'auto', outputRoutes: CLOUD_DEFAULTS.outputRoutes };
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
  tokens?: RelayTokens | undefined;
  /** The queue route (`GET`), asked when a watched job is absent from a local runtime's history. @default '/api/queue' */
  queueRoute?: string | undefined;
}

/** Ids of the jobs this client cancelled that are remembered (the newest). */
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
 * Reads what the server records of a job: its status (the cloud's status route or, on a local
 * runtime, `/history/{id}`) and its outputs (the output routes, in order). The jobs resource and
 * the watcher's fallback polling share one reader, so a runtime detected by one is known to both.
 *
 * @example
 * ```ts
 * const reader = new JobReader({ http, runtime: 'auto', outputRoutes: CLOUD_DEFAULTS.outputRoutes });
 * const { status, terminal } = await reader.status(promptId);
 * ```
 */
export class JobReader {
  readonly #config: JobReaderConfig;
  readonly #cancelled = new Set<string>();
  #runtime: 'cloud' | 'local' | undefined;

  constructor(config: JobReaderConfig) {
    this.#config = config;
    this.#runtime = config.runtime === 'auto' ? undefined : config.runtime;
  }

  /** `local` once detected or configured, `cloud` when configured, `undefined` while unknown. */
  get runtime(): 'cloud' | 'local' | undefined {
    return this.#runtime;
  }

  /**
   * Notes a job this client cancelled (`cloud.jobs.cancel()`): a watch that then finds it
   * nowhere ends as `cancelled`.
   */
  noteCancelled(promptId: string): void {
    this.#cancelled.delete(promptId);
    this.#cancelled.add(promptId);
    if (this.#cancelled.size > CANCELLED_KEPT) this.#cancelled.delete(this.#cancelled.values().next().value as string);
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
    let info: JobStatusInfo;
    try {
      info = await this.status(promptId, options);
    } catch (error) {
      if (error instanceof NotFoundError && this.#cancelled.has(promptId)) return cancelledHere(promptId);
      throw error;
    }
    if (info.raw !== ABSENT || (await this.#queued(promptId, options)) !== false) {
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
    const info = await this.#status(promptId, this.#config.tokens?.withToken(promptId, options) ?? options);
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
    try {
      await this.#status(globalThis.crypto.randomUUID(), options);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
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
    const scoped = this.#config.tokens?.withToken(promptId, options) ?? options;
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
    return { outputs: Object.create(null) as Record<string, NodeOutput>, complete: false };
  }

  /** Whether the job is in the queue (running or pending); `undefined` when the queue cannot be read. */
  async #queued(promptId: string, options: RequestOptions): Promise<boolean | undefined> {
    const { http, tokens, queueRoute = CLOUD_DEFAULTS.jobRoutes.queue } = this.#config;
    try {
      const body = await http.request({ method: 'GET', path: queueRoute, schema: QueueSchema, options: tokens?.withToken(promptId, options) ?? options });
      const queue = toJobQueue(body);
      return [...queue.running, ...queue.pending].some((item) => item.promptId === promptId);
    } catch (error) {
      // A server without the route (a relay) cannot tell: the job is not counted as absent.
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  async #history(promptId: string, options: RequestOptions | undefined, statusRoute404?: NotFoundError): Promise<JobStatusInfo> {
    let body: Record<string, unknown>;
    try {
      body = await this.#config.http.request({ method: 'GET', path: path`/history/${promptId}`, schema: AnyObjectSchema, options });
    } catch (error) {
      throw statusRoute404 && error instanceof NotFoundError ? statusRoute404 : error;
    }
    // The status route is missing but /history answers: a local runtime.
    this.#runtime ??= 'local';
    return historyStatus(promptId, body, this.#config.statusMap);
  }
}

function cancelledHere(promptId: string): JobStatusInfo {
  return { promptId, status: 'cancelled', raw: 'cancelled', terminal: true, errorMessage: `Job ${promptId} was cancelled (cloud.jobs.cancel())` };
}
