/// <reference lib="esnext.disposable" preserve="true" />
import { Checker, checkOptions, HttpClient, realClock, redactUrl } from '../core/index.js';
import { PROXY_DEFAULTS } from './defaults.js';
import { defined, PROXY_CLIENT_RULES, WATCH_TASK_RULES, type ProxyClientOptions, type WaitForTaskOptions } from './options.js';
import { createTaskMethods, type ImageTasks, type VideoTasks } from './submit.js';
import type { ImageTaskResult, TaskRef, TaskResultOf, TaskStatus, VideoTaskResult } from './types.js';
import { assertWait, waitForTask, watchStatuses, type ProxyContext } from './wait.js';

/**
 * Client of the asynchronous media proxy: five image tasks under `proxy.image`, three video tasks
 * under `proxy.video`, and `waitForTask()` / `watchTask()` to follow any of them.
 *
 * @example
 * ```ts
 * import { ProxyClient } from 'graphcloud';
 * await using proxy = new ProxyClient({ baseUrl: 'https://api.example.com', token });
 * const { urls } = await proxy.image.upscale({ image: { path: './small.png' }, scale_factor: '2x' }, { wait: true });
 * ```
 */
export class ProxyClient {
  /** The API's base URL without its trailing slashes (a path such as `/api/graphcloud` resolved against the page). */
  readonly baseUrl: string;
  /** The image tasks: `relight`, `upscale`, `styleTransfer`, `skinEnhancerCreative`, `skinEnhancerFaithful`. */
  readonly image: ImageTasks;
  /** The video tasks: `referenceToVideo`, `extend`, `multiframe`. */
  readonly video: VideoTasks;
  readonly #ctx: ProxyContext;

