import * as z from 'zod/mini';
import type { ImageTask, ImageTaskKind, TaskKind, TaskPhase, TaskStatus, VideoCreation, VideoTask, VideoTaskKind } from './types.js';

// Boundary schemas of Area C. Strict only about what the SDK reads (the task id); everything else
// is lenient, because a submission response that fails validation would lose a task already paid.
const opt = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

const ImageTaskBody = z.looseObject({
  task_id: z.string(),
  status: opt(z.string()),
  // Some upstreams spell `status` as `task_status` (wire facts, Area C).
  task_status: opt(z.string()),
  generated: opt(z.array(z.string())),
});

/**
 * Image task, under `data` (relight, upscaler, skin enhancers) or at the top level (style transfer); both accepted everywhere.
 * @example ImageTaskSchema.parse({ data: { task_id: 't', status: 'CREATED' } });
 */
export const ImageTaskSchema = z.union([z.looseObject({ data: ImageTaskBody }), ImageTaskBody]);

const VideoTaskBody = z.looseObject({
  task_id: z.string(),
  state: opt(z.string()),
  credits: opt(z.number()),
});

/**
 * Video submission answer: `task_id`, `state`, `credits` (top level; a `data` wrapper is accepted too).
 * @example VideoTaskSchema.parse({ task_id: 'v', state: 'created', credits: 20 });
 */
export const VideoTaskSchema = z.union([z.looseObject({ data: VideoTaskBody }), VideoTaskBody]);

const CreationSchema = z.looseObject({
  id: opt(z.string()),
  url: z.string(),
  cover_url: opt(z.string()),
  watermarked_url: opt(z.string()),
});

// `state` is required here: a status read costs nothing, and a body without it (a wrong route
// answering `{}`) must not pass for a task queued forever.
const VideoStatusBody = z.looseObject({
  id: opt(z.string()),
  task_id: opt(z.string()),
  state: z.string(),
  err_code: opt(z.string()),
  credits: opt(z.number()),
  progress: opt(z.number()),
  creations: opt(z.array(CreationSchema)),
});

/**
 * Video status answer (`GET /proxy/videovendor/tasks/{task_id}/creations`).
 * @example VideoStatusSchema.parse({ id: 'v', state: 'success', creations: [{ url: 'https://cdn/v.mp4' }] });
 */
export const VideoStatusSchema = z.union([z.looseObject({ data: VideoStatusBody }), VideoStatusBody]);

type Unwrapped<T> = T extends { data: infer D } ? D : T;
function unwrap<T extends object>(body: T): Unwrapped<T> {
  return ('data' in body ? body.data : body) as Unwrapped<T>;
}

/**
 * Normalises an image task answer (submission or status).
 * @example toImageTask('upscale', { task_id: 't', task_status: 'created' }); // { kind: 'upscale', taskId: 't', status: 'CREATED', generated: [], raw }
 */
export function toImageTask<K extends ImageTaskKind>(kind: K, body: z.infer<typeof ImageTaskSchema>): ImageTask<K> {
  const inner = unwrap(body);
  return { kind, taskId: inner.task_id, status: (inner.status ?? inner.task_status ?? 'CREATED').toUpperCase(), generated: inner.generated ?? [], raw: body };
}

/**
 * Normalises a video submission answer.
 * @example toVideoTask('extend', { task_id: 'v', state: 'Queueing' }).state; // 'queueing'
 */
export function toVideoTask<K extends VideoTaskKind>(kind: K, body: z.infer<typeof VideoTaskSchema>): VideoTask<K> {
  const inner = unwrap(body);
  return { kind, taskId: inner.task_id, state: (inner.state ?? 'created').toLowerCase(), credits: inner.credits ?? undefined, raw: body };
}

const QUEUED = new Set(['CREATED', 'QUEUEING', 'QUEUED']);

/**
 * Phase of a vendor status, compared case-insensitively; an unknown value is "running", never an error.
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
 * An image status answer as a `TaskStatus`.
 * @example imageStatus('relight', 't', { data: { task_id: 't', status: 'COMPLETED', generated: [url] } }).phase; // 'succeeded'
 */
export function imageStatus(kind: TaskKind, taskId: string, body: z.infer<typeof ImageTaskSchema>): TaskStatus {
  const inner = unwrap(body);
  // No status at all reads as running (charged to the budget), never as queued forever.
  const status = (inner.status ?? inner.task_status ?? 'UNKNOWN').toUpperCase();
  const urls = inner.generated ?? [];
  return { kind, taskId: inner.task_id || taskId, status, phase: phaseOf(status, urls.length > 0), urls, raw: body };
}

/**
 * A video status answer as a `TaskStatus` and its creations; `success` with no creation is a failure.
 * @example videoStatus('extend', 'v', { state: 'success', creations: [] }).phase; // 'failed' (no result)
 */
export function videoStatus(kind: TaskKind, taskId: string, body: z.infer<typeof VideoStatusSchema>): TaskStatus & { creations: VideoCreation[]; credits: number | undefined } {
  const inner = unwrap(body);
  const status = inner.state.toLowerCase();
  const creations = (inner.creations ?? []).map((c) => stripNulls(c) as VideoCreation);
  return {
    kind,
    taskId,
    status,
    phase: phaseOf(status, creations.length > 0),
    urls: creations.map((c) => c.url),
    progress: inner.progress ?? undefined,
    errCode: inner.err_code ?? undefined,
    creations,
    credits: inner.credits ?? undefined,
    raw: body,
  };
}

function stripNulls(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null));
}
