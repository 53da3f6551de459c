// The public types of graphcloud/queue: what a run is, where it stands, what its events say, and
// the options and answers of RunQueue and RunWorker, and the set of ended states. Nothing here
// imports anything at run time (nothing loads BullMQ).
import type { JobResult, RunCost } from '../cloud/shared/types.js';
import type { UploadSpec } from '../cloud/run-workflow.js';
import type { WorkflowInput } from '../cloud/workflow/builder-types.js';
import type { CloudClientOptions } from '../cloud/client.js';
import type { ProxyClientOptions } from '../proxy/options.js';

/**
 * A workflow run: a workflow in the API or UI format, with `inputs` and `uploads` keyed by input
 * address as `cloud.runWorkflow()` takes them. Uploads are sent to the cloud when the run is added.
 *
 * @example
 * ```ts
 * const spec: WorkflowRunSpec = { workflow, inputs: { 'KSampler.seed': 42 }, uploads: { 'Photo.image': './in.png' } };
 * ```
 */
export interface WorkflowRunSpec {
  /** The workflow, in the API format, as the web UI saves it, or a builder (`workflow()`). */
  workflow: WorkflowInput;
  /** Input values by address, `"<node>.<input>"`; JSON values only (files go in `uploads`). */
  inputs?: Record<string, unknown> | undefined;
  /** Files to upload when the run is added, by input address; the workflow keeps their names. */
  uploads?: Record<string, UploadSpec> | undefined;
  /** Key for partner nodes: `true` sends the worker's cloud key as `extra_data.api_key_platform_org`. */
  partnerApiKey?: boolean | undefined;
}

/**
 * A media task: `task` names the proxy method (`image.upscale`, `video.textToVideo`...), `params`
 * its parameters (JSON values: images as URLs). Run with `proxy.<family>.<kind>()` and `waitForTask()`.
 *
 * @example
 * ```ts
 * const spec: TaskRunSpec = { task: 'image.upscale', params: { image: 'https://example.com/a.png', scale_factor: '2x' } };
 * ```
 */
export interface TaskRunSpec {
  /** `"image.<kind>"` or `"video.<kind>"`, as `proxy.image.upscale()` is `image.upscale`. */
  task: string;
  /** The task's parameters, as the proxy method takes them (JSON values only). */
  params: Record<string, unknown>;
}

/**
 * What `queue.add()` takes: a workflow run or a media task.
 *
 * @example
 * ```ts
 * await queue.add({ task: 'image.upscale', params: { image: url, scale_factor: '2x' } });
 * ```
 */
export type RunSpec = WorkflowRunSpec | TaskRunSpec;

/**
 * Where a run stands:
 * - `queued`: waiting for a worker (and for a place under the queue's concurrency);
 * - `submitting`: a worker is sending it; its prompt or task id is not known yet;
 * - `running`: submitted; its prompt or task id is stored on the run;
 * - `completed`, `failed`, `cancelled`: ended, with its result or its error;
 * - `unknown`: it may have been submitted, but no job of it could be found: never resubmitted.
 *
 * @example
 * ```ts
 * if ((await queue.get('order-1234'))?.state === 'completed') console.log('done');
 * ```
 */
export type RunState = 'queued' | 'submitting' | 'running' | 'completed' | 'failed' | 'cancelled' | 'unknown';

/**
 * The states a run ends in: nothing moves a run out of one (the queue, its handles and the CLI read
 * this one set; it imports nothing, so the CLI takes it without loading BullMQ).
 *
 * @example
 * ```ts
 * if (ENDED_STATES.has(info.state)) console.log(`${info.id} ended: ${info.state}`);
 * ```
 */
export const ENDED_STATES: ReadonlySet<RunState> = new Set(['completed', 'failed', 'cancelled', 'unknown']);

/**
 * A run's progress: `fraction` of the workflow done (0 to 1: the watcher's `job.fraction`, nodes
 * done or cached plus the running node's share of its steps, over all nodes), and the node running
 * now with its step count. New fields may be added.
 *
 * @example
 * ```ts
 * const { fraction, node, value, max } = run.progress ?? {};
 * ```
 */
export interface RunProgress {
  /** The share of the run done, 0 to 1. */
  fraction: number;
  /** The node running now, when known. */
  node?: string | undefined;
  /** Steps done of the running node. */
  value?: number | undefined;
  /** Steps of the running node. */
  max?: number | undefined;
}

