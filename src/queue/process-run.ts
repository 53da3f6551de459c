// What a worker does with one run, in the order that keeps the account from paying twice: a run
// with a stored prompt or task id is watched, never sent again; a run marked "submitting" is
// looked for (findTaggedJob(), below), and ends `unknown` when not found; only a fresh run is sent, after it
// is marked "submitting" and tagged with its id, and its id is stored the moment the answer names
// it. See docs/queue.md#guarantees-and-how-each-is-kept.
import { DelayedError, UnrecoverableError, WaitingError, type Job } from 'bullmq';
import { ConnectionError, GraphcloudError, TimeoutError } from '../core/index.js';
import type { CloudClient } from '../cloud/client.js';
import { InvalidWorkflowError, JobFailedError, SubmissionUnknownError } from '../cloud/shared/errors.js';
import { splitIssues } from '../cloud/workflow/validate.js';
import type { JobResult } from '../cloud/shared/types.js';
import type { ProxyClient } from '../proxy/client.js';
import { readRunData, type RunData, type RunStage } from './run.js';
import { isAccountRefusal, RunUnknownError, toErrorInfo } from './errors.js';
import { followProgress, type ProgressWrites } from './progress.js';
import type { RunStore } from './store.js';
import type { PauseReason, RunState } from './types.js';
import { reserveRun, settleRun, type RunBudget } from './budget.js';

/**
 * What processing a run needs from its worker.
 *
 * @example
 * ```ts
 * const deps: ProcessDeps = { cloud, proxy, runtime: url, local: true, store, publish, pauseQueue, runtimeDown, progressIntervalMs: 250, recoverScanLimit: 500, submitTimeoutMs: 30_000, recoverWindowMs: 45_000, log };
 * ```
 */
export interface ProcessDeps {
  cloud: CloudClient | undefined;
  proxy: ProxyClient | undefined;
  runtime: string;
  local: boolean;
  store: RunStore;
  publish(runId: string, state: RunState, ids?: { promptId?: string | undefined; taskId?: string | undefined }): Promise<void>;
  pauseQueue(reason: PauseReason): Promise<void>;
  /** A local runtime stopped answering before a run was sent: pause this worker and probe. */
  runtimeDown(): void;
  progressIntervalMs: number;
  recoverScanLimit: number;
  /** The time limit of one submission, across its attempts. */
  submitTimeoutMs: number;
  /** How long after its mark a run's submission may still create its job (QUEUE_DEFAULTS.recoverWindowMs). */
  recoverWindowMs: number;
  log(line: string): void;
  /** The queue's budget (reserved before a run is sent, settled when it ends). */
  budget?: RunBudget | undefined;
}

/**
 * The controls of one run in flight: `signal` is the processor's signal BullMQ gives it, aborted by
 * `worker.cancelJob(runId, reason)` to stop the wait and return the run to the queue with its
 * stored ids (`reason`: `'close'`, or `'runtime-down'` on a local runtime); `cancel` is called when
 * a cancel is requested for it.
 *
 * @example
 * ```ts
 * inFlight.get(runId)?.cancel();
 * ```
 */
export interface RunControl {
  signal: AbortSignal;
  cancel: () => void;
  /** A cancel request seen before the watch began (read with the stored answer, or a message that came early). */
  cancelRequested?: boolean;
}

/** Why a run went back to the queue: the one thrown value BullMQ reads as "moved back to wait". */
async function handBack(job: Job, token: string | undefined, data: RunData, stage: RunStage | undefined): Promise<never> {
  await job.updateData({ ...data, stage });
  await job.moveToWait(token);
  throw new WaitingError();
}

/**
 * Runs one job of the queue to its end (returning its result) or hands it back.
 *
 * @throws `WaitingError` when the run went back to the queue; `UnrecoverableError` when it ended without completing (its outcome is stored first).
 * @example
 * ```ts
 * new Worker(name, (job, token) => processRun(deps, job, token, control), options);
 * ```
 */
