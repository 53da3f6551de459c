import * as z from 'zod/mini';
import { checkAnsweredId, redactUrl, ResponseValidationError, type HttpClient, type RequestOptions } from '../core/index.js';
import type { ImageTaskKind, TaskKind, VideoTaskKind } from './tasks.js';
import type { ImageTask, ImageTaskResult, TaskPhase, TaskStatus, VideoCreation, VideoTask, VideoTaskResult } from './types.js';

// Boundary schemas of the media proxy (docs/wire-protocol.md#media-proxy-submissions-and-envelopes).
// Strict only about what the SDK reads; everything else is lenient, because a submission answer
// that fails validation would lose a task already paid for.
const opt = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));
// Several fields of one type, in this order.
const each = <T extends z.ZodMiniType, K extends string>(schema: T, ...names: K[]) =>
  Object.fromEntries(names.map((name) => [name, opt(schema)])) as { [P in K]: ReturnType<typeof opt<T>> };

// Every field of the vendors' answers is optional, `task_id` included; but a submission without a
// task id cannot be waited on or looked up, so that one answer is refused, saying why.
const MISSING_TASK_ID = 'missing or empty: the task may have been accepted (and billed), but without its id it cannot be waited on; it was not submitted again';
const SubmittedTaskId = z.string({ error: MISSING_TASK_ID }).check(z.minLength(1, { error: MISSING_TASK_ID }));

const imageBody = <T extends z.ZodMiniType>(taskId: T) => ({
  task_id: taskId,
  status: opt(z.string()),
  // Some upstreams spell `status` as `task_status`.
  task_status: opt(z.string()),
  generated: opt(z.array(z.string())),
});
// A body whose `data` is an object is read under `data`, and must be valid there: read at its top
// level instead (where every field is optional), `{ data: { status: 5 } }` passed the schema and
// its `status` reached the reader as a number. Only a `data` that is no object leaves the top level.
const NotAnObject = opt(z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown())]));
const enveloped = <S extends z.core.$ZodLooseShape>(shape: S) => z.union([z.looseObject({ data: z.looseObject(shape) }), z.looseObject({ ...shape, data: NotAnObject })]);

// Image answers: under `data` (relight, upscaler, skin enhancers) or at the top level (style
// transfer); both are accepted everywhere. A submission must name its task; a status answer
// without a task id still belongs to the task asked about.
const ImageTaskSchema = enveloped(imageBody(SubmittedTaskId));
const ImageStatusSchema = enveloped(imageBody(opt(z.string())));

// Video submission answer: `task_id`, `state`, `credits` (top level; a `data` wrapper is accepted too).
const VideoTaskSchema = enveloped({ task_id: SubmittedTaskId, state: opt(z.string()), credits: opt(z.number()) });

const CreationSchema = z.looseObject(each(z.string(), 'id', 'url', 'cover_url', 'watermarked_url'));

// Video status (docs/wire-protocol.md#media-proxy-status-routes-and-terminal-states). Every field
// is optional; a body without `state` reads as running (charged to the wait's budget), never as
// queued forever, and a creation without `url` is kept but is no result.
const VideoStatusSchema = enveloped({
  ...each(z.string(), 'id', 'task_id', 'state', 'err_code'),
  ...each(z.number(), 'credits', 'progress'),
  creations: opt(z.array(CreationSchema)),
});

// The body under `data` when `data` is an object; otherwise the body itself (every field being
// optional, `{data: null}` passes as a top-level body without fields).
function unwrap<T extends object>(body: T): T extends { data: infer D } ? D : T {
  const data: unknown = 'data' in body ? body.data : undefined;
  return (typeof data === 'object' && data !== null && !Array.isArray(data) ? data : body) as T extends { data: infer D } ? D : T;
}

const QUEUED = new Set(['CREATED', 'QUEUEING', 'QUEUED']);

/**
 * Phase of a vendor status, compared case-insensitively; an unknown value is "running", never an
 * error (docs/wire-protocol.md#media-proxy-status-routes-and-terminal-states).
 * @example phaseOf('queueing', false); // 'queued'
 */
export function phaseOf(status: string, hasResult: boolean): TaskPhase {
  const upper = status.toUpperCase();
  if (QUEUED.has(upper)) return 'queued';
  if (upper === 'COMPLETED' || upper === 'SUCCESS') return hasResult ? 'succeeded' : 'failed';
  if (upper === 'FAILED') return 'failed';
  return 'running';
}

/**
 * A status as read from the wire: a video status also carries its creations and credits.
 * @example const { creations = [] } = await FAMILIES.video.readStatus(http, 'extend', id, path, {});
 */
export interface WireStatus extends TaskStatus {
  creations?: VideoCreation[] | undefined;
  credits?: number | undefined;
}

