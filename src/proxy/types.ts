import type { RequestOptions } from '../core/index.js';

/**
 * Image task kinds, named after the `proxy.image` method that submits them.
 * @example const kind: ImageTaskKind = 'upscale';
 */
export type ImageTaskKind = 'relight' | 'upscale' | 'styleTransfer' | 'skinEnhancerCreative' | 'skinEnhancerFaithful';
/**
 * Video task kinds, named after the `proxy.video` method that submits them.
 * @example const kind: VideoTaskKind = 'extend';
 */
export type VideoTaskKind = 'referenceToVideo' | 'extend' | 'multiframe';
/**
 * Every task kind; it decides the status route `waitForTask()` polls.
 * @example const kind: TaskKind = 'multiframe';
 */
export type TaskKind = ImageTaskKind | VideoTaskKind;

/**
 * Image task `status` values; others a server may send are kept as they are.
 * @example if (task.status === 'COMPLETED') console.log(task.generated);
 */
export type ImageTaskStatus = 'CREATED' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | (string & {});
/**
 * Video task `state` values; others a server may send are kept as they are.
 * @example if (task.state === 'queueing') console.log('waiting in line');
 */
export type VideoTaskState = 'created' | 'processing' | 'queueing' | 'success' | 'failed' | (string & {});

/**
 * A submitted image task, whatever envelope the server used (`data` wrapper or top level,
 * `status` or `task_status`).
 *
 * @example
 * ```ts
 * const task = await proxy.image.upscale({ image: 'https://example.com/a.png', scale_factor: '2x' });
 * console.log(task.taskId, task.status);
 * ```
 */
export interface ImageTask<K extends ImageTaskKind = ImageTaskKind> {
  kind: K;
  taskId: string;
  /** Upper-cased: `CREATED` right after submission. */
  status: ImageTaskStatus;
  /** URLs of generated images (empty until the task completes). */
  generated: string[];
  /** The response body, unchanged. */
  raw: unknown;
}

/**
 * A submitted video task.
 *
 * @example
 * ```ts
 * const task = await proxy.video.referenceToVideo({ model: 'videoq2-pro', prompt: 'a cat', images: [url] });
 * console.log(task.taskId, task.state, task.credits);
 * ```
 */
export interface VideoTask<K extends VideoTaskKind = VideoTaskKind> {
  kind: K;
  taskId: string;
  /** Lower-cased: usually `created` or `queueing` right after submission. */
  state: VideoTaskState;
  /** Credits charged, when the server said (the interface marks it required; the SDK does not fail a paid submission over it). */
  credits: number | undefined;
  raw: unknown;
}

/**
 * What `waitForTask()` accepts: a task returned by a submission, or its kind and id.
 * @example await proxy.waitForTask({ kind: 'upscale', taskId: '5b0c…' });
 */
export interface TaskRef<K extends TaskKind = TaskKind> {
  kind: K;
  taskId: string;
  status?: string;
  state?: string;
}

/**
 * Where a task stands, the same words for both families: `queued` (`CREATED`, `created`,
 * `queueing`), `running` (`IN_PROGRESS`, `processing`, and any value the SDK does not know),
 * `succeeded`, `failed` (including a success with no result).
 * @example if (status.phase === 'queued') showSpinner('in line');
 */
export type TaskPhase = 'queued' | 'running' | 'succeeded' | 'failed';

/**
 * One status read by `waitForTask()` and `watchTask()`.
 *
 * @example
 * ```ts
 * for await (const status of proxy.watchTask(task)) console.log(status.phase, status.progress);
 * ```
 */
export interface TaskStatus {
  kind: TaskKind;
  taskId: string;
  /** The vendor's value, `COMPLETED`-style for images, `success`-style for videos. */
  status: string;
  phase: TaskPhase;
  /** Result URLs: image `generated`, or video `creations[].url`. */
  urls: string[];
  /** Video `progress`, when the server sends it. */
  progress?: number | undefined;
  /** Video `err_code`, when the server sends it. */
  errCode?: string | undefined;
  raw: unknown;
}

/**
 * A finished image task.
 * @example const { urls: [first] } = await proxy.waitForTask(task);
 */
export interface ImageTaskResult {
  kind: ImageTaskKind;
  taskId: string;
  status: string;
  /** The `generated` URLs (at least one). */
  urls: string[];
  raw: unknown;
}

/**
 * One video of a finished video task, with the wire's own field names.
 * @example console.log(result.creations[0]?.cover_url);
 */
export interface VideoCreation {
  id?: string | undefined;
  /** Video URL, valid for about an hour. Fetch it without credentials. */
  url: string;
  cover_url?: string | undefined;
  watermarked_url?: string | undefined;
  [key: string]: unknown;
}

