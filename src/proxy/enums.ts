import {
  PORTRAIT_BEAUTIFIERS,
  PORTRAIT_STYLES,
  RELIGHT_ENGINES,
  RELIGHT_STYLES,
  SCALE_FACTORS,
  STYLE_TRANSFER_ENGINES,
  STYLE_TRANSFER_FLAVORS,
  TRANSFER_LIGHT_A,
  TRANSFER_LIGHT_B,
  UPSCALE_ENGINES,
  UPSCALE_OPTIMIZED_FOR,
} from './image-params.js';
import { AUDIO_TYPES, EXTEND_MODELS, EXTEND_RESOLUTIONS, MOVEMENT_AMPLITUDES, VIDEO_DURATIONS, VIDEO_MODELS, VIDEO_RESOLUTIONS, VIDEO_STYLES } from './video-params.js';

/**
 * The documented values of every enumerated param, by task kind and wire field name (for building
 * a form or a menu). The param types carry the same lists; the SDK checks against them before sending.
 *
 * @example
 * ```ts
 * import { PROXY_ENUMS } from 'graphcloud';
 * PROXY_ENUMS.upscale.scale_factor; // ['2x', '4x', '8x', '16x']
 * PROXY_ENUMS.referenceToVideo.duration['videoq3-pro']; // { min: 1, max: 16 }
 * ```
 */
export const PROXY_ENUMS = Object.freeze({
  /** `proxy.image.relight()`. */
  relight: Object.freeze({
    /** `style` values. */
    style: RELIGHT_STYLES,
    /** `advanced_settings` values. */
    advanced_settings: Object.freeze({
      /** `advanced_settings.engine` values. */
      engine: RELIGHT_ENGINES,
      /** `advanced_settings.transfer_light_a` values. */
      transfer_light_a: TRANSFER_LIGHT_A,
      /** `advanced_settings.transfer_light_b` values. */
      transfer_light_b: TRANSFER_LIGHT_B,
    }),
  }),
  /** `proxy.image.upscale()`. */
  upscale: Object.freeze({
    /** `scale_factor` values. */
    scale_factor: SCALE_FACTORS,
    /** `engine` values. */
    engine: UPSCALE_ENGINES,
    /** `optimized_for` values. */
    optimized_for: UPSCALE_OPTIMIZED_FOR,
  }),
  /** `proxy.image.styleTransfer()`. */
  styleTransfer: Object.freeze({
    /** `engine` values. */
    engine: STYLE_TRANSFER_ENGINES,
    /** `flavor` values. */
    flavor: STYLE_TRANSFER_FLAVORS,
    /** `portrait_beautifier` values (with `is_portrait: true`). */
    portrait_beautifier: PORTRAIT_BEAUTIFIERS,
    /** `portrait_style` values (with `is_portrait: true`). */
    portrait_style: PORTRAIT_STYLES,
  }),
  /** `proxy.video.referenceToVideo()`. */
  referenceToVideo: Object.freeze({
    /** `model` values. */
    model: VIDEO_MODELS,
    /** Seconds allowed, by model (models not listed: whole seconds from 1). */
    duration: VIDEO_DURATIONS,
    /** `resolution` values (availability depends on model and duration). */
    resolution: VIDEO_RESOLUTIONS,
    /** `audio_type` values. */
    audio_type: AUDIO_TYPES,
    /** `movement_amplitude` values. */
    movement_amplitude: MOVEMENT_AMPLITUDES,
    /** `style` values. */
    style: VIDEO_STYLES,
  }),
  /** `proxy.video.extend()`. */
  extend: Object.freeze({
    /** `model` values. */
    model: EXTEND_MODELS,
    /** `resolution` values. */
    resolution: EXTEND_RESOLUTIONS,
  }),
  /** `proxy.video.multiframe()`. */
  multiframe: Object.freeze({
    /** `model` values. */
    model: EXTEND_MODELS,
    /** `resolution` values. */
    resolution: EXTEND_RESOLUTIONS,
  }),
});
