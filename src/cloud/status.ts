import { NotFoundError, path, type HttpClient, type RequestOptions } from '../core/index.js';
import { mapCloudError } from './errors.js';
import { AnyObjectSchema, JobStatusSchema } from './schemas.js';
import type { JobStatus, JobStatusInfo } from './types.js';

/**
 * How one raw status value reads: its documented value and whether it is final.
 *
 * @example
 * ```ts
 * new CloudClient({ baseUrl, apiKey, statusMap: { warming_up: { status: 'pending', terminal: false } } });
 * ```
 */
export interface StatusMapping {
  status: JobStatus;
  terminal: boolean;
}

const entry = (status: JobStatus, terminal: boolean): StatusMapping => Object.freeze({ status, terminal });

/**
 * Both status vocabularies of the job status route (wire-facts "Job status"): the documented
 * values and the raw internal states deployed servers have been seen to send. Extend or override
 * it with `new CloudClient({ statusMap })`.
 *
 * @example
 * ```ts
 * JOB_STATUS_MAP.queued_waiting; // { status: 'pending', terminal: false }
 * ```
 */
export const JOB_STATUS_MAP: Readonly<Record<string, StatusMapping>> = Object.freeze({
  pending: entry('pending', false),
  in_progress: entry('in_progress', false),
  completed: entry('completed', true),
  failed: entry('failed', true),
  cancelled: entry('cancelled', true),
  canceled: entry('cancelled', true),
  success: entry('completed', true),
  error: entry('failed', true),
  non_retryable_error: entry('failed', true),
  lost: entry('failed', true),
  submitted: entry('pending', false),
  queued_limited: entry('pending', false),
  queued_waiting: entry('pending', false),
  waiting_to_dispatch: entry('pending', false),
  allocated: entry('pending', false),
  preparing: entry('pending', false),
  pending_execution: entry('pending', false),
  executing: entry('in_progress', false),
  executed: entry('in_progress', false),
  // Not yet final: the run is winding down and will report the final state shortly.
  erroring: entry('failed', false),
  cancel_requested: entry('cancelled', false),
  cancel_pending: entry('cancelled', false),
  cancelling_preparing: entry('cancelled', false),
});

const IN_FLIGHT = entry('in_progress', false);

/**
 * Maps a raw status value (either vocabulary, any case) to its documented value. An unknown
 * value counts as in flight rather than failing.
 *
 * @example
 * ```ts
 * mapJobStatus('non_retryable_error'); // { status: 'failed', terminal: true }
 * mapJobStatus('warming_up');          // { status: 'in_progress', terminal: false }
 * ```
 */
export function mapJobStatus(raw: string, overrides?: Readonly<Record<string, StatusMapping>>): StatusMapping {
  const key = raw.trim().toLowerCase();
  return overrides?.[key] ?? JOB_STATUS_MAP[key] ?? IN_FLIGHT;
}

/**
 * Reads a local runtime's `/history/{id}` answer: `{}` while pending, running or unknown;
 * `{<id>: {outputs, status: {status_str, completed, messages}}}` when done.
 *
 * @example
 * ```ts
 * historyStatus('p1', { p1: { status: { status_str: 'success', completed: true } } }).status; // 'completed'
 * ```
 */
export function historyStatus(promptId: string, body: Record<string, unknown>, overrides?: Readonly<Record<string, StatusMapping>>): JobStatusInfo {
  const entry = body[promptId];
  if (!entry || typeof entry !== 'object') return { promptId, status: 'pending', raw: 'history:absent', terminal: false };
  const status = (entry as { status?: unknown }).status;
  const record = status && typeof status === 'object' ? (status as Record<string, unknown>) : {};
  const messages = Array.isArray(record.messages) ? record.messages : [];
  const event = (type: string) => messages.find((m): m is [string, Record<string, unknown>] => Array.isArray(m) && m[0] === type)?.[1];
  const interrupted = event('execution_interrupted');
  const failure = event('execution_error');
  const raw = typeof record.status_str === 'string' ? record.status_str : record.completed === true ? 'success' : 'history:present';
  if (interrupted) return { promptId, status: 'cancelled', raw, terminal: true, errorMessage: 'Execution was interrupted' };
  if (raw === 'history:present') return { promptId, status: 'completed', raw, terminal: true };
  const mapped = mapJobStatus(raw, overrides);
  const errorMessage = typeof failure?.exception_message === 'string' ? failure.exception_message : undefined;
  return { promptId, ...mapped, raw, errorMessage };
}

/**
 * Reads job status from the cloud's status route or, on a local runtime (explicit, or detected
 * when that route answers 404 and `/history/{id}` answers), from `/history/{id}`.
 *
 * @example
 * ```ts
 * const reader = new JobStatusReader(http, undefined);
 * const { status } = await reader.read(promptId);
 * ```
 */
export class JobStatusReader {
  readonly #http: HttpClient;
  readonly #statusMap: Readonly<Record<string, StatusMapping>> | undefined;
  #runtime: 'cloud' | 'local' | undefined;

  constructor(http: HttpClient, runtime: 'cloud' | 'local' | undefined, statusMap?: Readonly<Record<string, StatusMapping>>) {
    this.#http = http;
    this.#runtime = runtime;
    this.#statusMap = statusMap;
  }

  /** `local` once detected or configured, `cloud` when configured, `undefined` while unknown. */
  get runtime(): 'cloud' | 'local' | undefined {
    return this.#runtime;
  }

  /** The status of one job. */
  async read(promptId: string, options?: RequestOptions): Promise<JobStatusInfo> {
    if (this.#runtime === 'local') return this.#history(promptId, options);
    try {
      const body = await this.#http.request({ method: 'GET', path: path`/api/job/${promptId}/status`, schema: JobStatusSchema, options });
      return { promptId, ...mapJobStatus(body.status, this.#statusMap), raw: body.status, errorMessage: body.error_message ?? undefined };
    } catch (error) {
      if (!(error instanceof NotFoundError) || this.#runtime === 'cloud') throw mapCloudError(error);
      return this.#history(promptId, options, error);
    }
  }

  async #history(promptId: string, options: RequestOptions | undefined, statusRoute404?: NotFoundError): Promise<JobStatusInfo> {
    let body: Record<string, unknown>;
    try {
      body = await this.#http.request({ method: 'GET', path: path`/history/${promptId}`, schema: AnyObjectSchema, options });
    } catch (error) {
      throw statusRoute404 && error instanceof NotFoundError ? statusRoute404 : mapCloudError(error);
    }
    // The status route is missing but /history answers: a local runtime.
    this.#runtime ??= 'local';
    return historyStatus(promptId, body, this.#statusMap);
  }
}