export async function processRun(deps: ProcessDeps, job: Job, token: string | undefined, control: RunControl): Promise<unknown> {
  const runId = String(job.id);
  const data = readRunData(job.data);
  if (!data) throw new UnrecoverableError('not a graphcloud run');
  let stage = data.stage;
  if (stage !== undefined) data.takeovers = (data.takeovers ?? 0) + 1;
  const end = async (state: 'failed' | 'cancelled' | 'unknown', error: unknown, result?: JobResult): Promise<never> => {
    await job.updateData({ ...data, stage, outcome: { state, error: toErrorInfo(error), result } });
    // Refused or cancelled before its id was known: never sent, the reservation goes back.
    await settleRun(deps, runId, result, state === 'unknown' || stage?.promptId !== undefined || stage?.taskId !== undefined);
    await deps.publish(runId, state, { promptId: stage?.promptId, taskId: stage?.taskId });
    throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
  };
  if (stage?.state === 'submitting' && stage.promptId === undefined && stage.taskId === undefined) {
    stage = await recover(deps, job, token, runId, stage, end);
  }
  if (stage === undefined) {
    // Closing before anything was sent: back to the queue as it came.
    if (control.signal.aborted) return handBack(job, token, data, undefined);
    if (data.work.kind === 'task') stage = await submitTask(deps, job, token, data, runId, control, end);
    else stage = await submitWorkflow(deps, job, token, data, runId, control, end);
  } else if (data.takeovers !== undefined) {
    deps.log(`run ${runId}: taken over, watching ${stage.promptId ?? stage.taskId ?? '(its job)'}`);
    await job.updateData({ ...data, stage });
  }
  let result: unknown;
  try {
    result = await watch(deps, job, token, data, stage, control, end);
  } catch (error) {
    // Handed back, delayed, ended (settled there) or another worker's now: settled later or already.
    // Anything else fails the run while its job may run on: counted at its reservation.
    if (!(error instanceof WaitingError || error instanceof DelayedError || error instanceof UnrecoverableError || error instanceof LostHoldError)) await settleRun(deps, runId, undefined, true);
    throw error;
  }
  await settleRun(deps, runId, result, true);
  return result;
}

type End = (state: 'failed' | 'cancelled' | 'unknown', error: unknown, result?: JobResult) => Promise<never>;

const cancelledBeforeSending = (end: End) => end('cancelled', new Error('cancelled before it was submitted: never sent'));

/**
 * A worker that lost its hold on a run (its lock lapsed: a Redis outage, a stall) and another took
 * it: it writes and sends nothing more for it. BullMQ refuses to end a job whose lock is not ours.
 */
class LostHoldError extends GraphcloudError {
  constructor(runId: string, step: string) {
    super(`run ${runId}: this worker no longer holds it (its lock lapsed) ${step}; left to the worker that took it over`);
  }
  override name = 'LostHoldError';
}

/**
 * A run whose worker stopped between marking it and storing the answer: find its job; within the
 * recovery window of its mark (its request may still create the job) put it back, delayed to the
 * window's end; after it, end `unknown`.
 */
async function recover(deps: ProcessDeps, job: Job, token: string | undefined, runId: string, stage: RunStage, end: End): Promise<RunStage | undefined> {
  const cloud = deps.cloud;
  if (stage.local) {
    // Submitted elsewhere (another runtime of the pool), or lost with it: free to send again here.
    if (stage.runtime !== deps.runtime || !cloud || stage.chosenPromptId === undefined) return undefined;
    const found = await localJobExists(cloud, stage.chosenPromptId);
    return found ? { ...stage, state: 'running', promptId: stage.chosenPromptId } : undefined;
  }
  const windowEnd = stage.since + deps.recoverWindowMs;
  const laterOrUnknown = async (searched: number): Promise<never> => {
    if (Date.now() >= windowEnd) return end('unknown', new RunUnknownError(runId, stage.runtime, stage.since, searched));
    // Its worker may still be sending (or about to store the answer): look again at the window's end.
    deps.log(`run ${runId}: marked submitting ${Date.now() - stage.since} ms ago, not found yet: looking again at the end of the recovery window`);
    await job.moveToDelayed(windowEnd, token);
    throw new DelayedError();
  };
  // A media task carries no tag: only the answer its worker stores can name its task.
  if (!cloud || stage.taskKind !== undefined) return laterOrUnknown(0);
  const { promptId, searched } = await findTaggedJob(cloud, runId, stage.since, deps.recoverScanLimit, deps.recoverWindowMs);
  if (promptId === undefined) return laterOrUnknown(searched);
  deps.log(`run ${runId}: found its submission ${promptId} among ${searched} jobs`);
  return { ...stage, state: 'running', promptId };
}

