import { TASK_KINDS, TASKS, type TaskKind } from './tasks.js';
import { MAX_UPSCALED_PIXELS } from './validate.js';

/**
 * Policies of the media proxy client, frozen. Every option that overrides one of them names it in
 * its `@default` tag; `docs/proxy.md` prints the same table.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from 'graphcloud';
 * console.log(DEFAULTS.proxy.wait.poll.maxDelayMs); // 24000
 * ```
 */
export const PROXY_DEFAULTS = Object.freeze({
  /** The wait for a task (`proxy.waitForTask()`, `{ wait: true }`); override per call with `WaitForTaskOptions`. */
  wait: Object.freeze({
    /**
     * Deadline of one wait in ms. Time the task spends queued does not count unless `countQueued`
     * is set; time spent on failed status reads does. Official clients give up after about 80
     * minutes of non-queued time.
     * @default 4_800_000 (80 minutes)
     */
    waitTimeout: 80 * 60_000,
    /**
     * Whether time between two readings that both said "queued" (`CREATED`, `created`,
     * `queueing`) counts against `waitTimeout`.
     * @default false
     */
    countQueued: false,
    /**
     * Delays between status reads: the first read is sent at once, the next after a random delay
     * between half and all of `minDelayMs`, then of each step grown by `growFactor` up to
     * `maxDelayMs`. The mean completion-to-detection delay of a long task is about 0.39 ×
     * `maxDelayMs` (see `bench/proxy-wait.ts`).
     */
    poll: Object.freeze({
      /** @default 1_000 */
      minDelayMs: 1_000,
      /** @default 24_000 */
      maxDelayMs: 24_000,
      /** @default 2 */
      growFactor: 2,
    }),
    /**
     * How long a `404` is taken for "not visible yet" (status routes can lag the submission)
     * before the first successful reading, in ms from the start of the wait.
     * @default 30_000
     */
    notFoundGraceMs: 30_000,
  }),
  /**
   * Status routes, by task kind; `{task_id}` is replaced by the encoded task id. They are the
   * vendors' convention (docs/wire-protocol.md#media-proxy-status-routes-and-terminal-states);
   * override them with `statusPaths`.
   */
  statusPaths: Object.freeze(Object.fromEntries(TASK_KINDS.map((kind) => [kind, TASKS[kind].statusPath]))) as Readonly<Record<TaskKind, string>>,
  /**
   * How bytes given as an image input are sent: `raw` Base64 (image vendor) or a `data-url`
   * (`data:image/png;base64,...`, which the video vendor requires). Override with `base64Format`.
   */
  base64Format: Object.freeze({
    /** Image tasks: bare Base64. @default 'raw' */
    image: 'raw',
    /** Video tasks: a `data:` URL. @default 'data-url' */
    video: 'data-url',
  } as const),
  /**
   * Largest upscaler result, in pixels (width × height after `scale_factor`).
   * @default 25_300_000
   */
  maxUpscaledPixels: MAX_UPSCALED_PIXELS,
});
