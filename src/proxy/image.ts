import type { ImageParamsByKind } from './image-params.js';
import { ImageTaskSchema, toImageTask } from './schemas.js';
import { afterSubmit, submit, type ProxyContext, type SubmitSpec } from './submit.js';
import type { ImageTask, ImageTaskKind, ImageTaskResult, Submitted, SubmitMethod, SubmitOptions } from './types.js';
import {
  checkUpscaledPixels,
  validateRelight,
  validateSkinEnhancerCreative,
  validateSkinEnhancerFaithful,
  validateStyleTransfer,
  validateUpscale,
} from './validate-image.js';

type Spec = Omit<SubmitSpec<typeof ImageTaskSchema>, 'schema' | 'family'>;

const BASE = '/proxy/imagevendor/v1/ai';
const SPECS: Record<ImageTaskKind, Spec> = {
  relight: { call: 'proxy.image.relight()', path: `${BASE}/image-relight`, validate: validateRelight, imageFields: ['image', 'transfer_light_from_lightmap', 'transfer_light_from_reference_image'] },
  upscale: {
    call: 'proxy.image.upscale()',
    path: `${BASE}/image-upscaler`,
    validate: validateUpscale,
    imageFields: ['image'],
    afterEncode: (p, images, check, ctx) => {
      const image = images.get('image');
      if (image) checkUpscaledPixels(check, image, p.scale_factor, ctx.maxUpscaledPixels);
    },
  },
  styleTransfer: { call: 'proxy.image.styleTransfer()', path: `${BASE}/image-style-transfer`, validate: validateStyleTransfer, imageFields: ['image', 'reference_image'] },
  skinEnhancerCreative: { call: 'proxy.image.skinEnhancerCreative()', path: `${BASE}/skin-enhancer/creative`, validate: validateSkinEnhancerCreative, imageFields: ['image'] },
  skinEnhancerFaithful: { call: 'proxy.image.skinEnhancerFaithful()', path: `${BASE}/skin-enhancer/faithful`, validate: validateSkinEnhancerFaithful, imageFields: ['image'] },
};

/**
 * What an image submission resolves to: the task, or with `{ wait }` its result.
 * @example type R = ImageSubmitted<'upscale', { wait: true }>; // ImageTaskResult
 */
export type ImageSubmitted<K extends ImageTaskKind, O> = Promise<Submitted<ImageTask<K>, ImageTaskResult, O>>;

/**
 * Image tasks of the media proxy: `proxy.image`. Each method checks every documented limit, encodes
 * binary inputs to Base64, POSTs once (never retried) and resolves to an `ImageTask`, or with
 * `{ wait: true }` to the finished task's result.
 *
 * @example
 * ```ts
 * const task = await proxy.image.upscale({ image: { path: './small.png' }, scale_factor: '4x' });
 * const { urls } = await proxy.waitForTask(task);
 * ```
 */
export class ImageResource {
  readonly #ctx: ProxyContext;

  constructor(ctx: ProxyContext) {
    this.#ctx = ctx;
  }

  /**
   * Relights an image from a prompt, a light map or a reference image.
   *
   * @throws {ValidationError} for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const done = await proxy.image.relight({ image: url, prompt: 'neon night (blue rim light:1.3)', style: 'contrasted_n_hdr' }, { wait: true });
   * ```
   */
  readonly relight = this.#method('relight');

  /**
   * Upscales an image; the result may not exceed 25.3 million pixels (checked when the input's
   * size can be read: bytes, files and Base64, not URLs).
   *
   * @throws {ValidationError} for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.image.upscale({ image: { path: './small.png' }, scale_factor: '4x', creativity: 2 });
   * ```
   */
  readonly upscale = this.#method('upscale');

  /**
   * Transfers the style of `reference_image` onto `image`.
   *
   * @throws {ValidationError} for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.image.styleTransfer({ image: photo, reference_image: painting, style_strength: 70 });
   * ```
   */
  readonly styleTransfer = this.#method('styleTransfer');

  /**
   * Enhances skin with an artistic, stylised look.
   *
   * @throws {ValidationError} for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.image.skinEnhancerCreative({ image: { path: './face.jpg' }, sharpen: 30 });
   * ```
   */
  readonly skinEnhancerCreative = this.#method('skinEnhancerCreative');

  /**
   * Enhances skin while staying faithful to the original.
   *
   * @throws {ValidationError} for any broken limit (nothing is sent).
   * @example
   * ```ts
   * const task = await proxy.image.skinEnhancerFaithful({ image: 'https://example.com/face.jpg', skin_detail: 90 });
   * ```
   */
  readonly skinEnhancerFaithful = this.#method('skinEnhancerFaithful');

  /** One submission method: the overloads of `SubmitMethod` type what `#run` returns. */
  #method<K extends ImageTaskKind>(kind: K): SubmitMethod<ImageParamsByKind[K], ImageTask<K>, ImageTaskResult> {
    return ((params: unknown, options?: SubmitOptions) => this.#run(kind, params, options)) as SubmitMethod<ImageParamsByKind[K], ImageTask<K>, ImageTaskResult>;
  }

  async #run(kind: ImageTaskKind, params: unknown, options: SubmitOptions | undefined): Promise<ImageTask | unknown> {
    const body = await submit(this.#ctx, { ...SPECS[kind], schema: ImageTaskSchema, family: 'image' }, params, options);
    return afterSubmit(this.#ctx, toImageTask(kind, body), options);
  }

  /** Shows no internals. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'ImageResource { relight, upscale, styleTransfer, skinEnhancerCreative, skinEnhancerFaithful }';
  }
}