/**
 * A run as `queue.get()` and `queue.list()` tell it.
 *
 * @example
 * ```ts
 * const info = await queue.get('order-1234');
 * console.log(info?.state, info?.promptId, info?.progress?.fraction);
 * ```
 */
export interface RunInfo {
  /** The run's id (the `id` given to `add()`, or one BullMQ chose). */
  id: string;
  /** Where it stands. */
  state: RunState;
  /** `workflow` or `task`. */
  kind: 'workflow' | 'task';
  /** The cloud's prompt id, once the submission's answer named it (or, on a local runtime, once chosen). */
  promptId: string | undefined;
  /** The proxy's task id, once known. */
  taskId: string | undefined;
  /** The runtime the run was sent to (a local runtime's URL, or the cloud's). */
  runtime: string | undefined;
  /** Progress, while it runs. */
  progress: RunProgress | undefined;
  /** The result of a completed run (a `JobResult`, or the media task's result). */
  result: unknown;
  /** Why it failed, was cancelled or is unknown. */
  error: RunErrorInfo | undefined;
  /** When it was added, in ms since the epoch. */
  addedAt: number;
  /** When it ended, in ms since the epoch. */
  endedAt: number | undefined;
  /** Times it was taken over from a worker that died or stopped. */
  takeovers: number;
  /**
   * Set while the worker holding the run is gone (it died, or lost Redis) and no other has taken
   * the run over yet: `takeoverWithinMs` is the most time before one does (the rest of the run's
   * lock, plus a stalled check at the default interval), once a worker is connected.
   */
  workerLost?:
    | {
        /** At most how long until another worker takes the run over (ms): the rest of the lock plus one stalled check. */
        takeoverWithinMs: number;
      }
    | undefined;
  /**
   * What its job spent, as the server's price texts told its worker (`result.cost` of the job),
   * once it ended; `undefined` when the server sent none (docs/cost.md#what-a-run-spent).
   */
  cost: RunCost | undefined;
}

/**
 * One event of a run, as `run.events()` yields it in any process: a state change or progress.
 *
 * @example
 * ```ts
 * for await (const event of run.events()) if (event.type === 'progress') console.log(event.progress.fraction);
 * ```
 */
export type RunEvent =
  | {
      /** A change of state. */
      type: 'state';
      /** The run. */
      runId: string;
      /** Its new state. */
      state: RunState;
      /** Its prompt id, once known. */
      promptId?: string | undefined;
      /** Its task id, once known. */
      taskId?: string | undefined;
    }
  | {
      /** Progress. */
      type: 'progress';
      /** The run. */
      runId: string;
      /** The run's progress now. */
      progress: RunProgress;
    };

/**
 * The result of a run: a `JobResult` for a workflow, the proxy's task result for a media task.
 *
 * @example
 * ```ts
 * const { outputs } = (await run.result()) as JobResult;
 * ```
 */
export type RunResult = JobResult | Record<string, unknown>;

/**
 * What is known of a run's end when it did not complete: the error's class and message, and the
 * fields that say what was paid for (`promptId`, `taskId`).
 *
 * @example
 * ```ts
 * if (info.error?.name === 'SubmissionUnknownError') console.log(info.error.message);
 * ```
 */
export interface RunErrorInfo {
  /** The class of the error the worker met (`JobFailedError`, `SubmissionUnknownError`...). */
  name: string;
  /** Its message. */
  message: string;
  /** The HTTP status, for an error of the API. */
  status?: number | undefined;
  /** What the error carried beyond its message (the failed job's error, what was searched...). */
  details?: Record<string, unknown> | undefined;
}

/**
 * A budget in USD over a sliding window (`queue.setBudget()`).
 *
 * @example
 * ```ts
 * await queue.setBudget({ usd: 50, windowSeconds: 86_400 }); // $50 a day
 * ```
 */
export interface Budget {
  /** The most the queue's runs may spend in one window, in USD. */
  usd: number;
  /** The window, in seconds: what runs spent longer ago than this no longer counts. Without it, everything spent since the budget was set counts. */
  windowSeconds?: number | undefined;
}

