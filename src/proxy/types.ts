import type { ImageTaskKind, TaskKind, VideoTaskKind } from './tasks.js';

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
  /** The task kind it was submitted as (`upscale`, `relight`...). */
  kind: K;
  /** The vendor's `task_id`: `proxy.waitForTask()` follows it. */
  taskId: string;
  /** Upper-cased: `CREATED` right after submission; values the SDK does not know are kept. */
  status: 'CREATED' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | (string & {});
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
  /** The task kind it was submitted as (`referenceToVideo`, `extend`, `multiframe`). */
  kind: K;
  /** The vendor's `task_id`: `proxy.waitForTask()` follows it. */
  taskId: string;
  /** Lower-cased: usually `created` or `queueing` right after submission; values the SDK does not know are kept. */
  state: 'created' | 'processing' | 'queueing' | 'success' | 'failed' | (string & {});
  /** Credits charged, when the server said (the SDK does not fail a paid submission over a missing field). */
  credits: number | undefined;
  /** The response body, unchanged. */
  raw: unknown;
}

/**
 * What `waitForTask()` and `watchTask()` accept: a task returned by a submission, or its kind and
 * id (for example `error.submitted` of a wait that ended early).
 *
 * @example
 * ```ts
 * await proxy.waitForTask({ kind: 'upscale', taskId: '5b0c…' });
 * ```
 */
export interface TaskRef<K extends TaskKind = TaskKind> {
  /** The task kind: it picks the status route. */
  kind: K;
  /** The vendor's `task_id`. */
  taskId: string;
  /** The image task's last known status: `CREATED` makes the time until the first reading free. */
  status?: string | undefined;
  /** The video task's last known state, read like `status`. */
  state?: string | undefined;
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
  /** The task kind. */
  kind: TaskKind;
  /** The task's id. */
  taskId: string;
  /** The vendor's value, `COMPLETED`-style for images, `success`-style for videos. */
  status: string;
  /** Where the task stands, in the same words for images and videos. */
  phase: TaskPhase;
  /** Result URLs: image `generated`, or video `creations[].url`. */
  urls: string[];
  /** Video `progress`, when the server sends it. */
  progress?: number | undefined;
  /** Video `err_code`, when the server sends it. */
  errCode?: string | undefined;
  /** The status body, unchanged. */
  raw: unknown;
}

/**
 * A finished image task.
 * @example const { urls: [first] } = await proxy.waitForTask(task);
 */
export interface ImageTaskResult<K extends ImageTaskKind = ImageTaskKind> {
  /** The task kind. */
  kind: K;
  /** The task's id. */
  taskId: string;
  /** The final status the vendor reported (`COMPLETED`). */
  status: string;
  /** The `generated` URLs (at least one). */
  urls: string[];
  /** The last status body, unchanged. */
  raw: unknown;
}

/**
 * One video of a finished video task, with the wire's own field names.
 * @example console.log(result.creations[0]?.cover_url);
 */
export interface VideoCreation {
  /** The creation's id: `proxy.video.extend({ video_creation_id })` takes it. */
  id?: string | undefined;
  /** Video URL, valid for about an hour. Fetch it without credentials. Optional in the vendor's schema: a creation without one is no result. */
  url?: string | undefined;
  /** URL of a still image of the video. */
  cover_url?: string | undefined;
  /** URL of the watermarked video, when one was made. */
  watermarked_url?: string | undefined;
  [key: string]: unknown;
}

/**
 * A finished video task.
 * @example const { urls: [video], creations } = await proxy.waitForTask(videoTask);
 */
export interface VideoTaskResult<K extends VideoTaskKind = VideoTaskKind> {
  /** The task kind. */
  kind: K;
  /** The task's id. */
  taskId: string;
  /** The final state the vendor reported (`success`). */
  status: string;
  /** The `creations[].url` that are set (at least one). */
  urls: string[];
  /** Every creation the vendor listed, as sent. */
  creations: VideoCreation[];
  /** Credits charged, when the vendor said. */
  credits: number | undefined;
  /** The last status body, unchanged. */
  raw: unknown;
}

/**
 * The task a submission of kind `K` resolves to.
 * @example type T = TaskOf<'extend'>; // VideoTask<'extend'>
 */
export type TaskOf<K extends TaskKind> = K extends ImageTaskKind ? ImageTask<K> : K extends VideoTaskKind ? VideoTask<K> : never;

/**
 * The result a wait for a task of kind `K` resolves to.
 * @example type R = TaskResultOf<'upscale'>; // ImageTaskResult<'upscale'>
 */
export type TaskResultOf<K extends TaskKind> = K extends ImageTaskKind ? ImageTaskResult<K> : K extends VideoTaskKind ? VideoTaskResult<K> : never;
