// The public types of graphcloud/queue: what a run is, where it stands, what its events say (the
// options are in option-types.ts). Types only: nothing here loads BullMQ.
import type { JobResult, RunCost } from '../cloud/shared/types.js';
import type { UploadSpec } from '../cloud/run-workflow.js';
import type { WorkflowInput } from '../cloud/workflow/builder-types.js';
import type { RunErrorInfo } from './errors/run-failed-error.js';

export type { RunErrorInfo } from './errors/run-failed-error.js';

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
 * A run's progress: `fraction` of the workflow done (0 to 1, nodes finished or cached over all
 * nodes), and the node running now with its step count. New fields may be added.
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
