// What the cloud answers, checked at the boundary and read into the SDK's own shapes: the fields
// the SDK reads are typed, every other field the server adds is kept (looseObject). The two
// runtimes' differences in the job listing, job and queue answers (seconds or milliseconds, the
// queue item's fourth element) are mapped here and nowhere else
// (docs/wire-protocol.md#cloud-job-control-listing-and-queue). The job tokens a relay signs
// (`relay_token` of its submit answers) ride here too: its header, and its socket subscription.
import * as z from 'zod/mini';
import type { RequestOptions } from '../../core/index.js';
import type { JobDetail, JobPage, JobQueue, JobSummary, QueueItem } from './job-types.js';
import { toFileRef, wireMap } from './outputs.js';
import { mapJobStatus, type StatusMapping } from './status.js';
import type { JobErrorInfo, NodeErrors, NodeOutput, Workflow } from './types.js';

const opt = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

/**
 * `POST /api/upload/image` and `/api/upload/mask`.
 *
 * @example
 * ```ts
 * UploadSchema.parse({ name: 'a.png', subfolder: '' });
 * ```
 */
export const UploadSchema = z.looseObject({ name: z.string(), subfolder: opt(z.string()), type: opt(z.string()) });

const NodeErrorDetailSchema = z.looseObject({
  type: z.optional(z.string()),
  message: z.optional(z.string()),
  details: z.optional(z.unknown()),
  extra_info: z.optional(z.unknown()),
});

const NodeErrorsSchema = z.looseObject({
  class_type: opt(z.string()),
  errors: z.optional(z.array(NodeErrorDetailSchema)),
  dependent_outputs: opt(z.array(z.unknown())),
});

/**
 * `node_errors` of a submission answer (200 or 400).
 *
 * @example
 * ```ts
 * NodeErrorsMapSchema.parse({ '3': { errors: [{ type: 'x', message: 'bad' }] } });
 * ```
 */
export const NodeErrorsMapSchema = z.record(z.string(), NodeErrorsSchema);

/**
 * `POST /api/prompt` (200): `prompt_id`, and maybe `error` instead or as well.
 *
 * @example
 * ```ts
 * PromptResponseSchema.parse({ prompt_id: 'p1', number: 0, node_errors: {} });
 * ```
 */
export const PromptResponseSchema = z.looseObject({
  prompt_id: opt(z.string()),
  number: opt(z.number()),
  node_errors: opt(z.union([NodeErrorsMapSchema, z.array(z.unknown())])),
  error: opt(z.union([z.string(), z.looseObject({ type: opt(z.string()), message: opt(z.string()), details: z.optional(z.unknown()) })])),
});

/**
 * `GET /api/job/{prompt_id}/status`.
 *
 * @example
 * ```ts
 * JobStatusSchema.parse({ status: 'queued_waiting' });
 * ```
 */
export const JobStatusSchema = z.looseObject({ status: z.string(), error_message: opt(z.string()) });

/**
 * Any JSON object (history routes, whose shapes vary by server).
 *
 * @example
 * ```ts
 * AnyObjectSchema.parse({ any: 'object' });
 * ```
 */
export const AnyObjectSchema = z.record(z.string(), z.unknown());

/** A copy of `raw` when it is a JSON object (as `AnyObjectSchema` reads it), else `undefined`. */
const asObject = (raw: unknown): Record<string, unknown> | undefined => AnyObjectSchema.safeParse(raw).data;

/**
 * Normalises `node_errors` (servers send `{}` or `[]` when empty) into typed entries.
 *
 * @example
 * ```ts
 * toNodeErrors([]); // {}
 * ```
 */
export function toNodeErrors(raw: unknown): Record<string, NodeErrors> {
  const parsed = NodeErrorsMapSchema.safeParse(raw);
  if (!parsed.success) return {};
  return wireMap<NodeErrors>(Object.fromEntries(Object.entries(parsed.data).map(([id, entry]) => [id, {
    class_type: entry.class_type ?? undefined,
    errors: (entry.errors ?? []).map((e) => ({ type: e.type ?? 'error', message: e.message ?? e.type ?? 'invalid', details: e.details, extra_info: e.extra_info })),
    dependent_outputs: entry.dependent_outputs ?? undefined,
  }] as const)));
}

