import type { Checker } from '../core/index.js';
import type { RelightParams, SkinEnhancerCreativeParams, SkinEnhancerFaithfulParams, StyleTransferParams, UpscaleParams } from './image-params.js';
import type { ResolvedImage } from './inputs.js';
import * as validate from './validate.js';
import type { FieldRules, Fields } from './validate.js';
import type { ExtendParams, MultiframeParams, ReferenceToVideoParams } from './video-params.js';

// Adding a task kind: its params type, one property below (the method's docs, in the image or
// the video interface), one entry in TASKS. Everything else (kinds, status routes,
// `proxy.image.*` / `proxy.video.*`, the wait's routing, the exported types) derives from these.

/**
 * The params of each image task kind. Each property is also the documentation of the method that
 * submits it (`proxy.image.upscale()` shows the JSDoc of `upscale` below).
 *
 * @example
 * ```ts
 * const params: ImageTaskParams['upscale'] = { image: { path: './small.png' }, scale_factor: '4x' };
 * ```
 */
export interface ImageTaskParams {
  /**
   * Relights an image from a prompt, a light map or a reference image.
   *
   * @throws `ValidationError` for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const done = await proxy.image.relight({ image: url, prompt: 'neon night (blue rim light:1.3)', style: 'contrasted_n_hdr' }, { wait: true });
   * ```
   */
  relight: RelightParams;
  /**
   * Upscales an image; the result may not exceed 25.3 million pixels (checked when the input's
   * size can be read: bytes, files and Base64, not URLs).
   *
   * @throws `ValidationError` for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.image.upscale({ image: { path: './small.png' }, scale_factor: '4x', creativity: 2 });
   * ```
   */
  upscale: UpscaleParams;
  /**
   * Transfers the style of `reference_image` onto `image`.
   *
   * @throws `ValidationError` for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.image.styleTransfer({ image: photo, reference_image: painting, style_strength: 70 });
   * ```
   */
  styleTransfer: StyleTransferParams;
  /**
   * Enhances skin with an artistic, stylised look.
   *
   * @throws `ValidationError` for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.image.skinEnhancerCreative({ image: { path: './face.jpg' }, sharpen: 30 });
   * ```
   */
  skinEnhancerCreative: SkinEnhancerCreativeParams;
  /**
   * Enhances skin while staying faithful to the original.
   *
   * @throws `ValidationError` for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.image.skinEnhancerFaithful({ image: 'https://example.com/face.jpg', skin_detail: 90 });
   * ```
   */
  skinEnhancerFaithful: SkinEnhancerFaithfulParams;
}

/**
 * The params of each video task kind; each property documents the method that submits it.
 *
 * @example
 * ```ts
 * const params: VideoTaskParams['extend'] = { model: 'videoq2-pro', video_creation_id: id, video_url: url };
 * ```
 */
export interface VideoTaskParams {
  /**
   * Generates a video from a prompt and, optionally, one start-frame image.
   *
   * @throws `ValidationError` for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.video.referenceToVideo({ model: 'videoq3-pro', prompt: 'a lighthouse in a storm', duration: 12, resolution: '1080p' });
   * ```
   */
  referenceToVideo: ReferenceToVideoParams;
  /**
   * Extends a video (given by creation id and URL) by 1 to 7 seconds.
   *
   * @throws `ValidationError` for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.video.extend({ model: 'videoq2-pro', video_creation_id: id, video_url: url, duration: 5 });
   * ```
   */
  extend: ExtendParams;
  /**
   * Generates a video through 2 to 9 key frames after a start image.
   *
   * @throws `ValidationError` for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.video.multiframe({ model: 'videoq2-turbo', start_image: a, image_settings: [{ key_image: b, duration: 2 }, { key_image: c, duration: 2 }] });
   * ```
   */
  multiframe: MultiframeParams;
}

/**
 * The params of each task kind, by kind.
 *
 * @example
 * ```ts
 * const params: TaskParams['upscale'] = { image: { path: './small.png' }, scale_factor: '4x' };
 * ```
 */
export interface TaskParams extends ImageTaskParams, VideoTaskParams {}

/**
 * Every task kind; it decides the submission route, the status route and the result type.
 * @example const kind: TaskKind = 'multiframe';
 */
export type TaskKind = keyof TaskParams;

/**
 * Image task kinds, named after the `proxy.image` method that submits them.
 * @example const kind: ImageTaskKind = 'upscale';
 */
