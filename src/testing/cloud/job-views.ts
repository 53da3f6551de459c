import { isObject } from '../server/request.js';
import type { JobSnapshot } from '../types/public.js';
import type { Job } from './runner.js';

/**
 * Raw internal states some deployments answer instead of the documented vocabulary; see
 * docs/wire-protocol.md#cloud-job-status-vocabularies.
 */
const RAW_STATUS: Record<Job['status'], string> = {
  pending: 'submitted',
  in_progress: 'executing',
  completed: 'success',
  failed: 'error',
  cancelled: 'cancelled',
};

/**
 * The `GET /api/job/{id}/status` answer in the raw vocabulary (the `rawStatusVocabulary` fault):
 * id, raw state and timestamps.
 *
 * @example
 * rawJobStatus(job); // { id, status: 'success', created_at, updated_at, error_message: null }
 */
export function rawJobStatus(job: Job): Record<string, unknown> {
  return {
    id: job.id,
    status: RAW_STATUS[job.status],
    created_at: new Date(job.createdAt).toISOString(),
    updated_at: new Date(job.updatedAt).toISOString(),
    error_message: job.errorMessage ?? null,
  };
}

/**
 * A time as the jobs routes write it: Unix seconds on the cloud, milliseconds on a local runtime
 * (docs/wire-protocol.md#cloud-job-control-listing-and-queue).
 *
 * @example
 * jobTime(1_700_000_000_123, 'cloud'); // 1700000000.123
 */
export function jobTime(ms: number | undefined, runtime: 'cloud' | 'local'): number | null {
  if (ms === undefined) return null;
  return runtime === 'cloud' ? ms / 1000 : ms;
}

/** The `execution_error` of a failed run, as its socket message told it. */
function executionError(job: Job): Record<string, unknown> | null {
  if (job.status !== 'failed') return null;
  const message = job.messages.find(([type]) => type === 'execution_error')?.[1];
  const { prompt_id: _id, timestamp: _at, ...rest } = message ?? {};
  return message ? rest : { node_id: '', node_type: '', exception_message: job.errorMessage ?? '', exception_type: 'Error', traceback: [] };
}

/** Output file entries of a job (images, videos, audio...), for counts, previews and `output_type`. */
export function outputFiles(job: Job): { kind: string; file: Record<string, unknown> }[] {
  return Object.values(job.outputs).flatMap((ui) =>
    isObject(ui) ? Object.entries(ui).flatMap(([kind, list]) => (Array.isArray(list) ? list.filter(isObject).map((file) => ({ kind, file })) : [])) : [],
  );
}

/**
 * One item of the `GET /api/jobs` list.
 *
 * @example
 * sendJson(res, 200, { jobs: jobs.map((job) => jobListItem(job, 'cloud')), pagination });
 */
export function jobListItem(job: Job, runtime: 'cloud' | 'local'): Record<string, unknown> {
  const files = outputFiles(job);
  return {
    id: job.id,
    status: job.status,
    priority: job.number,
    create_time: jobTime(job.createdAt, runtime),
    execution_start_time: jobTime(job.startedAt, runtime),
    execution_end_time: jobTime(job.endedAt, runtime),
    execution_error: executionError(job),
    outputs_count: files.length,
    preview_output: files[0]?.file ?? null,
  };
}

/**
 * The `GET /api/jobs/{id}` answer: the list item plus outputs, execution status and workflow.
 *
 * @example
 * sendJson(res, 200, jobDetail(job, 'local'));
 */
export function jobDetail(job: Job, runtime: 'cloud' | 'local'): Record<string, unknown> {
  return {
    ...jobListItem(job, runtime),
    outputs: job.outputs,
    execution_status: { status_str: job.status === 'completed' ? 'success' : job.status === 'failed' ? 'error' : job.status, completed: job.status === 'completed', messages: job.messages },
    workflow: { prompt: job.prompt, extra_data: publicExtraData(job) },
  };
}

/**
 * One entry of the `GET /api/history/{id}` answer.
 *
 * @example
 * sendJson(res, 200, { [job.id]: historyEntry(job) });
 */
export function historyEntry(job: Job): Record<string, unknown> {
  return {
    prompt: queueEntry(job, 'local'),
    outputs: job.outputs,
    status: { status_str: job.status === 'completed' ? 'success' : 'error', completed: job.status === 'completed', messages: job.messages },
    meta: Object.fromEntries(Object.keys(job.outputs).map((id) => [id, { node_id: id, display_node: id }])),
  };
}

/**
 * A job as the queue lists it: `[number, id, prompt, fourth, ...]`, where the fourth element is
 * the output list on the cloud and the `extra_data` on a local runtime (which adds the output
 * list fifth); see docs/wire-protocol.md#cloud-local-runtimes.
 *
 * @example
 * queue_running: running.map((job) => queueEntry(job, 'cloud'));
 */
export function queueEntry(job: Job, runtime: 'cloud' | 'local'): unknown[] {
  return runtime === 'cloud' ? [job.number, job.id, job.prompt, job.outputNodes] : [job.number, job.id, job.prompt, publicExtraData(job), job.outputNodes];
}

/** Extra data as it is echoed back: the runtime strips the partner credentials from history. */
function publicExtraData(job: Job): Record<string, unknown> {
  const { api_key_platform_org: _key, auth_token_platform_org: _token, ...rest } = job.extraData;
  return rest;
}

/**
 * A job as `sim.state.jobs()` shows it.
 *
 * @example
 * runner.all().map(jobSnapshot);
 */
export function jobSnapshot(job: Job): JobSnapshot {
  return { id: job.id, number: job.number, status: job.status, clientId: job.clientId, outputs: job.outputs, errorMessage: job.errorMessage };
}
