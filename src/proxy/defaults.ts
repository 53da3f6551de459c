/**
 * Policies of the media proxy client, frozen. Every option that overrides one of them names it in
 * its `@default` tag; `docs/proxy.md` prints the same table.
 *
 * @example
 * ```ts
 * import { PROXY_DEFAULTS } from 'graphcloud';
 * console.log(PROXY_DEFAULTS.wait.maxIntervalMs); // 18000
 * ```
 */
export const PROXY_DEFAULTS = Object.freeze({
  wait: Object.freeze({
    /**
     * Budget of one `waitForTask()` in ms. Time the task spends queued does not count unless
     * `countQueued` is set. Official clients give up after about 80 minutes of non-queued time.
     * @default 4_800_000 (80 minutes)
     */
    timeout: 80 * 60_000,
    /**
     * Whether time the task spends queued (`CREATED`, `created`, `queueing`) counts against `timeout`.
     * @default false
     */
    countQueued: false,
    /**
     * Delay before the second status request, in ms; the first is sent at once.
     * @default 1_000
     */
    initialIntervalMs: 1_000,
    /**
     * Growth of the delay after each status request (1, 2, 4, 8, 16, then 18 s).
     * @default 2
     */
    growFactor: 2,
    /**
     * Cap of the delay between two status requests, in ms. The mean delay between completion and
     * detection of a long task is half of it (see `bench/proxy-wait.ts`).
     * @default 18_000
     */
    maxIntervalMs: 18_000,
    /**
     * How long a `404` is taken for "not visible yet" (status routes can lag the submission) before
     * it is reported as a `NotFoundError`, in ms from the start of the wait.
     * @default 30_000
     */
    notFoundGraceMs: 30_000,
  }),
  /**
   * Status routes, by task kind; `{task_id}` is replaced by the encoded task id. They are the
   * vendors' convention (not in the interface document); override them with `statusPaths`.
   */
  statusPaths: Object.freeze({
    relight: '/proxy/imagevendor/v1/ai/image-relight/{task_id}',
    upscale: '/proxy/imagevendor/v1/ai/image-upscaler/{task_id}',
    styleTransfer: '/proxy/imagevendor/v1/ai/image-style-transfer/{task_id}',
    skinEnhancerCreative: '/proxy/imagevendor/v1/ai/skin-enhancer/{task_id}',
    skinEnhancerFaithful: '/proxy/imagevendor/v1/ai/skin-enhancer/{task_id}',
    referenceToVideo: '/proxy/videovendor/tasks/{task_id}/creations',
    extend: '/proxy/videovendor/tasks/{task_id}/creations',
    multiframe: '/proxy/videovendor/tasks/{task_id}/creations',
  }),
  /**
   * How bytes given as an image input are sent: `raw` Base64 (image vendor) or a `data-url`
   * (`data:image/png;base64,...`, which the video vendor requires). Override with `base64Format`.
   */
  base64Format: Object.freeze({ image: 'raw', video: 'data-url' } as const),
  /**
   * Largest upscaler result, in pixels (width × height after `scale_factor`).
   * @default 25_300_000
   */
  maxUpscaledPixels: 25_300_000,
});
