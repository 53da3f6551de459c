// Finding a submission whose answer was lost: its worker tagged it with the run's id
// (`extra_data.graphcloud_run`) and marked the run "submitting" before sending, so the worker that
// takes the run over reads the jobs created since (newest first, `jobs.list`) and each one's
// `extra_data` (`jobs.get`). On a local runtime the prompt id was chosen before sending: one read.
import type { CloudClient } from '../cloud/client.js';

/** The `extra_data` field that tags a submission with its run's id. */
export const RUN_TAG = 'graphcloud_run';
/** Clocks of two machines disagree: the search starts this long before the run was marked. */
const CLOCK_MARGIN_MS = 120_000;

/**
 * The prompt id of the job tagged with `runId` among the jobs created since `since`, and how many
 * jobs were read; `promptId` is `undefined` when none carries the tag.
 *
 * @example
 * ```ts
 * const { promptId, searched } = await findTaggedJob(cloud, 'order-1234', stage.since, 500);
 * ```
 */
export async function findTaggedJob(cloud: CloudClient, runId: string, since: number, limit: number): Promise<{ promptId: string | undefined; searched: number }> {
  const from = since - CLOCK_MARGIN_MS;
  let searched = 0;
  for await (const job of cloud.jobs.listAll({ sortBy: 'createdAt', sortOrder: 'desc', limit: 100 })) {
    if (job.createdAt !== undefined && job.createdAt < from) break;
    if (searched >= limit) break;
    searched += 1;
    const detail = await cloud.jobs.get(job.promptId);
    if (detail?.extraData?.[RUN_TAG] === runId) return { promptId: job.promptId, searched };
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