/**
 * A finished video task.
 * @example const { urls: [video], creations } = await proxy.waitForTask(videoTask);
 */
export interface VideoTaskResult {
  kind: VideoTaskKind;
  taskId: string;
  status: string;
  /** `creations[].url` (at least one). */
  urls: string[];
  creations: VideoCreation[];
  credits: number | undefined;
  raw: unknown;
}

/**
 * The result type of a task kind.
 * @example type R = TaskResultOf<'upscale'>; // ImageTaskResult
 */
export type TaskResultOf<K extends TaskKind> = [K] extends [ImageTaskKind] ? ImageTaskResult : [K] extends [VideoTaskKind] ? VideoTaskResult : ImageTaskResult | VideoTaskResult;

/**
 * Options of `waitForTask()` and `watchTask()`.
 *
 * @example
 * ```ts
 * await proxy.waitForTask(task, { timeout: 10 * 60_000, onUpdate: (s) => console.log(s.phase) });
 * ```
 */
export interface WaitOptions {
  /** Stops waiting (the task itself goes on: there is no cancel route); rejects with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /**
   * Budget in ms of non-queued time (all time with `countQueued`); past it the wait rejects with a
   * `TimeoutError`, after one last status request.
   * @default PROXY_DEFAULTS.wait.timeout (80 minutes)
   */
  timeout?: number | undefined;
  /**
   * Count the time the task spends queued against `timeout`.
   * @default false
   */
  countQueued?: boolean | undefined;
  /** @default PROXY_DEFAULTS.wait.initialIntervalMs (1_000) */
  initialIntervalMs?: number | undefined;
  /** @default PROXY_DEFAULTS.wait.growFactor (2) */
  growFactor?: number | undefined;
  /** @default PROXY_DEFAULTS.wait.maxIntervalMs (18_000) */
  maxIntervalMs?: number | undefined;
  /** @default PROXY_DEFAULTS.wait.notFoundGraceMs (30_000) */
  notFoundGraceMs?: number | undefined;
  /** Called with each status that differs from the previous one. Errors it throws are ignored. */
  onUpdate?: ((status: TaskStatus) => void) | undefined;
  /** Headers of the status requests. */
  headers?: Record<string, string> | undefined;
}

/**
 * Options of a submission: the request options, `validate`, and `wait` to submit and wait in one call.
 *
 * @example
 * ```ts
 * const done = await proxy.image.upscale(params, { wait: { timeout: 600_000 } }); // ImageTaskResult
 * ```
 */
export interface SubmitOptions extends RequestOptions {
  /**
   * Check the documented limits before sending. `false` sends the params as given (binary image
   * inputs are still encoded), for values a server accepts before the SDK knows them.
   * @default true
   */
  validate?: boolean | undefined;
  /**
   * Wait for the task after submitting: `true`, or the options of `waitForTask()` (`signal` is
   * shared with the submission). The call then resolves to the task's result. When the wait fails
   * with an SDK error (timeout, `401` on a status route...), the task is paid for and running: the
   * error carries it as `error.task`, for another `waitForTask(error.task)`.
   * @default false
   */
  wait?: boolean | WaitOptions | undefined;
  /**
   * Called with the task as soon as the submission is accepted, before any wait: the place to store
   * its id, since an abort during `wait` rejects with `signal.reason` alone. What it throws is ignored.
   * @example onSubmitted: (task) => db.save(task.kind, task.taskId)
   */
  onSubmitted?: ((task: ImageTask | VideoTask) => void) | undefined;
}

/**
 * A submission method of `proxy.image` / `proxy.video`: it resolves to the task, or, with `wait`,
 * to the finished task's result.
 * @example const upscale: SubmitMethod<UpscaleParams, ImageTask<'upscale'>, ImageTaskResult> = proxy.image.upscale;
 */
export interface SubmitMethod<Params, Task, Result> {
  (params: Params, options: SubmitOptions & { wait: true | WaitOptions }): Promise<Result>;
  (params: Params, options?: SubmitOptions & { wait?: false | undefined }): Promise<Task>;
  (params: Params, options?: SubmitOptions): Promise<Task | Result>;
}

/**
 * What a submission resolves to: the task, or its result when `wait` is set.
 * @example type T = Submitted<ImageTask<'upscale'>, ImageTaskResult, { wait: true }>; // ImageTaskResult
 */
export type Submitted<Task, Result, O> = O extends { wait: true | WaitOptions } ? Result : O extends { wait?: false | undefined } ? Task : Task | Result;

/**
 * Time as `waitForTask()` sees it; replace it to simulate hours of polling in milliseconds.
 * @example const clock: Clock = { now: () => fakeNow, sleep: async (ms) => { fakeNow += ms; } };
 */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