  /**
   * Checks every option (nothing is sent by the constructor).
   *
   * @throws {@link ValidationError} naming each bad option.
   */
  constructor(options: ProxyClientOptions) {
    const check = new Checker();
    if (checkOptions(check, 'options', options, PROXY_CLIENT_RULES)) {
      if (options.baseUrl === undefined) check.fail('options.baseUrl', 'required: an absolute http(s) URL such as https://api.example.com', undefined);
      if (options.token !== undefined && options.apiKey !== undefined) check.fail('options.apiKey', 'either token or apiKey, not both', '(both given)');
    } else if (options === undefined) {
      check.fail('options', 'required: { baseUrl, token or apiKey }', options);
    }
    check.throwIfInvalid('new ProxyClient()');
    const { token, apiKey, statusPaths, base64Format, wait, clock, ...rest } = options;
    const credential = token ?? apiKey;
    const auth = credential === undefined ? undefined : ({ scheme: token === undefined ? 'api-key' : 'bearer', credential } as const);
    const http = new HttpClient({ ...rest, clientName: 'ProxyClient', auth });
    this.baseUrl = http.baseUrl;
    const base64 = { ...PROXY_DEFAULTS.base64Format, ...defined(base64Format) };
    const routes = { ...PROXY_DEFAULTS.statusPaths, ...defined(statusPaths) };
    this.#ctx = { http, base64Format: base64, statusPaths: routes, defaults: defined(wait), clock: clock ?? realClock, waits: new Set() };
    this.image = createTaskMethods(this.#ctx, 'image');
    this.video = createTaskMethods(this.#ctx, 'video');
  }

  /**
   * Polls a task until it finishes and resolves to its result. Reads start at once, then back off
   * from 1 s to about 24 s with jitter (`poll`), honouring `Retry-After`. Queued time does not count
   * against `waitTimeout` unless `countQueued` is set; time spent on failed reads does. A `404`
   * right after submission, `408`, `429`, `5xx` and connection errors are read again. The task is
   * never resubmitted; an SDK error that ends the wait names it as `error.submitted`.
   *
   * @throws {@link TaskFailedError} when the task failed, or succeeded with no result.
   * @throws {@link TimeoutError} when `waitTimeout` ran out (the task goes on: there is no cancel route).
   * @throws {@link ClientClosedError} when the client was closed.
   * @example
   * ```ts
   * const task = await proxy.image.upscale({ image: url, scale_factor: '2x' });
   * const { urls } = await proxy.waitForTask(task, { waitTimeout: 10 * 60_000, onUpdate: (s) => console.log(s.phase) });
   * ```
   */
  waitForTask<T extends TaskRef>(task: T, options?: WaitForTaskOptions): Promise<TaskResultOf<T['kind']>>;
  waitForTask(task: { kind: string; taskId: string }, options?: WaitForTaskOptions): Promise<ImageTaskResult | VideoTaskResult>;
  waitForTask(task: TaskRef | { kind: string; taskId: string }, options?: WaitForTaskOptions): Promise<ImageTaskResult | VideoTaskResult> {
    return waitForTask(this.#ctx, task, options);
  }

  /**
   * Status changes of a task as an async iterator: each status that differs from the previous,
   * ending after the terminal one (a failure is yielded with `phase: 'failed'`, not thrown).
   * `break` stops polling and leaves no timer. The options are checked here, before the loop.
   *
   * @throws {@link ValidationError} at once, for a bad task reference or option.
   * @throws {@link TimeoutError} from the loop, when `waitTimeout` ran out.
   * @example
   * ```ts
   * for await (const status of proxy.watchTask(task)) {
   *   console.log(status.phase, status.progress);
   *   if (status.phase === 'succeeded') console.log(status.urls);
   * }
   * ```
   */
  watchTask(task: TaskRef | { kind: string; taskId: string }, options?: Omit<WaitForTaskOptions, 'onUpdate'>): AsyncGenerator<TaskStatus, void, undefined> {
    assertWait('proxy.watchTask()', task, options, WATCH_TASK_RULES);
    return watchStatuses(this.#ctx, task, options ?? {});
  }

  /**
   * Closes the client: every wait in progress rejects with `ClientClosedError` (its `submitted`
   * names the task, which goes on running), requests in flight are aborted, and every later call
   * rejects with `ClientClosedError`. Resolves once every wait has ended.
   *
   * @example
   * ```ts
   * await proxy.close();
   * ```
   */
  async close(): Promise<void> {
    this.#ctx.http.close();
    await Promise.allSettled(this.#ctx.waits);
  }

  /** `await using proxy = new ProxyClient(...)` closes it at the end of the block. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Shows the base URL only: no credential, no internals. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ProxyClient { baseUrl: '${redactUrl(this.baseUrl)}' }`;
  }
}

/**
 * The types of the media proxy client, as `ProxyClient.<Name>` (types only, nothing at run time).
 *
 * @example
 * ```ts
 * const params: ProxyClient.UpscaleParams = { image: { path: './small.png' }, scale_factor: '4x' };
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace ProxyClient {
  /** Options of `new ProxyClient()`. */
  export type Options = ProxyClientOptions;
  /** Options of a media task submission. */
  export type SubmitTaskOptions = import('./options.js').SubmitTaskOptions;
  /** Options of `proxy.waitForTask()` and `watchTask()`. */
  export type WaitForTaskOptions = import('./options.js').WaitForTaskOptions;
  /** A status route (`statusPaths` option). */
  export type StatusPath = import('./options.js').StatusPath;
  /** Every media task kind. */
  export type TaskKind = import('./tasks.js').TaskKind;
  /** The image task kinds (`proxy.image.*`). */
  export type ImageTaskKind = import('./tasks.js').ImageTaskKind;
  /** The video task kinds (`proxy.video.*`). */
  export type VideoTaskKind = import('./tasks.js').VideoTaskKind;
  /** The params of each task kind. */
  export type TaskParams = import('./tasks.js').TaskParams;
  /** Params of `proxy.image.relight()`. */
  export type RelightParams = import('./image-params.js').RelightParams;
  /** Params of `proxy.image.upscale()`. */
  export type UpscaleParams = import('./image-params.js').UpscaleParams;
  /** Params of `proxy.image.styleTransfer()`. */
  export type StyleTransferParams = import('./image-params.js').StyleTransferParams;
  /** Params of `proxy.image.skinEnhancerCreative()`. */
  export type SkinEnhancerCreativeParams = import('./image-params.js').SkinEnhancerCreativeParams;
  /** Params of `proxy.image.skinEnhancerFaithful()`. */
  export type SkinEnhancerFaithfulParams = import('./image-params.js').SkinEnhancerFaithfulParams;
  /** Params of `proxy.video.referenceToVideo()`. */
  export type ReferenceToVideoParams = import('./video-params.js').ReferenceToVideoParams;
  /** Params of `proxy.video.extend()`. */
  export type ExtendParams = import('./video-params.js').ExtendParams;
  /** Params of `proxy.video.multiframe()`. */
  export type MultiframeParams = import('./video-params.js').MultiframeParams;
  /** An image argument: a URL, Base64, bytes, a Blob or `{ path }`. */
  export type ImageInput = import('./inputs.js').ProxyImageInput;
  /** A submitted image task. */
  export type ImageTask<K extends import('./tasks.js').ImageTaskKind = import('./tasks.js').ImageTaskKind> = import('./types.js').ImageTask<K>;
  /** A submitted video task. */
  export type VideoTask<K extends import('./tasks.js').VideoTaskKind = import('./tasks.js').VideoTaskKind> = import('./types.js').VideoTask<K>;
  /** A finished image task. */
  export type ImageTaskResult<K extends import('./tasks.js').ImageTaskKind = import('./tasks.js').ImageTaskKind> = import('./types.js').ImageTaskResult<K>;
  /** A finished video task. */
  export type VideoTaskResult<K extends import('./tasks.js').VideoTaskKind = import('./tasks.js').VideoTaskKind> = import('./types.js').VideoTaskResult<K>;
  /** The task type of a kind. */
  export type TaskOf<K extends import('./tasks.js').TaskKind> = import('./types.js').TaskOf<K>;
  /** The result type of a kind. */
  export type TaskResultOf<K extends import('./tasks.js').TaskKind> = import('./types.js').TaskResultOf<K>;
  /** A task to wait for: its kind and id. */
  export type TaskRef = import('./types.js').TaskRef;
  /** One status of a task, the same words for both families. */
  export type TaskStatus = import('./types.js').TaskStatus;
  /** The image submission methods (`proxy.image`). */
  export type ImageTasks = import('./submit.js').ImageTasks;
  /** The video submission methods (`proxy.video`). */
  export type VideoTasks = import('./submit.js').VideoTasks;
}
