// One page of the runs in a state: BullMQ's lists for that state, read in one call, kept to the
// runs in that state (docs/queue.md#api: a page can hold fewer than `limit`).
import type { Job, Queue } from 'bullmq';
import { Checker } from '../core/index.js';
import type { ListRunsOptions, RunPage } from './option-types.js';
import { toRunInfo, type JobPlace } from './run-info.js';
import type { RunState } from './types.js';

/** Where BullMQ keeps the runs of each state. */
const PLACES: Record<RunState, readonly ('waiting' | 'prioritized' | 'delayed' | 'active' | 'completed' | 'failed')[]> = {
  queued: ['waiting', 'prioritized', 'delayed'],
  submitting: ['active', 'waiting', 'prioritized', 'delayed'],
  running: ['active', 'waiting', 'prioritized', 'delayed'],
  completed: ['completed'],
  failed: ['failed'],
  cancelled: ['failed'],
  unknown: ['failed'],
};

/**
 * Reads one page of `queue.list()`, oldest first.
 *
 * @throws `ValidationError` for a bad state, offset or limit.
 * @example
 * ```ts
 * const page = await listRuns(queue, { state: 'failed', limit: 50 });
 * ```
 */
export async function listRuns(queue: Queue, options: ListRunsOptions | undefined): Promise<RunPage> {
  const check = new Checker();
  const state = options?.state ?? 'queued';
  check.oneOf('options.state', state, Object.keys(PLACES));
  check.integer('options.offset', options?.offset, { min: 0 });
  check.integer('options.limit', options?.limit, { min: 1, max: 1000 });
  check.throwIfInvalid('queue.list()');
  const offset = options?.offset ?? 0;
  const limit = options?.limit ?? 100;
  // One more than a page: whether more follow.
  const jobs = (await queue.getJobs([...PLACES[state]], offset, offset + limit, true)) as Job[];
  const infos = await Promise.all(jobs.slice(0, limit).map(async (job) => toRunInfo(job, (await job.getState()) as JobPlace)));
  return { runs: infos.filter((info) => info.state === state), offset, hasMore: jobs.length > limit };
}