/**
 * Where the budget stands (`queue.status().budget`), in USD.
 *
 * @example
 * ```ts
 * const { limit, spent, reserved } = (await queue.status()).budget ?? {};
 * ```
 */
export interface BudgetStatus {
  /** The budget (`setBudget({ usd })`). */
  limit: number;
  /** What runs that ended in the window spent. */
  spent: number;
  /** The estimates (their maxima) of runs sent or about to be, not ended yet. */
  reserved: number;
  /** The window in seconds, or `undefined` for none. */
  windowSeconds: number | undefined;
}

/**
 * Where Redis is: ioredis options (`{ host, port, password, tls, db }`) or a `redis://` /
 * `rediss://` URL.
 *
 * @example
 * ```ts
 * const connection: RedisConnection = { host: 'redis.internal', port: 6379 };
 * ```
 */
export type RedisConnection =
  | string
  | {
      /** @default '127.0.0.1' */
      host?: string | undefined;
      /** @default 6379 */
      port?: number | undefined;
      /** The ACL user. */
      username?: string | undefined;
      /** The password (never printed by the SDK). */
      password?: string | undefined;
      /** The database number. @default 0 */
      db?: number | undefined;
      /** TLS options (`{}` for defaults), as Node's `tls.connect` takes them. */
      tls?: object | undefined;
      /** Any other ioredis option. */
      [option: string]: unknown;
    };

/**
 * Options of `new RunQueue()`.
 *
 * @example
 * ```ts
 * new RunQueue({ connection: 'redis://redis.internal:6379', name: 'renders', cloud: { baseUrl, apiKey } });
 * ```
 */
export interface RunQueueOptions {
  /** Where Redis is. */
  connection: RedisConnection;
  /** The queue's name: every queue and worker of one name share its runs. */
  name: string;
  /** The cloud uploads go to when a run is added, and that converts UI-format workflows. */
  cloud?: CloudClientOptions | undefined;
  /** Prefix of the queue's Redis keys. @default QUEUE_DEFAULTS.prefix */
  prefix?: string | undefined;
  /** The most bytes of one run's data in Redis. @default QUEUE_DEFAULTS.maxRunBytes */
  maxRunBytes?: number | undefined;
  /** How long finished runs are kept, in seconds. @default QUEUE_DEFAULTS.keepFinishedSeconds */
  keepFinishedSeconds?: number | undefined;
}

/**
 * Options of `queue.add()`.
 *
 * @example
 * ```ts
 * await queue.add(spec, { id: 'order-1234', priority: 1 });
 * ```
 */
export interface AddRunOptions {
  /** The run's id, unique in the queue: adding an id twice gives the run already there. @default a UUID */
  id?: string | undefined;
  /** 1 (first) to 2,097,152; runs without a priority come first. */
  priority?: number | undefined;
  /** Aborts the uploads before the run is added. */
  signal?: AbortSignal | undefined;
}

/**
 * Options of `queue.list()`.
 *
 * @example
 * ```ts
 * const { runs, hasMore } = await queue.list({ state: 'failed', offset: 0, limit: 50 });
 * ```
 */
export interface ListRunsOptions {
  /** Only runs in this state. @default 'queued' */
  state?: RunState | undefined;
  /** Runs to skip. @default 0 */
  offset?: number | undefined;
  /** Runs per page, 1 to 1000. @default 100 */
  limit?: number | undefined;
}

/**
 * One page of `queue.list()`.
 *
 * @example
 * ```ts
 * for (const run of (await queue.list({ state: 'running' })).runs) console.log(run.id, run.promptId);
 * ```
 */
export interface RunPage {
  /** The runs of this page in that state (a page can hold fewer than `limit`: see docs/queue.md). */
  runs: RunInfo[];
  /** The offset asked. */
  offset: number;
  /** More runs follow. */
  hasMore: boolean;
}

/**
 * Why the queue is paused: an account-level refusal a worker met (authentication, payment
 * required, subscription inactive), readable from any process.
 *
 * @example
 * ```ts
 * const reason = await queue.getPauseReason();
 * if (reason) console.log(`paused: ${reason.error.name} (${reason.error.status})`);
 * ```
 */
