import { Checker, HttpClient, redactUrl, ValidationError, type ClientOptions, type Credential } from '../core/index.js';
import { PROXY_DEFAULTS } from './defaults.js';
import { ImageResource } from './image.js';
import type { Base64Format } from './inputs.js';
import { ImageTaskSchema, imageStatus, VideoStatusSchema, videoStatus } from './schemas.js';
import type { ProxyContext } from './submit.js';
import type { Clock, ImageTaskKind, ImageTaskResult, TaskKind, TaskRef, TaskResultOf, TaskStatus, VideoTaskKind, VideoTaskResult, WaitOptions } from './types.js';
import { VideoResource } from './video.js';
import { pollTask, realClock, waitForStatus, type ReadStatus } from './wait.js';

/**
 * A status route: a template where `{task_id}` is replaced by the encoded id, or a function.
 * @example const route: StatusPath = '/proxy/imagevendor/v1/ai/image-upscaler/{task_id}';
 */
export type StatusPath = string | ((taskId: string) => string);

/**
 * Options of `new ProxyClient()`.
 * @example new ProxyClient({ baseUrl: 'https://api.example.com', apiKey: key, timeout: 30_000, wait: { maxIntervalMs: 10_000 } });
 */
export interface ProxyClientOptions extends ClientOptions {
  /**
   * Bearer token sent as `Authorization: Bearer <token>` to the proxy's origin only; a function is
   * called before every request.
   * @example token: process.env.GRAPHCLOUD_TOKEN
   */
  token?: Credential;
  /**
   * Platform key sent as `X-API-Key` instead of a Bearer token (deployments accept either).
   * @example apiKey: process.env.GRAPHCLOUD_API_KEY
   */
  apiKey?: Credential;
  /**
   * Status routes by task kind, merged over the vendors' convention.
   * @default PROXY_DEFAULTS.statusPaths
   * @example statusPaths: { upscale: (id) => `/proxy/imagevendor/v1/ai/image-upscaler/${id}/status` }
   */
  statusPaths?: Partial<Record<TaskKind, StatusPath>>;
  /**
   * How bytes given as image inputs are written.
   * @default PROXY_DEFAULTS.base64Format ({ image: 'raw', video: 'data-url' })
   * @example base64Format: { video: 'raw' }
   */
  base64Format?: Partial<Record<'image' | 'video', Base64Format>>;
  /**
   * Defaults of every `waitForTask()` of this client (per-call options win).
   * @default PROXY_DEFAULTS.wait
   * @example wait: { maxIntervalMs: 10_000 }
   */
  wait?: Omit<WaitOptions, 'signal' | 'onUpdate' | 'headers'>;
  /**
   * Time as the waits see it. Replace it in simulations (see `bench/proxy-wait.ts`).
   * @default Date.now and the core's abortable sleep
   */
  clock?: Clock;
}

const KINDS: Record<TaskKind, 'image' | 'video'> = {
  relight: 'image',
  upscale: 'image',
  styleTransfer: 'image',
  skinEnhancerCreative: 'image',
  skinEnhancerFaithful: 'image',
  referenceToVideo: 'video',
  extend: 'video',
  multiframe: 'video',
};

/**
 * Client of the asynchronous media proxy (Area C): five image tasks under `proxy.image`, three video
 * tasks under `proxy.video`, and `waitForTask()` / `watchTask()` to follow any of them.
 *
 * @example
 * ```ts
 * import { ProxyClient } from 'graphcloud';
 * const proxy = new ProxyClient({ baseUrl: 'https://api.example.com', token });
 * const { urls } = await proxy.image.upscale({ image: { path: './small.png' }, scale_factor: '2x' }, { wait: true });
 * ```
 */
export class ProxyClient {
  readonly baseUrl: string;
  readonly image: ImageResource;
  readonly video: VideoResource;
  readonly #http: HttpClient;
  readonly #statusPaths: Record<TaskKind, StatusPath>;
  readonly #wait: WaitOptions;
  readonly #clock: Clock;

