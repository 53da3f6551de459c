// A run from its spec to its record: checked and made ready when it is added, in the adding process
// (uploads go to the cloud, which stores them by content: no worker needs the adder's disk); kept
// on its BullMQ job as JSON only, bounded in bytes: the prepared work (never file bytes), the
// stage its worker reached (the prompt or task id the moment it is known) and how it ended; its
// state and its RunInfo from where BullMQ keeps the job; one page of the runs in a state. The one
// place that reads and writes that shape, and that bounds its size.
import type { Job, Queue } from 'bullmq';
import { Checker, isPlainObject, isRecord, ValidationError, type RequestOptions } from '../core/index.js';
import { runParts, type CloudClient } from '../cloud/client.js';
import type { JobResult, RunCost, Workflow } from '../cloud/shared/types.js';
import { placeInputs, prepareRun, readUploads, uploadRun } from '../cloud/run-workflow.js';
import { checkWorkflowArgument } from '../cloud/submit.js';
import { isUiWorkflow } from '../cloud/workflow/validate.js';
import { builderNeedsCatalog, builtWorkflow, isWorkflowBuilder } from '../cloud/workflow/builder.js';
import type { Tombstone } from './store.js';
import type { ListRunsOptions, RunErrorInfo, RunInfo, RunPage, RunProgress, RunSpec, RunState, TaskRunSpec, WorkflowRunSpec } from './types.js';

/**
 * The work of a run, ready to submit: an API-format workflow with its inputs and uploaded names
 * written in, or a media task.
 *
 * @example
 * ```ts
 * const work: RunWork = { kind: 'workflow', workflow: api };
 * ```
 */
export type RunWork = { kind: 'workflow'; workflow: Workflow; partnerApiKey?: boolean | undefined } | { kind: 'task'; task: string; params: Record<string, unknown> };

/**
 * How far a worker got: `submitting` is written before the request is sent, `running` the moment
 * its answer names the job.
 *
 * @example
 * ```ts
 * const stage: RunStage = { state: 'running', since, runtime: url, promptId };
 * ```
 */
export interface RunStage {
  state: 'submitting' | 'running';
  /** When the worker marked the run submitting, in ms since the epoch (the search for a lost answer starts here, less a margin). */
  since: number;
  /** The runtime sent to (its base URL). */
  runtime: string;
  /** Whether that runtime is local (a lost run there may be submitted again: it costs nothing). */
  local: boolean;
  /** The prompt id chosen before sending (a local runtime keeps it). */
  chosenPromptId?: string | undefined;
  promptId?: string | undefined;
  taskId?: string | undefined;
  taskKind?: string | undefined;
}

/**
 * Everything kept on the BullMQ job of a run.
 *
 * @example
 * ```ts
 * await job.updateData({ ...data, stage });
 * ```
 */
export interface RunData {
  v: 1;
  work: RunWork;
  addedAt: number;
  stage?: RunStage | undefined;
  takeovers?: number | undefined;
  /** How a run that did not complete ended. */
  outcome?: { state: 'failed' | 'cancelled' | 'unknown'; error: RunErrorInfo; result?: JobResult | undefined } | undefined;
}

const TASK_NAME = /^(image|video)\.[A-Za-z][A-Za-z0-9]*$/;

/**
 * Checks a run's spec before anything is uploaded or stored; records each problem on `check`.
 *
 * @example
 * ```ts
 * checkRunSpec(check, spec);
 * ```
 */
export function checkRunSpec(check: Checker, spec: unknown): void {
  if (!isPlainObject(spec)) return check.fail('spec', '{ workflow, inputs?, uploads? } or { task, params }', typeof spec);
  if ('task' in spec) {
    if (typeof spec.task !== 'string' || !TASK_NAME.test(spec.task)) check.fail('spec.task', 'a proxy method such as "image.upscale" or "video.textToVideo"', spec.task);
    if (!isPlainObject(spec.params)) check.fail('spec.params', 'an object of the task parameters', typeof spec.params);
    else checkJson(check, 'spec.params', spec.params);
    return;
  }
  checkWorkflowArgument(check, spec.workflow);
  if (spec.inputs !== undefined) {
    if (!isPlainObject(spec.inputs)) check.fail('spec.inputs', 'an object of "<node>.<input>" addresses to values', typeof spec.inputs);
    else checkJson(check, 'spec.inputs', spec.inputs);
  }
  if (spec.uploads !== undefined && !isPlainObject(spec.uploads)) check.fail('spec.uploads', 'an object of "<node>.<input>" addresses to files', typeof spec.uploads);
  if (spec.partnerApiKey !== undefined && typeof spec.partnerApiKey !== 'boolean') check.fail('spec.partnerApiKey', 'a boolean', spec.partnerApiKey);
}