/**
 * Reads an outputs map (`{nodeId: {images: [...]}}`), keeping only object entries.
 *
 * @example
 * ```ts
 * toOutputs({ '9': { images: [] }, bad: 1 }); // { '9': { images: [] } }
 * ```
 */
export function toOutputs(raw: unknown): Record<string, NodeOutput> | undefined {
  const data = asObject(raw);
  if (!data) return undefined;
  const out = Object.create(null) as Record<string, NodeOutput>;
  for (const [id, value] of Object.entries(data)) {
    const output = asObject(value);
    if (output) out[id] = output;
  }
  return out;
}

// The answers of the job listing, job and queue routes.

const JobItemSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  create_time: opt(z.number()),
  execution_start_time: opt(z.number()),
  execution_end_time: opt(z.number()),
  execution_error: opt(z.unknown()),
  error_message: opt(z.string()),
  outputs_count: opt(z.number()),
  preview_output: opt(z.unknown()),
  workflow_id: opt(z.string()),
  priority: opt(z.number()),
});

/**
 * `GET /api/jobs`: `{jobs, pagination}`.
 *
 * @example
 * ```ts
 * JobListSchema.parse({ jobs: [], pagination: { offset: 0, limit: 100, total: 0, has_more: false } });
 * ```
 */
export const JobListSchema = z.looseObject({
  jobs: z.array(JobItemSchema),
  pagination: opt(z.looseObject({ offset: opt(z.number()), limit: opt(z.number()), total: opt(z.number()), has_more: opt(z.boolean()) })),
});

/**
 * `GET /api/jobs/{id}`: a list item plus `outputs` and `workflow`.
 *
 * @example
 * ```ts
 * JobDetailSchema.parse({ id: 'p', status: 'completed', outputs: {} });
 * ```
 */
export const JobDetailSchema = z.looseObject({ ...JobItemSchema.shape, outputs: opt(z.unknown()), workflow: opt(z.unknown()) });

/**
 * `GET /api/queue`: `{queue_running, queue_pending}`, lists of `[number, prompt_id, prompt, ...]`.
 *
 * @example
 * ```ts
 * QueueSchema.parse({ queue_running: [], queue_pending: [[3, 'p', {}, []]] });
 * ```
 */
export const QueueSchema = z.looseObject({ queue_running: opt(z.array(z.unknown())), queue_pending: opt(z.array(z.unknown())) });

/**
 * `POST /api/jobs/{id}/cancel`: `{cancelled}`.
 *
 * @example
 * ```ts
 * CancelSchema.parse({ cancelled: true });
 * ```
 */
export const CancelSchema = z.looseObject({ cancelled: z.boolean() });

/**
 * `POST /api/queue {delete}` on the cloud: `{deleted, cleared}`; a local runtime answers nothing.
 *
 * @example
 * ```ts
 * QueueDeleteSchema.parse({ deleted: ['p'], cleared: false });
 * ```
 */
export const QueueDeleteSchema = z.optional(z.looseObject({ deleted: opt(z.array(z.unknown())) }));

// 10^11 seconds is the year 5138; 10^11 milliseconds is 1973: every real time reads one way.
const SECONDS_BELOW = 1e11;

/**
 * A job time in milliseconds since the epoch, whether the server wrote seconds (the cloud) or
 * milliseconds (a local runtime).
 *
 * @example
 * ```ts
 * toEpochMs(1_700_000_000.5); // 1700000000500
 * toEpochMs(1_700_000_000_500); // 1700000000500
 * ```
 */
export function toEpochMs(value: number | null | undefined): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
  return Math.round(value < SECONDS_BELOW ? value * 1000 : value);
}

/**
 * A listed job's times in ms since the epoch, and its duration when it started and ended.
 *
 * @example
 * ```ts
 * jobTimes(1_000, 2_000, 5_000).durationMs; // 3000
 * ```
 */
export function jobTimes(createdAt?: number, startedAt?: number, endedAt?: number) {
  const durationMs = startedAt !== undefined && endedAt !== undefined && endedAt >= startedAt ? endedAt - startedAt : undefined;
  return { createdAt, startedAt, endedAt, durationMs };
}

/**
 * Reads one item of the job list.
 *
 * @example
 * ```ts
 * toJobSummary({ id: 'p', status: 'completed', create_time: 1_700_000_000 }).createdAt; // 1700000000000
 * ```
 */