/**
 * What differs between the two families of tasks: the submission answer, the status answer and
 * the result. Each function sends its request through the core and validates the body.
 *
 * @example
 * ```ts
 * const task = await FAMILIES[TASKS.upscale.family].submit(http, 'upscale', TASKS.upscale.submitPath, body, options);
 * ```
 */
export interface Family {
  /** POSTs a submission once (never retried: a second POST is a second paid task) and normalises the answer. */
  submit(http: HttpClient, kind: TaskKind, path: string, body: unknown, options: RequestOptions): Promise<ImageTask | VideoTask>;
  /** GETs one status. */
  readStatus(http: HttpClient, kind: TaskKind, taskId: string, path: string, options: RequestOptions): Promise<WireStatus>;
  /** The result of a succeeded status. */
  toResult(status: WireStatus): ImageTaskResult | VideoTaskResult;
}

/**
 * A status answer of the wrong shape does not end the task: the error says it exists, and how to
 * read it again (a status route's URL may not show the id: `statusPaths` can be a function).
 */
const namingTask =
  (kind: TaskKind, taskId: string) =>
  (error: unknown): never => {
    if (!(error instanceof ResponseValidationError)) throw error;
    throw new ResponseValidationError({ ...error, problems: [...error.problems, `the ${kind} task ${JSON.stringify(taskId)} exists and may still run: read it again with proxy.waitForTask()`] });
  };

// A task id goes into every status URL: one no URL can carry is refused (docs/wire-protocol.md#media-proxy-submissions-and-envelopes).
const answeredId = (http: HttpClient, path: string, taskId: string, raw: unknown): void =>
  checkAnsweredId(taskId, { field: 'task_id', work: 'task', body: raw, method: 'POST', url: redactUrl(`${http.baseUrl}${path}`) });

/**
 * The two families of tasks, by `TASKS[kind].family`.
 * @example await FAMILIES.image.readStatus(http, 'upscale', 't-1', '/proxy/imagevendor/v1/ai/image-upscaler/t-1', {});
 */
export const FAMILIES: Readonly<Record<'image' | 'video', Family>> = Object.freeze({
  image: {
    async submit(http, kind, path, body, options) {
      const raw = await http.request({ method: 'POST', path, json: body, schema: ImageTaskSchema, idempotent: false, scrubAnswer: true, options });
      const inner = unwrap(raw);
      answeredId(http, path, inner.task_id, raw);
      return { kind: kind as ImageTaskKind, taskId: inner.task_id, status: (inner.status ?? inner.task_status ?? 'CREATED').toUpperCase(), generated: inner.generated ?? [], raw };
    },
    async readStatus(http, kind, taskId, path, options) {
      const body = await http.request({ method: 'GET', path, schema: ImageStatusSchema, scrubAnswer: true, options }).catch(namingTask(kind, taskId));
      const inner = unwrap(body);
      // No status at all reads as running (charged to the budget), never as queued forever.
      const status = (inner.status ?? inner.task_status ?? 'UNKNOWN').toUpperCase();
      const urls = inner.generated ?? [];
      return { kind, taskId: inner.task_id || taskId, status, phase: phaseOf(status, urls.length > 0), urls, raw: body };
    },
    toResult: (s) => ({ kind: s.kind as ImageTaskKind, taskId: s.taskId, status: s.status, urls: s.urls, raw: s.raw }),
  },
  video: {
    async submit(http, kind, path, body, options) {
      const raw = await http.request({ method: 'POST', path, json: body, schema: VideoTaskSchema, idempotent: false, scrubAnswer: true, options });
      const inner = unwrap(raw);
      answeredId(http, path, inner.task_id, raw);
      return { kind: kind as VideoTaskKind, taskId: inner.task_id, state: (inner.state ?? 'created').toLowerCase(), credits: inner.credits ?? undefined, raw };
    },
    async readStatus(http, kind, taskId, path, options) {
      const body = await http.request({ method: 'GET', path, schema: VideoStatusSchema, scrubAnswer: true, options }).catch(namingTask(kind, taskId));
      const inner = unwrap(body);
      const status = (inner.state ?? 'unknown').toLowerCase();
      const creations = (inner.creations ?? []).map((c) => stripNulls(c) as VideoCreation);
      const urls = creations.flatMap((c) => (c.url ? [c.url] : []));
      return { kind, taskId, status, phase: phaseOf(status, urls.length > 0), urls, progress: inner.progress ?? undefined, errCode: inner.err_code ?? undefined, creations, credits: inner.credits ?? undefined, raw: body };
    },
    toResult: (s) => ({ kind: s.kind as VideoTaskKind, taskId: s.taskId, status: s.status, urls: s.urls, creations: s.creations ?? [], credits: s.credits, raw: s.raw }),
  },
});

function stripNulls(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null));
}