/** Marks the run submitting (tagged, and with its prompt id chosen on a local runtime), sends it, stores the answer. */
async function submitWorkflow(deps: ProcessDeps, job: Job, token: string | undefined, data: RunData, runId: string, control: RunControl, end: End): Promise<RunStage> {
  const cloud = deps.cloud;
  if (!cloud || data.work.kind !== 'workflow') return end('failed', new Error('this worker has no cloud or runtime to run workflows'));
  // Checked against the node catalog before the mark (the catalog read can take a while): a worker
  // that dies while checking leaves a run nobody has to search for.
  try {
    const { errors } = splitIssues(await cloud.validateWorkflow(data.work.workflow, { timeout: deps.submitTimeoutMs, totalTimeout: deps.submitTimeoutMs }));
    if (errors.length > 0) return end('failed', new InvalidWorkflowError(errors, 'RunWorker'));
  } catch (error) {
    // Nothing was sent: a catalog that cannot be reached (refused, reset, slow) puts the run back
    // in line, for this runtime when it answers again or for another.
    if (error instanceof ConnectionError || error instanceof TimeoutError) {
      if (deps.local) deps.runtimeDown();
      return handBack(job, token, data, undefined);
    }
    return afterRefusal(deps, job, token, data, runId, undefined, error, end);
  }
  try {
    const budget = await reserveRun(deps, cloud, runId, data.work.workflow);
    if (budget !== 'go') return handBack(job, token, data, undefined);
  } catch (error) {
    return end('failed', error);
  }
  const chosen = deps.local ? globalThis.crypto.randomUUID() : undefined;
  const marked = await mark(deps, job, token, data, runId, { state: 'submitting', since: Date.now(), runtime: deps.runtime, local: deps.local, chosenPromptId: chosen }, end);
  let promptId: string;
  try {
    const bound = { timeout: deps.submitTimeoutMs, totalTimeout: deps.submitTimeoutMs };
    ({ promptId } = await cloud.jobs.submit(data.work.workflow, { extraData: { [RUN_TAG]: runId }, promptId: chosen, partnerApiKey: data.work.partnerApiKey, validate: false, ...bound }));
  } catch (error) {
    return afterRefusal(deps, job, token, data, runId, marked, error, end);
  }
  return storeAnswer(deps, job, token, data, runId, marked, { promptId }, control);
}

/** Sends a media task and stores its task id. */
async function submitTask(deps: ProcessDeps, job: Job, token: string | undefined, data: RunData, runId: string, control: RunControl, end: End): Promise<RunStage> {
  const proxy = deps.proxy;
  if (!proxy || data.work.kind !== 'task') return end('failed', new Error('this worker has no proxy to run media tasks'));
  const [family, kind] = data.work.task.split('.') as ['image' | 'video', string];
  const method = (proxy[family] as unknown as Record<string, ((params: unknown) => Promise<{ taskId: string }>) | undefined>)[kind];
  if (typeof method !== 'function') return end('failed', new Error(`unknown task ${data.work.task}`));
  const marked = await mark(deps, job, token, data, runId, { state: 'submitting', since: Date.now(), runtime: proxy.baseUrl, local: false, taskKind: kind }, end);
  let taskId: string;
  try {
    ({ taskId } = await method.call(proxy[family], data.work.params));
  } catch (error) {
    return afterRefusal(deps, job, token, data, runId, marked, error, end);
  }
  return storeAnswer(deps, job, token, data, runId, marked, { taskId }, control);
}

/**
 * Marks the run submitting on its job, before the request leaves, in one step with the checks that
 * no cancel is requested (then it ends `cancelled`, never sent) and that this worker still holds it
 * (a worker whose lock lapsed, while another may have read the run unmarked and be sending it,
 * writes nothing and sends nothing); the `submitting` event goes out in the same step.
 */
async function mark(deps: ProcessDeps, job: Job, token: string | undefined, data: RunData, runId: string, stage: RunStage, end: End): Promise<RunStage> {
  const next = { ...data, stage };
  if (token === undefined) {
    if (await deps.store.cancelRequested(runId)) return cancelledBeforeSending(end);
    await job.updateData(next);
    void deps.publish(runId, 'submitting');
    return stage;
  }
  const marked = await deps.store.mark(runId, token, next);
  if (marked === 'cancel') return cancelledBeforeSending(end);
  if (marked === 'lost') throw new LostHoldError(runId, 'before sending it');
  return stage;
}

/**
 * Stores the id the answer named, before anything else: from here on, no worker sends this run
 * again. Stored even when the hold lapsed while sending (the worker that took the run over waits
 * out the recovery window and then watches this id); then this worker leaves the run to it. The
 * `running` event, the check of the hold and the read of a cancel request go in the same step.
 */
async function storeAnswer(deps: ProcessDeps, job: Job, token: string | undefined, data: RunData, runId: string, marked: RunStage, ids: { promptId?: string; taskId?: string }, control: RunControl): Promise<RunStage> {
  const stage: RunStage = { ...marked, state: 'running', ...ids };
  const { cancel, held } = await deps.store.storeAnswer(runId, token, { ...data, stage }, ids);
  if (!held) throw new LostHoldError(runId, `after storing ${ids.promptId ?? ids.taskId ?? ''}`);
  control.cancelRequested = control.cancelRequested === true || cancel;
  return stage;
}