export interface PauseReason {
  /**
   * `account`: a refusal of the account (`error` says which); `budget`: the next run's estimate
   * would cross the queue's budget (`queue.setBudget()`; `error` names the amounts).
   */
  kind: 'account' | 'budget';
  /** The refusal. */
  error: RunErrorInfo;
  /** The run whose submission met it (it went back to waiting). */
  runId: string;
  /** When, in ms since the epoch. */
  at: number;
}

/**
 * The queue at a glance (`queue.status()`).
 *
 * @example
 * ```ts
 * const { counts, paused, pauseReason, concurrency, budget } = await queue.status();
 * ```
 */
export interface QueueStatus {
  /** Runs per place in the queue: waiting, active (submitting or running), completed, failed, delayed. */
  counts: Record<'waiting' | 'active' | 'completed' | 'failed' | 'delayed', number>;
  /** Whether workers take no new runs. */
  paused: boolean;
  /** Why, when a worker paused it. */
  pauseReason: PauseReason | undefined;
  /** The queue's concurrency across every worker (`setConcurrency()`), or `undefined` for none. */
  concurrency: number | undefined;
  /** Workers connected to the queue now, or `undefined` where Redis does not list its clients (CLIENT LIST refused). */
  workers: number | undefined;
  /** The queue's budget in USD (`setBudget()`): its limit, what the window spent, what runs in flight reserved; `undefined` for none. */
  budget: BudgetStatus | undefined;
}

/**
 * What `queue.cancel()` did: `removed` (it was queued: it is never submitted), `requested` (it is
 * submitting or running: the worker that holds it cancels its job once), or `ended` (nothing to
 * do: it had ended or is unknown).
 *
 * @example
 * ```ts
 * const { action } = await queue.cancel('order-1234');
 * ```
 */
export interface CancelRunResult {
  /** The run. */
  runId: string;
  /** What was done. */
  action: 'removed' | 'requested' | 'ended';
  /** Its state before. */
  state: RunState | undefined;
}

/**
 * Options of `new RunWorker()`.
 *
 * @example
 * ```ts
 * new RunWorker({ connection, name: 'renders', cloud: { baseUrl, apiKey }, concurrency: 8 });
 * new RunWorker({ connection, name: 'renders', runtime: 'http://gpu-box-1:8188' });
 * ```
 */
export interface RunWorkerOptions {
  /** Where Redis is. */
  connection: RedisConnection;
  /** The queue's name. */
  name: string;
  /** The cloud the worker submits to. Give this or `runtime`. */
  cloud?: CloudClientOptions | undefined;
  /** A local runtime's URL: the worker submits there (one worker per runtime forms a pool). */
  runtime?: string | undefined;
  /** The media proxy, for task runs. */
  proxy?: ProxyClientOptions | undefined;
  /** Runs this worker holds at once. @default QUEUE_DEFAULTS.workerConcurrency */
  concurrency?: number | undefined;
  /** Prefix of the queue's Redis keys. @default QUEUE_DEFAULTS.prefix */
  prefix?: string | undefined;
  /** @default QUEUE_DEFAULTS.lockDurationMs */
  lockDurationMs?: number | undefined;
  /** @default QUEUE_DEFAULTS.stalledIntervalMs */
  stalledIntervalMs?: number | undefined;
  /** @default QUEUE_DEFAULTS.probeIntervalMs */
  probeIntervalMs?: number | undefined;
  /**
   * How long after a run was marked "submitting" its request may still create the job: a worker
   * that takes such a run over and finds no tagged job looks again at the end of this window
   * before the run ends `unknown`. Keep it above `QUEUE_DEFAULTS.submitTimeoutMs`.
   * @default QUEUE_DEFAULTS.recoverWindowMs
   */
  recoverWindowMs?: number | undefined;
  /** @default QUEUE_DEFAULTS.progressIntervalMs */
  progressIntervalMs?: number | undefined;
  /** Called with what the worker does (taken over, handed back, paused...). What it throws is dropped. */
  onLog?: ((line: string) => unknown) | undefined;
}

/**
 * Options of `worker.close()`.
 *
 * @example
 * ```ts
 * await worker.close({ finish: true });
 * ```
 */
export interface CloseWorkerOptions {
  /**
   * Wait for the runs in flight to end. By default they are handed back at once with their stored
   * prompt or task ids: the next worker watches them, never submits them again.
   * @default false
   */
  finish?: boolean | undefined;
}
