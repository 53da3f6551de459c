// A local runtime without `GET /api/jobs` (ComfyUI 0.3.77) lists jobs from its queue and
// `GET /history` (docs/wire-protocol.md#cloud-local-runtimes): each is read into the listing's own
// `JobSummary`, and the listing's filters, order and paging are applied here, by the client.
import type { JobPage, JobQueue, JobSummary, ListJobsParams } from './job-types.js';
import { toEpochMs, toErrorInfo } from './job-wire.js';
import { listOutputFiles } from './outputs.js';
import { AnyObjectSchema, toOutputs } from './schemas.js';
import { historyStatus, type StatusMapping } from './status.js';

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
  const status = AnyObjectSchema.safeParse(data.status);
  const messages = status.success && Array.isArray(status.data.messages) ? status.data.messages : [];
  const message = (types: readonly string[]): Record<string, unknown> | undefined => {
    const found = messages.find((m: unknown) => Array.isArray(m) && types.includes(m[0]));
    const parsed = AnyObjectSchema.safeParse(Array.isArray(found) ? found[1] : undefined);
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
    createdAt: time(extra.success ? extra.data.create_time : undefined),
    startedAt,
    endedAt,
    durationMs: startedAt !== undefined && endedAt !== undefined && endedAt >= startedAt ? endedAt - startedAt : undefined,
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
  const queued = [...queue.running, ...queue.pending].map((item): JobSummary => ({
    promptId: item.promptId,
    status: item.status,
    raw: `queue:${item.status}`,
    createdAt: undefined,
    startedAt: undefined,
    endedAt: undefined,
    durationMs: undefined,
    number: item.number,
    error: undefined,
    outputsCount: undefined,
    preview: undefined,
    workflowId: undefined,
  }));
  const inQueue = new Set(queued.map((job) => job.promptId));
  const done = Object.keys(history).filter((id) => !inQueue.has(id)).map((id) => historySummary(id, history[id], statusMap));
  const wanted = params.status === undefined ? undefined : new Set(typeof params.status === 'string' ? [params.status] : params.status);
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
