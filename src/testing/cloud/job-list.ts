import type { Job } from './runner.js';
import { jobListItem, outputFiles } from './job-views.js';

const STATUSES = new Set(['pending', 'in_progress', 'completed', 'failed', 'cancelled']);
const OUTPUT_TYPES: Record<string, string[]> = { image: ['images'], video: ['video', 'videos', 'gifs'], audio: ['audio'] };
// The sort names differ: docs/wire-protocol.md#cloud-job-control-listing-and-queue.
const SORTS = {
  cloud: { create_time: 'created', execution_time: 'duration' },
  local: { created_at: 'created', execution_duration: 'duration' },
} as const;

/**
 * What `GET /api/jobs` answers: `200 {jobs, pagination}`, or `400 {message}` for a parameter the
 * runtime does not take (a sort name of the other runtime, a limit out of range...).
 *
 * @example
 * const { status, body } = listJobs(jobs, url.searchParams, 'cloud');
 */
export function listJobs(jobs: readonly Job[], query: URLSearchParams, runtime: 'cloud' | 'local'): { status: number; body: Record<string, unknown> } {
  const bad = (message: string) => ({ status: 400, body: { message } });
  const statuses = query.get('status')?.split(',').map((s) => s.trim()).filter(Boolean);
  if (statuses?.some((s) => !STATUSES.has(s))) return bad(`status must be a comma-separated list of ${[...STATUSES].join(', ')}`);
  const sortOrder = query.get('sort_order') ?? 'desc';
  if (sortOrder !== 'asc' && sortOrder !== 'desc') return bad('sort_order must be asc or desc');
  const sorts: Record<string, 'created' | 'duration'> = SORTS[runtime];
  const sortName = query.get('sort_by') ?? Object.keys(sorts)[0]!;
  const sortBy = Object.hasOwn(sorts, sortName) ? sorts[sortName] : undefined;
  if (!sortBy) return bad(`sort_by must be one of ${Object.keys(sorts).join(', ')}`);
  const offset = integer(query.get('offset'), 0) ?? null;
  const limit = integer(query.get('limit'), runtime === 'cloud' ? 100 : undefined);
  if (offset === null || offset < 0) return bad('offset must be a non-negative integer');
  if (limit === null || (limit !== undefined && (limit < 1 || (runtime === 'cloud' && limit > 1000)))) return bad(runtime === 'cloud' ? 'limit must be an integer from 1 to 1000' : 'limit must be a positive integer');
  const outputType = runtime === 'cloud' ? query.get('output_type') : null;
  if (outputType !== null && !Object.hasOwn(OUTPUT_TYPES, outputType)) return bad('output_type must be image, video or audio');

  let found = jobs.filter((job) => !statuses || statuses.includes(job.status));
  if (outputType) found = found.filter((job) => outputFiles(job).some((f) => OUTPUT_TYPES[outputType]!.includes(f.kind)));
  const key = (job: Job): number => (sortBy === 'created' ? job.createdAt : job.startedAt !== undefined && job.endedAt !== undefined ? job.endedAt - job.startedAt : -1);
  const sign = sortOrder === 'asc' ? 1 : -1;
  found = [...found].sort((a, b) => sign * (key(a) - key(b) || a.number - b.number));
  const page = found.slice(offset, limit === undefined ? undefined : offset + limit);
  return {
    status: 200,
    body: {
      jobs: page.map((job) => jobListItem(job, runtime)),
      pagination: { offset, limit: limit ?? found.length, total: found.length, has_more: offset + page.length < found.length },
    },
  };
}

/** The parameter as an integer, `fallback` when absent, `null` when it is not one. */
function integer(value: string | null, fallback: number | undefined): number | undefined | null {
  if (value === null || value === '') return fallback;
  return /^\d+$/.test(value) ? Number(value) : null;
}