export function toJobSummary(item: z.infer<typeof JobItemSchema>, statusMap?: Readonly<Record<string, StatusMapping>>): JobSummary {
  return {
    promptId: item.id,
    status: mapJobStatus(item.status, statusMap).status,
    raw: item.status,
    ...jobTimes(toEpochMs(item.create_time), toEpochMs(item.execution_start_time), toEpochMs(item.execution_end_time)),
    number: item.priority ?? undefined,
    error: toErrorInfo(item.execution_error, item.error_message),
    outputsCount: item.outputs_count ?? undefined,
    preview: toFileRef(item.preview_output),
    workflowId: item.workflow_id ?? undefined,
  };
}

/**
 * Reads one page of `GET /api/jobs`.
 *
 * @example
 * ```ts
 * toJobPage(JobListSchema.parse(body), 0).hasMore;
 * ```
 */
export function toJobPage(body: z.infer<typeof JobListSchema>, offset: number, statusMap?: Readonly<Record<string, StatusMapping>>): JobPage {
  const paging = body.pagination ?? undefined;
  const jobs = body.jobs.map((item) => toJobSummary(item, statusMap));
  const total = paging?.total ?? undefined;
  const start = paging?.offset ?? offset;
  const hasMore = paging?.has_more ?? (total !== undefined ? start + jobs.length < total : false);
  return { jobs, offset: start, limit: paging?.limit ?? undefined, total, hasMore };
}

/**
 * Reads `GET /api/jobs/{id}`.
 *
 * @example
 * ```ts
 * toJobDetail(JobDetailSchema.parse(body)).outputs;
 * ```
 */
export function toJobDetail(body: z.infer<typeof JobDetailSchema>, statusMap?: Readonly<Record<string, StatusMapping>>): JobDetail {
  const workflow = asObject(body.workflow);
  return {
    ...toJobSummary(body, statusMap),
    outputs: toOutputs(body.outputs) ?? wireMap<NodeOutput>(),
    workflow: asObject(workflow?.prompt) as Workflow | undefined,
    extraData: toExtraData(workflow?.extra_data),
  };
}

// Credentials a submission may carry in its extra_data: never kept in what the SDK returns.
const PARTNER_FIELDS: ReadonlySet<string> = new Set(['api_key_platform_org', 'auth_token_platform_org']);

/**
 * A job's `extra_data` as the job route (`workflow.extra_data`) or a local history entry
 * (`prompt[3]`) holds it, in a prototype-free copy without partner credentials; `undefined` when
 * it is not an object.
 *
 * @example
 * ```ts
 * toExtraData({ client_id: 'c', api_key_platform_org: 'sk-p' }); // { client_id: 'c' }
 * ```
 */
export function toExtraData(raw: unknown): Record<string, unknown> | undefined {
  const data = asObject(raw);
  return data && wireMap(Object.fromEntries(Object.entries(data).filter(([key]) => !PARTNER_FIELDS.has(key))));
}

/**
 * Reads `GET /api/queue`: items in run order with their position. The fourth element of an item
 * is the output list on the cloud and the `extra_data` on a local runtime (which lists the
 * outputs fifth); both are read, the `extra_data` is not kept (it can hold a partner key).
 *
 * @example
 * ```ts
 * toJobQueue({ queue_running: [], queue_pending: [[4, 'b', {}, ['9']], [3, 'a', {}, ['9']]] }).pending[0]?.promptId; // 'a'
 * ```
 */
export function toJobQueue(body: z.infer<typeof QueueSchema>): JobQueue {
  const read = (list: unknown[] | null | undefined, status: QueueItem['status']): QueueItem[] =>
    (list ?? []).flatMap((item): QueueItem[] => {
      if (!Array.isArray(item) || typeof item[1] !== 'string') return [];
      const outputs = Array.isArray(item[3]) ? item[3] : Array.isArray(item[4]) ? item[4] : undefined;
      return [{ promptId: item[1], number: typeof item[0] === 'number' ? item[0] : 0, position: 0, status, workflow: asObject(item[2]) as Workflow | undefined, outputNodes: outputs?.map(String) }];
    });
  const pending = read(body.queue_pending, 'pending').sort((a, b) => a.number - b.number);
  pending.forEach((item, index) => (item.position = index + 1));
  return { running: read(body.queue_running, 'in_progress'), pending };
}

