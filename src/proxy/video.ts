import { VideoTaskSchema, toVideoTask } from './schemas.js';
import { afterSubmit, submit, type ProxyContext, type SubmitSpec } from './submit.js';
import type { Submitted, SubmitMethod, SubmitOptions, VideoTask, VideoTaskKind, VideoTaskResult } from './types.js';
import { validateExtend, validateMultiframe, validateReferenceToVideo } from './validate-video.js';
import type { VideoParamsByKind } from './video-params.js';

type Spec = Omit<SubmitSpec<typeof VideoTaskSchema>, 'schema' | 'family'>;

const SPECS: Record<VideoTaskKind, Spec> = {
  referenceToVideo: { call: 'proxy.video.referenceToVideo()', path: '/proxy/videovendor/reference2video', validate: validateReferenceToVideo, imageFields: ['images[]'] },
  extend: { call: 'proxy.video.extend()', path: '/proxy/videovendor/extend', validate: validateExtend, imageFields: ['images[]'] },
  multiframe: { call: 'proxy.video.multiframe()', path: '/proxy/videovendor/multiframe', validate: validateMultiframe, imageFields: ['start_image', 'image_settings[].key_image'] },
};

/**
 * What a video submission resolves to: the task, or with `{ wait }` its result.
 * @example type R = VideoSubmitted<'extend', { wait: true }>; // VideoTaskResult
 */
export type VideoSubmitted<K extends VideoTaskKind, O> = Promise<Submitted<VideoTask<K>, VideoTaskResult, O>>;

/**
 * Video tasks of the media proxy: `proxy.video`. Each method checks every documented limit, encodes
 * binary images as `data:` URLs, POSTs once (never retried) and resolves to a `VideoTask`, or with
 * `{ wait: true }` to the finished task's result.
 *
 * @example
 * ```ts
 * const task = await proxy.video.referenceToVideo({ model: 'videoq2-pro', prompt: 'waves', images: [{ path: './sea.png' }] });
 * const { urls: [video] } = await proxy.waitForTask(task);
 * ```
 */
export class VideoResource {
  readonly #ctx: ProxyContext;

  constructor(ctx: ProxyContext) {
    this.#ctx = ctx;
  }

  /**
   * Generates a video from a prompt and, optionally, one start-frame image.
   *
   * @throws {ValidationError} for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.video.referenceToVideo({ model: 'videoq3-pro', prompt: 'a lighthouse in a storm', duration: 12, resolution: '1080p' });
   * ```
   */
  readonly referenceToVideo = this.#method('referenceToVideo');

  /**
   * Extends a video (given by creation id and URL) by 1 to 7 seconds.
   *
   * @throws {ValidationError} for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.video.extend({ model: 'videoq2-pro', video_creation_id: id, video_url: url, duration: 5 });
   * ```
   */
  readonly extend = this.#method('extend');

  /**
   * Generates a video through 2 to 9 key frames after a start image.
   *
   * @throws {ValidationError} for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.video.multiframe({ model: 'videoq2-turbo', start_image: a, image_settings: [{ key_image: b, duration: 2 }, { key_image: c, duration: 2 }] });
   * ```
   */
  readonly multiframe = this.#method('multiframe');

  /** One submission method: the overloads of `SubmitMethod` type what `#run` returns. */
  #method<K extends VideoTaskKind>(kind: K): SubmitMethod<VideoParamsByKind[K], VideoTask<K>, VideoTaskResult> {
    return ((params: unknown, options?: SubmitOptions) => this.#run(kind, params, options)) as SubmitMethod<VideoParamsByKind[K], VideoTask<K>, VideoTaskResult>;
  }

  async #run(kind: VideoTaskKind, params: unknown, options: SubmitOptions | undefined): Promise<VideoTask | unknown> {
    const body = await submit(this.#ctx, { ...SPECS[kind], schema: VideoTaskSchema, family: 'video' }, params, options);
    return afterSubmit(this.#ctx, toVideoTask(kind, body), options);
  }

  /** Shows no internals. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'VideoResource { referenceToVideo, extend, multiframe }';
  }
}
