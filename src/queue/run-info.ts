// A BullMQ job read as a run: its state from where the job is and what its worker stored.
import type { Job } from 'bullmq';
import { readRunData, type RunData } from './data.js';
import type { Tombstone } from './store.js';
import type { RunInfo, RunProgress, RunState } from './types.js';
import type { RunCost } from '../cloud/shared/types.js';
import { isRecord } from '../core/index.js';

/** BullMQ's places of a job. */
export type JobPlace = 'completed' | 'failed' | 'delayed' | 'active' | 'waiting' | 'waiting-children' | 'prioritized' | 'unknown';

/**
 * The run's state: ended by where BullMQ keeps it, otherwise by the stage its worker stored (a run
 * handed back with its prompt id is `running`: its job runs on the cloud while it waits).
 *
 * @example
 * ```ts
 * runState('active', data); // 'running' once data.stage.promptId is stored
 * ```
 */
export function runState(place: JobPlace, data: RunData | undefined): RunState {
  if (place === 'completed') return 'completed';
  if (place === 'failed') return data?.outcome?.state ?? 'failed';
  const stage = data?.stage;
  if (stage?.promptId !== undefined || stage?.taskId !== undefined) return 'running';
  if (stage?.state === 'submitting') return 'submitting';
  return 'queued';
}

/**
 * What `queue.get()` tells of a job.
 *
 * @example
 * ```ts
 * const info = toRunInfo(job, await job.getState());
 * ```
 */
export function toRunInfo(job: Job, read: JobPlace): RunInfo {
  // A job read before it finished, its place after: the snapshot is of a job still in flight.
  const place = (read === 'completed' || read === 'failed') && job.finishedOn === undefined ? 'active' : read;
  const data = readRunData(job.data);
  const state = runState(place, data);
  const progress = typeof job.progress === 'object' && job.progress !== null && typeof (job.progress as RunProgress).fraction === 'number' ? (job.progress as RunProgress) : undefined;
  return {
    id: String(job.id),
    state,
    kind: data?.work.kind ?? 'workflow',
    promptId: data?.stage?.promptId ?? (data?.stage?.local ? data.stage.chosenPromptId : undefined),
    taskId: data?.stage?.taskId,
    runtime: data?.stage?.runtime,
    progress: state === 'completed' ? { fraction: 1 } : progress,
    result: state === 'completed' ? job.returnvalue : data?.outcome?.result,
    error: data?.outcome?.error ?? (place === 'failed' ? { name: 'Error', message: job.failedReason } : undefined),
    addedAt: data?.addedAt ?? job.timestamp,
    endedAt: job.finishedOn,
    takeovers: data?.takeovers ?? 0,
    cost: readCost(state === 'completed' ? job.returnvalue : data?.outcome?.result),
  };
}

/**
 * What `queue.get()` tells of a queued run removed by a cancel.
 *
 * @example
 * ```ts
 * const info = tombstoneInfo('order-1234', tombstone);
 * ```
 */
export function tombstoneInfo(id: string, tombstone: Tombstone): RunInfo {
  return {
    id, state: 'cancelled', kind: tombstone.kind, promptId: undefined, taskId: undefined, runtime: undefined, progress: undefined, result: undefined,
    error: { name: 'RunCancelledError', message: 'cancelled while queued: never submitted' }, addedAt: tombstone.addedAt, endedAt: tombstone.endedAt, takeovers: 0, cost: undefined,
  };
}

/**
 * The `cost` of a stored job result (JSON read back from Redis), when it has the shape the SDK
 * wrote: credits and USD as finite numbers, credits by node.
 *
 * @example
 * ```ts
 * readCost(job.returnvalue); // { credits: 42.2, usd: 0.2, byNode: { '4': 42.2 } } or undefined
 * ```
 */
export function readCost(result: unknown): RunCost | undefined {
  const cost: unknown = isRecord(result) ? result.cost : undefined;
  if (!isRecord(cost) || !Number.isFinite(cost.credits) || !Number.isFinite(cost.usd) || !isRecord(cost.byNode)) return undefined;
  const byNode: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const [node, credits] of Object.entries(cost.byNode)) if (typeof credits === 'number' && Number.isFinite(credits)) byNode[node] = credits;
  return { credits: cost.credits as number, usd: cost.usd as number, byNode };
}