/** What a failed submission (or check before it: `marked` undefined) means for the run: back to the queue, `unknown`, or failed. */
async function afterRefusal(deps: ProcessDeps, job: Job, token: string | undefined, data: RunData, runId: string, marked: RunStage | undefined, error: unknown, end: End): Promise<RunStage> {
  if (isAccountRefusal(error)) {
    // Every run would meet it: pause the queue, say why, and put this run back in line.
    await deps.pauseQueue({ kind: 'account', error: toErrorInfo(error), runId, at: Date.now() });
    deps.log(`run ${runId}: ${toErrorInfo(error).name}; queue paused`);
    return handBack(job, token, data, undefined);
  }
  if (error instanceof ConnectionError && error.notSent) {
    // Certainly not sent: another worker (another runtime of the pool) may take it.
    if (deps.local) deps.runtimeDown();
    return handBack(job, token, data, undefined);
  }
  if (marked !== undefined && error instanceof SubmissionUnknownError) {
    // Sent, answer lost: look for it as a taking-over worker would.
    const stage = await recover(deps, job, token, runId, marked, end);
    if (stage === undefined) return handBack(job, token, data, undefined);
    await job.updateData({ ...data, stage });
    return stage;
  }
  return end('failed', error);
}

/** Watches the stored job to its end; a cancel request cancels it once; a hand-back returns the run with its ids. */
async function watch(deps: ProcessDeps, job: Job, token: string | undefined, data: RunData, stage: RunStage, control: RunControl, end: End): Promise<unknown> {
  const runId = String(job.id);
  let cancelling: Promise<unknown> | undefined;
  const cancel = async () => {
    if (!(await deps.store.claimCloudCancel(runId))) return;
    if (stage.promptId !== undefined && deps.cloud) await deps.cloud.jobs.cancel(stage.promptId).catch((error: unknown) => deps.log(`run ${runId}: cancel failed: ${String(error)}`));
    // A cancel asks; the job's own end decides the run's (docs/cloud.md#job-control).
    deps.log(`run ${runId}: asked to cancel its job ${stage.promptId ?? stage.taskId ?? ''}`);
  };
  const seen = control.cancelRequested;
  control.cancel = () => void (cancelling ??= cancel());
  // Read with the stored answer (storeAnswer), else here: after `control.cancel` is set, so a
  // request in between reaches it as a message.
  if (seen === true || (seen === undefined && (await deps.store.cancelRequested(runId)))) control.cancel();
  const signal = control.signal;
  let writes: ProgressWrites | undefined;
  try {
    if (stage.taskId !== undefined) {
      if (!deps.proxy || stage.taskKind === undefined) return await end('failed', new Error('this worker has no proxy to follow media tasks'));
      return await deps.proxy.waitForTask({ kind: stage.taskKind, taskId: stage.taskId }, { signal });
    }
    const cloud = deps.cloud;
    const promptId = stage.promptId as string;
    if (!cloud) return await end('failed', new Error('this worker has no cloud to follow the job'));
    // The workflow names the output nodes: their `executed` messages complete the outputs, with no read of the job record.
    const watcher = cloud.jobs.watch(promptId, { signal, waitTimeout: false, ...(data.work.kind === 'workflow' ? { workflow: data.work.workflow } : {}) });
    writes = followProgress(watcher, deps.progressIntervalMs, (progress) => job.updateProgress(progress));
    const result = await watcher.result();
    if (result.status === 'completed') {
      // The runtime stops a run only between nodes: one cancelled in its last node completes, and is paid.
      if (result.cancelRequested === true) deps.log(`run ${runId}: its job ${promptId} completed before the cancel could stop it; the run keeps its outputs`);
      return result;
    }
    await writes.flush();
    return await end(result.status === 'cancelled' ? 'cancelled' : 'failed', new JobFailedError(result as JobResult & { status: 'failed' | 'cancelled' }), result);
  } catch (error) {
    if (!signal.aborted || error instanceof UnrecoverableError) throw error;
    const reason: unknown = signal.reason;
    // A local run lost with its runtime costs nothing to send again: to the queue without its ids.
    const keep = reason === 'runtime-down' && stage.local ? undefined : stage;
    deps.log(`run ${runId}: handed back (${String(reason)})${keep ? ` with ${stage.promptId ?? stage.taskId}` : ''}`);
    return handBack(job, token, data, keep);
  } finally {
    // A completed run's end tells its progress: what is pending is not written.
    writes?.stop();
    await cancelling;
  }
}

// Finding a submission whose answer was lost: its worker tagged it with the run's id
// (`extra_data.graphcloud_run`) and marked the run "submitting" before sending, so the worker that
// takes the run over lists the jobs created around the mark (`jobs.list`) and reads each one's
// `extra_data` (`jobs.get`), nearest the mark first. On a local runtime the prompt id was chosen before sending: one read.

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
