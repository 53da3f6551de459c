// Finding a submission whose answer was lost: its worker tagged it with the run's id
// (`extra_data.graphcloud_run`) and marked the run "submitting" before sending, so the worker that
// takes the run over lists the jobs created around the mark (`jobs.list`) and reads each one's
// `extra_data` (`jobs.get`), nearest the mark first. On a local runtime the prompt id was chosen before sending: one read.
import type { CloudClient } from '../cloud/client.js';

/** The `extra_data` field that tags a submission with its run's id. */
export const RUN_TAG = 'graphcloud_run';
/** Clocks of two machines disagree: the search starts this long before the run was marked, and ends this long after its window. */
const CLOCK_MARGIN_MS = 120_000;
/** Jobs listed, at most, to find the ones created around the mark (pages of the cloud's largest size). */
const MAX_LISTED = 50_000;
const PAGE_SIZE = 1000;

/**
 * The prompt id of the job tagged with `runId` among the jobs created around `since` (from a
 * clock margin before it to the end of the recovery window `windowMs` after it, plus the margin),
 * and how many jobs were read; `promptId` is `undefined` when none carries the tag. The listing is
 * paged newest first down to the margin before the mark; each candidate's `extra_data` is read
 * (`jobs.get`) nearest the mark first, at most `limit` of them, so a busy account's later jobs do
 * not push the tagged one past the bound.
 *
 * @example
 * ```ts
 * const { promptId, searched } = await findTaggedJob(cloud, 'order-1234', stage.since, 500, 45_000);
 * ```
 */
export async function findTaggedJob(cloud: CloudClient, runId: string, since: number, limit: number, windowMs: number): Promise<{ promptId: string | undefined; searched: number }> {
  const from = since - CLOCK_MARGIN_MS;
  const to = since + windowMs + CLOCK_MARGIN_MS;
  // Offsets shift as jobs are created while paging: a job may be listed twice, never skipped.
  const candidates = new Map<string, number>();
  let listed = 0;
  for await (const job of cloud.jobs.listAll({ sortBy: 'createdAt', sortOrder: 'desc', limit: PAGE_SIZE })) {
    if (job.createdAt !== undefined && job.createdAt < from) break;
    if (++listed > MAX_LISTED) break;
    if (job.createdAt !== undefined && job.createdAt > to) continue;
    // A job without a creation time is read first: nothing places it away from the mark.
    candidates.set(job.promptId, job.createdAt === undefined ? 0 : Math.abs(job.createdAt - since));
  }
  const nearestFirst = [...candidates].sort((a, b) => a[1] - b[1]).slice(0, limit);
  let searched = 0;
  for (const [promptId] of nearestFirst) {
    searched += 1;
    const detail = await cloud.jobs.get(promptId);
    if (detail?.extraData?.[RUN_TAG] === runId) return { promptId, searched };
  }
  return { promptId: undefined, searched };
}

/**
 * Whether the local runtime knows the job of a prompt id chosen before sending.
 *
 * @example
 * ```ts
 * if (await localJobExists(cloud, stage.chosenPromptId)) watch(stage.chosenPromptId);
 * ```
 */
export async function localJobExists(cloud: CloudClient, promptId: string): Promise<boolean> {
  return (await cloud.jobs.get(promptId)) !== undefined;
}
