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
 * The `GET /api/jobs/{id}` answer.
 *
 * @example
 * sendJson(res, 200, jobDetail(job));
 */
export function jobDetail(job: Job): Record<string, unknown> {
  const images = Object.values(job.outputs).flatMap((ui) => (isObject(ui) && Array.isArray(ui.images) ? ui.images : []));
  return {
    id: job.id,
    status: job.status,
    priority: job.number,
    create_time: job.createdAt,
    execution_start_time: job.startedAt ?? null,
    execution_end_time: job.endedAt ?? null,
    execution_error: job.status === 'failed' ? { exception_message: job.errorMessage ?? '' } : null,
    outputs_count: images.length,
    preview_output: images[0] ?? null,
    outputs: job.outputs,
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
    prompt: queueEntry(job),
    outputs: job.outputs,
    status: { status_str: job.status === 'completed' ? 'success' : 'error', completed: job.status === 'completed', messages: job.messages },
    meta: Object.fromEntries(Object.keys(job.outputs).map((id) => [id, { node_id: id, display_node: id }])),
  };
}

/**
 * A job as the queue and the history list it: `[number, id, prompt, extra_data, output nodes]`.
 *
 * @example
 * queue_running: running.map(queueEntry);
 */
export function queueEntry(job: Job): unknown[] {
  return [job.number, job.id, job.prompt, publicExtraData(job), job.outputNodes];
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