/**
 * Reads an `execution_error` (the listing's, or a history message's data) into the SDK's error shape.
 *
 * @example
 * ```ts
 * toErrorInfo({ exception_message: 'boom', node_id: '3' }, undefined)?.nodeId; // '3'
 * ```
 */
export function toErrorInfo(raw: unknown, fallback: string | null | undefined): JobErrorInfo | undefined {
  const error = asObject(raw);
  if (!error) return fallback ? { message: fallback } : undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return errorFields(error, text, text(error.exception_message) ?? fallback ?? text(error.message) ?? 'the job failed');
}

/**
 * The SDK's error shape of an `execution_error`'s data: `message`, then each other field as
 * `read` takes it (the socket's reader and the listing's differ on numbers and empty strings).
 *
 * @example
 * ```ts
 * errorFields({ node_id: '3' }, (value) => (typeof value === 'string' ? value : undefined), 'boom').nodeId; // '3'
 * ```
 */
export function errorFields(error: Record<string, unknown>, read: (value: unknown) => string | undefined, message: string): JobErrorInfo {
  return {
    message,
    exceptionType: read(error.exception_type),
    nodeId: read(error.node_id),
    nodeType: read(error.node_type),
    traceback: error.traceback,
  };
}


// The job tokens of a relay (graphcloud/server): docs/browser.md.

/**
 * Header of a job's token on the job-scoped routes of a relay (`graphcloud/server`).
 *
 * @example
 * ```ts
 * fetch(url, { headers: { [JOB_TOKEN_HEADER]: token } });
 * ```
 */
export const JOB_TOKEN_HEADER = 'x-graphcloud-job-token';

// A token is about 150 characters; the map keeps the jobs of a long session, not of every session.
const MAX_TOKEN_LENGTH = 4_096;
const MAX_JOBS = 1_000;

/**
 * The tokens a relay gave for the jobs submitted through it (`relay_token` of the submit answer),
 * by prompt id: a small bounded map (the oldest job goes first). A client talking to the cloud
 * directly never gets one, and sends nothing more. See docs/browser.md.
 *
 * @example
 * ```ts
 * tokens.set(answer.prompt_id, answer.relay_token);
 * await http.request({ method: 'GET', path, options: tokens.withToken(promptId, options) });
 * ```
 */
export class RelayTokens extends Map<string, string> {
  /** Remembers a job's token (as the newest); anything but a non-empty string is ignored. */
  override set(promptId: string, token: unknown): this {
    if (typeof token !== 'string' || token === '' || token.length > MAX_TOKEN_LENGTH) return this;
    this.delete(promptId);
    super.set(promptId, token);
    if (this.size > MAX_JOBS) this.delete(this.keys().next().value as string);
    return this;
  }

  /** The options of a job-scoped request: the caller's, with the job's token header when there is one. */
  withToken(promptId: string, options: RequestOptions | undefined): RequestOptions | undefined {
    const token = this.get(promptId);
    if (token === undefined) return options;
    return { ...options, headers: { ...options?.headers, [JOB_TOKEN_HEADER]: token } };
  }

  /** The socket message that asks a relay for a job's messages, when the job has a token. */
  subscription(promptId: string): string | undefined {
    const token = this.get(promptId);
    return token === undefined ? undefined : JSON.stringify({ type: 'graphcloud_subscribe', data: { token } });
  }
}

/**
 * Reads a job's outputs from a history-like body: `{outputs}`, `{<id>: {outputs}}` (history and
 * history_v2), or `{job: {outputs}}`. `undefined` when the body names no outputs (`{}` while the
 * job is unknown or still running).
 *
 * @example
 * ```ts
 * readOutputs({ p1: { outputs: { '9': { images: [] } } } }, 'p1'); // { '9': { images: [] } }
 * ```
 */
export function readOutputs(body: unknown, promptId: string): Record<string, NodeOutput> | undefined {
  const record = asObject(body);
  for (const candidate of record ? [record, record[promptId], record.job] : []) {
    const outputs = toOutputs(asObject(candidate)?.outputs);
    if (outputs) return outputs;
  }
  return undefined;
}