export type ImageTaskKind = keyof ImageTaskParams;

/**
 * Video task kinds, named after the `proxy.video` method that submits them.
 * @example const kind: VideoTaskKind = 'extend';
 */
export type VideoTaskKind = keyof VideoTaskParams;

/** What the SDK knows about one task kind. */
interface TaskSpec<F extends 'image' | 'video' = 'image' | 'video'> {
  /** `image` tasks answer `{ task_id, status, generated }`, `video` tasks `{ task_id, state, credits }`. */
  family: F;
  /** Where the task is submitted (POST). */
  submitPath: string;
  /** Where its status is read (GET); `{task_id}` is replaced by the encoded id. Override: `statusPaths`. */
  statusPath: string;
  /** The checks of every documented limit of the params, by field (`checkFields`). */
  rules: FieldRules;
  /** Where image inputs sit: `image`, `images[]`, `image_settings[].key_image`. */
  imageFields: readonly string[];
  /** Checks that need the encoded images (the upscaler's pixel limit). */
  afterEncode?(params: Fields, images: ReadonlyMap<string, ResolvedImage>, check: Checker): void;
  /** The body as sent, from a copy of the params (checked or not): fields the server ignores are left out. */
  toWire?(body: Fields): Fields;
}

// The compiler checks the table against the params interfaces: one entry per kind, of its family.
type TaskTable = { readonly [K in ImageTaskKind]: TaskSpec<'image'> } & { readonly [K in VideoTaskKind]: TaskSpec<'video'> };

// Submission routes: docs/wire-protocol.md#media-proxy-submissions-and-envelopes. Status routes are
// the vendors' convention (docs/wire-protocol.md#media-proxy-status-routes-and-terminal-states): an
// image task's status is read under its submission route (`statusRoute` when they differ), and
// every video task's on one route.
const IMAGE = '/proxy/imagevendor/v1/ai';
const image = (route: string, rules: FieldRules, imageFields: readonly string[], statusRoute = route): TaskSpec<'image'> => ({
  family: 'image',
  submitPath: `${IMAGE}/${route}`,
  statusPath: `${IMAGE}/${statusRoute}/{task_id}`,
  rules,
  imageFields,
});
const video = (route: string, rules: FieldRules, imageFields: readonly string[]): TaskSpec<'video'> => ({
  family: 'video',
  submitPath: `/proxy/videovendor/${route}`,
  statusPath: '/proxy/videovendor/tasks/{task_id}/creations',
  rules,
  imageFields,
});

/**
 * Every task kind of the media proxy. Read by the submission methods, the option rules and the wait.
 *
 * @example
 * ```ts
 * TASKS.upscale.statusPath; // '/proxy/imagevendor/v1/ai/image-upscaler/{task_id}'
 * ```
 */
export const TASKS: Readonly<TaskTable> = Object.freeze({
  relight: image('image-relight', validate.RELIGHT, ['image', 'transfer_light_from_lightmap', 'transfer_light_from_reference_image']),
  upscale: {
    ...image('image-upscaler', validate.UPSCALE, ['image']),
    afterEncode: (params, images, check) => validate.checkUpscaledPixels(check, images.get('image'), params.scale_factor),
  },
  styleTransfer: {
    ...image('image-style-transfer', validate.STYLE_TRANSFER, ['image', 'reference_image']),
    toWire: validate.withoutIgnoredPortraitFields,
  },
  // The two skin enhancers share one status route.
  skinEnhancerCreative: image('skin-enhancer/creative', validate.skinEnhancer('sharpen', 'smart_grain'), ['image'], 'skin-enhancer'),
  skinEnhancerFaithful: image(
    'skin-enhancer/faithful', validate.skinEnhancer('sharpen', 'skin_detail', 'smart_grain'), ['image'], 'skin-enhancer'),
  referenceToVideo: video('reference2video', validate.REFERENCE_TO_VIDEO, ['images[]']),
  extend: video('extend', validate.EXTEND, ['images[]']),
  multiframe: video('multiframe', validate.MULTIFRAME, ['start_image', 'image_settings[].key_image']),
} satisfies TaskTable);

/**
 * Every task kind, in table order.
 * @example TASK_KINDS.includes('upscale'); // true
 */
export const TASK_KINDS = Object.freeze(Object.keys(TASKS) as TaskKind[]);