  constructor(options: ProxyClientOptions) {
    const { token, apiKey, statusPaths, base64Format, wait, clock, ...rest } = options;
    if (token !== undefined && apiKey !== undefined) {
      throw new ValidationError([{ path: 'apiKey', rule: 'either token or apiKey, not both', received: '(both given)' }], 'new ProxyClient()');
    }
    const credential = token ?? apiKey;
    const scheme = token !== undefined ? 'bearer' : 'api-key';
    this.#http = new HttpClient({ ...rest, auth: credential === undefined ? undefined : { scheme, credential } });
    this.baseUrl = this.#http.baseUrl;
    this.#statusPaths = { ...PROXY_DEFAULTS.statusPaths, ...statusPaths };
    this.#wait = { ...wait };
    this.#clock = clock ?? realClock;
    const ctx: ProxyContext = {
      http: this.#http,
      base64Format: { ...PROXY_DEFAULTS.base64Format, ...base64Format },
      maxUpscaledPixels: PROXY_DEFAULTS.maxUpscaledPixels,
      wait: (task, waitOptions) => this.waitForTask(task, waitOptions),
    };
    this.image = new ImageResource(ctx);
    this.video = new VideoResource(ctx);
  }

  /**
   * Polls a task until it finishes and resolves to its result URLs. The interval starts near 1 s and
   * grows to 18 s; queued time does not count against `timeout` unless `countQueued` is set; `404`
   * right after submission, `408`, `429`/`503` (honouring `Retry-After`), `5xx` and connection
   * errors are retried. The task is never resubmitted.
   *
   * @throws {TaskFailedError} when the task failed, or succeeded with no result.
   * @throws {TimeoutError} when the budget ran out (the task goes on: there is no cancel route).
   * @example
   * ```ts
   * const task = await proxy.image.upscale({ image: url, scale_factor: '2x' });
   * const { urls } = await proxy.waitForTask(task, { timeout: 10 * 60_000, onUpdate: (s) => console.log(s.phase) });
   * ```
   */
  waitForTask<K extends TaskKind>(task: TaskRef<K>, options?: WaitOptions): Promise<TaskResultOf<K>>;
  async waitForTask(task: TaskRef, options: WaitOptions = {}): Promise<ImageTaskResult | VideoTaskResult> {
    const merged = { ...this.#wait, ...options };
    const final = await waitForStatus(task, this.#reader(task, merged.headers), this.#clock, merged);
    const base = { taskId: final.taskId, status: final.status, urls: final.urls, raw: final.raw };
    if (KINDS[task.kind] === 'image') return { kind: task.kind as ImageTaskKind, ...base };
    const video = final as TaskStatus & Pick<VideoTaskResult, 'creations' | 'credits'>;
    return { kind: task.kind as VideoTaskKind, ...base, creations: video.creations, credits: video.credits };
  }

  /**
   * Status changes of a task as an async iterator: each status that differs from the previous,
   * ending after the terminal one (a failure is yielded with `phase: 'failed'`, not thrown).
   * `break` stops polling and leaves no timer.
   *
   * @throws {TimeoutError} when the budget ran out.
   * @example
   * ```ts
   * for await (const status of proxy.watchTask(task)) {
   *   console.log(status.phase, status.progress);
   *   if (status.phase === 'succeeded') console.log(status.urls);
   * }
   * ```
   */
  watchTask(task: TaskRef, options: Omit<WaitOptions, 'onUpdate'> = {}): AsyncGenerator<TaskStatus, void, undefined> {
    const merged = { ...this.#wait, ...options };
    return pollTask(task, this.#reader(task, merged.headers), this.#clock, merged);
  }

  #reader(task: TaskRef, headers: Record<string, string> | undefined): ReadStatus {
    const check = new Checker();
    check.oneOf('task.kind', task?.kind, Object.keys(KINDS), { required: true });
    check.string('task.taskId', task?.taskId, { required: true });
    check.throwIfInvalid('proxy.waitForTask()');
    const route = this.#statusPaths[task.kind];
    const path = typeof route === 'function' ? route(task.taskId) : route.replaceAll('{task_id}', encodeURIComponent(task.taskId));
    const family = KINDS[task.kind];
    // retry: false: the poll loop retries within the wait's own budget, without nested loops.
    const options = { retry: false as const, headers };
    return async (signal) => {
      if (family === 'image') {
        return imageStatus(task.kind, task.taskId, await this.#http.request({ method: 'GET', path, schema: ImageTaskSchema, options: { ...options, signal } }));
      }
      return videoStatus(task.kind, task.taskId, await this.#http.request({ method: 'GET', path, schema: VideoStatusSchema, options: { ...options, signal } }));
    };
  }

  /** Shows the base URL only: no credential, no internals. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ProxyClient { baseUrl: '${redactUrl(this.baseUrl)}' }`;
  }
}