/** JSON values only: Redis holds no file bytes (files go in `uploads`, or behind URLs). */
function checkJson(check: Checker, path: string, value: unknown, depth = 0): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) check.fail(path, 'a finite number', value);
    return;
  }
  if (depth > 64) return check.fail(path, 'JSON nested at most 64 deep', '(deeper)');
  if (Array.isArray(value)) return value.forEach((item, i) => checkJson(check, `${path}[${i}]`, item, depth + 1));
  if (isPlainObject(value)) return Object.entries(value).forEach(([key, item]) => checkJson(check, `${path}.${key}`, item, depth + 1));
  check.fail(path, 'a JSON value (files go in uploads, or behind a URL: Redis holds no file bytes)', value instanceof Uint8Array ? 'bytes' : typeof value);
}

/**
 * The run's work, ready for any worker: prepared as `cloud.runWorkflow()` prepares a run
 * (`prepareRun()`: converted, inputs placed; `uploadRun()`: files uploaded through `cloud` and
 * their names written in), without the check against the node definitions, which the worker makes before it
 * sends the run.
 *
 * @throws {@link ValidationError} a UI-format workflow or uploads without `cloud`.
 * @example
 * ```ts
 * const work = await prepareWork(spec, cloud, { signal });
 * ```
 */
export async function prepareWork(spec: RunSpec, cloud: CloudClient | undefined, request: RequestOptions): Promise<RunWork> {
  if ('task' in spec) return { kind: 'task', task: (spec as TaskRunSpec).task, params: (spec as TaskRunSpec).params };
  const { workflow, inputs = {}, uploads, partnerApiKey } = spec as WorkflowRunSpec;
  const check = new Checker();
  const targets = readUploads(check, uploads);
  check.throwIfInvalid('queue.add()');
  // A builder's outputs taken by name need the catalog unless its own table names them.
  const needsCatalog = isUiWorkflow(workflow) || (isWorkflowBuilder(workflow) && builderNeedsCatalog(workflow));
  if ((needsCatalog || targets.length > 0) && cloud === undefined) {
    throw new ValidationError([{ path: 'options.cloud', rule: 'the cloud client options of the queue: a UI-format workflow (or a builder whose outputs are named, not indexed) is converted and uploads are sent when the run is added', received: undefined }], 'queue.add()');
  }
  const prepared = cloud
    ? await uploadRun(runParts(cloud).files, await prepareRun(runParts(cloud), workflow, targets, { inputs, validate: false }, request, 'queue.add()'), request)
    : placeInputs(isWorkflowBuilder(workflow) ? builtWorkflow(workflow, undefined) : (workflow as Workflow), inputs, [], undefined).workflow;
  return { kind: 'workflow', workflow: prepared, ...(partnerApiKey === undefined ? {} : { partnerApiKey }) };
}

/**
 * The UTF-8 size of a value's JSON.
 *
 * @example
 * ```ts
 * jsonBytes({ a: 'é' }); // 10
 * ```
 */
export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).byteLength;
}

/**
 * Refuses a run whose data is beyond `maxBytes` (Redis holds no file bytes, and no unbounded run).
 *
 * @throws {@link ValidationError} naming the size and the bound.
 * @example
 * ```ts
 * assertRunBytes(data, 1_048_576);
 * ```
 */
export function assertRunBytes(data: RunData, maxBytes: number): void {
  const bytes = jsonBytes(data);
  if (bytes > maxBytes) {
    throw new ValidationError([{ path: 'spec', rule: `run data of at most ${maxBytes} bytes (maxRunBytes); put files in uploads or behind URLs`, received: `${bytes} bytes` }], 'queue.add()');
  }
}

/**
 * Reads a job's data as a run's, or `undefined` for data that is not one (a job of another tool).
 *
 * @example
 * ```ts
 * const data = readRunData(job.data);
 * ```
 */
export function readRunData(value: unknown): RunData | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const data = value as Partial<RunData>;
  if (data.v !== 1 || typeof data.work !== 'object' || data.work === null) return undefined;
  return data as RunData;
}

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

// One page of `queue.list()`: BullMQ's lists for that state, read in one call, kept to the runs in
// that state (docs/queue.md#api: a page can hold fewer than `limit`).

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
