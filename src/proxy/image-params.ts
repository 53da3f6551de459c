import type { PROXY_ENUMS } from './enums.js';
import type { ProxyImageInput } from './inputs.js';

// Wire names are the vendor's (snake_case): users copy them from vendor documentation. The enum
// values are PROXY_ENUMS' lists (docs/wire-protocol.md#media-proxy-limits-checked-before-sending).
type Relight = typeof PROXY_ENUMS.relight;
type Upscale = typeof PROXY_ENUMS.upscale;
type StyleTransfer = typeof PROXY_ENUMS.styleTransfer;

/** Fields every image task accepts. */
interface ImageTaskCommon {
  /**
   * Receives a notification whenever the task changes status. Sent unchanged; its payload and any
   * signature are undocumented, so the SDK verifies nothing.
   */
  webhook_url?: string;
}

/**
 * `advanced_settings` of relight. Sliders are integers from 0 to 100.
 * @example const advanced: RelightAdvancedSettings = { contrast: 70, engine: 'real', transfer_light_a: 'high_on_faces' };
 */
export interface RelightAdvancedSettings {
  /** @default 50 */
  whites?: number;
  /** @default 50 */
  blacks?: number;
  /** @default 50 */
  brightness?: number;
  /** @default 50 */
  contrast?: number;
  /** @default 50 */
  saturation?: number;
  /** @default 'automatic' */
  engine?: Relight['advanced_settings']['engine'][number];
  /** Same settings give the same image. @default false */
  fixed_generation?: boolean;
  /** @default 'automatic' */
  transfer_light_a?: Relight['advanced_settings']['transfer_light_a'][number];
  /** Combines with `transfer_light_a`. @default 'automatic' */
  transfer_light_b?: Relight['advanced_settings']['transfer_light_b'][number];
}

/**
 * Body of `proxy.image.relight()` (`POST /proxy/imagevendor/v1/ai/image-relight`).
 *
 * @example
 * ```ts
 * const params: RelightParams = { image: { path: './portrait.jpg' }, prompt: 'sunset (warm light:1.2)', light_transfer_strength: 80 };
 * ```
 */
export interface RelightParams extends ImageTaskCommon {
  /** Required. URL, Base64, bytes, a `Blob` or `{ path }`. */
  image: ProxyImageInput;
  /** Guides the light transfer; a part may be weighted `(text:weight)` with a weight from 1 to 1.4. */
  prompt?: string;
  /** @default 'standard' */
  style?: Relight['style'][number];
  /** @default true */
  change_background?: boolean;
  /** @default true */
  preserve_details?: boolean;
  /** @default false */
  interpolate_from_original?: boolean;
  /** 0 (closest to the original) to 100. @default 100 */
  light_transfer_strength?: number;
  /** Light map; cannot be combined with `transfer_light_from_reference_image`. */
  transfer_light_from_lightmap?: ProxyImageInput;
  /** Reference image; cannot be combined with `transfer_light_from_lightmap`. */
  transfer_light_from_reference_image?: ProxyImageInput;
  /** Finer control of the light transfer. */
  advanced_settings?: RelightAdvancedSettings;
}

/**
 * Body of `proxy.image.upscale()` (`POST /proxy/imagevendor/v1/ai/image-upscaler`). The result may
 * not exceed 25.3 million pixels; the SDK checks this when it can read the input's size.
 *
 * @example
 * ```ts
 * const params: UpscaleParams = { image: { path: './small.png' }, scale_factor: '4x', optimized_for: 'films_n_photography' };
 * ```
 */
export interface UpscaleParams extends ImageTaskCommon {
  /** Required. URL, Base64, bytes, a `Blob` or `{ path }`. */
  image: ProxyImageInput;
  /** Higher scales take longer. Default not documented (the vendor uses `2x`). */
  scale_factor?: Upscale['scale_factor'][number];
  /** The upscaling model. @default the vendor's (`automatic`) */
  engine?: Upscale['engine'][number];
  /** The kind of image to tune for. @default the vendor's (`standard`) */
  optimized_for?: Upscale['optimized_for'][number];
  /** Reusing the prompt of an AI-generated image improves results. */
  prompt?: string;
  /** -10 to 10. */
  creativity?: number;
  /** -10 to 10: strength of the prompt and intricacy per square pixel. */
  fractality?: number;
  /** -10 to 10: level of definition and detail. */
  hdr?: number;
  /** -10 to 10. */
  resemblance?: number;
}

/**
 * Body of `proxy.image.styleTransfer()` (`POST /proxy/imagevendor/v1/ai/image-style-transfer`).
 *
 * @example
 * ```ts
 * const params: StyleTransferParams = { image: url, reference_image: styleUrl, style_strength: 60, is_portrait: true, portrait_style: 'pop' };
 * ```
 */
export interface StyleTransferParams extends ImageTaskCommon {
  /** Required by the SDK: the image to restyle. */
  image: ProxyImageInput;
  /** Required by the SDK: the style reference. */
  reference_image: ProxyImageInput;
  /** The style transfer model. */
  engine?: StyleTransfer['engine'][number];
  /** How the style is applied (`faithful`, `gen_z`...). */
  flavor?: StyleTransfer['flavor'][number];
  /** Same settings give the same image. */
  fixed_generation?: boolean;
  /** Process as a portrait; `portrait_beautifier` and `portrait_style` need it `true`. */
  is_portrait?: boolean;
  /** Face retouching; used only with `is_portrait: true` (ignored by the server otherwise). */
  portrait_beautifier?: StyleTransfer['portrait_beautifier'][number];
  /** Portrait look; used only with `is_portrait: true` (ignored by the server otherwise). */
  portrait_style?: StyleTransfer['portrait_style'][number];
  /** Text guiding the restyled image. */
  prompt?: string;
  /** 0 to 100: keeps the original structure. */
  structure_strength?: number;
  /** 0 to 100, a percentage. */
  style_strength?: number;
}

/**
 * Body of `proxy.image.skinEnhancerCreative()` (`POST /proxy/imagevendor/v1/ai/skin-enhancer/creative`).
 *
 * @example
 * ```ts
 * const params: SkinEnhancerCreativeParams = { image: 'https://example.com/face.jpg', sharpen: 20, smart_grain: 5 };
 * ```
 */
export interface SkinEnhancerCreativeParams extends ImageTaskCommon {
  /** Required by the SDK. Base64 or a publicly accessible HTTPS URL (or bytes the SDK encodes). */
  image: ProxyImageInput;
  /** 0 to 100. */
  sharpen?: number;
  /** 0 to 100. */
  smart_grain?: number;
}

/**
 * Body of `proxy.image.skinEnhancerFaithful()` (`POST /proxy/imagevendor/v1/ai/skin-enhancer/faithful`).
 *
 * @example
 * ```ts
 * const params: SkinEnhancerFaithfulParams = { image: { path: './face.jpg' }, skin_detail: 90 };
 * ```
 */
export interface SkinEnhancerFaithfulParams extends ImageTaskCommon {
  /** Required. Base64 or a publicly accessible HTTPS URL (or bytes the SDK encodes). */
  image: ProxyImageInput;
  /** 0 to 100. @default 0 */
  sharpen?: number;
  /** 0 to 100. @default 80 */
  skin_detail?: number;
  /** 0 to 100. @default 2 */
  smart_grain?: number;
}
