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
  relight: Object.freeze({
    style: RELIGHT_STYLES,
    advanced_settings: Object.freeze({ engine: RELIGHT_ENGINES, transfer_light_a: TRANSFER_LIGHT_A, transfer_light_b: TRANSFER_LIGHT_B }),
  }),
  upscale: Object.freeze({ scale_factor: SCALE_FACTORS, engine: UPSCALE_ENGINES, optimized_for: UPSCALE_OPTIMIZED_FOR }),
  styleTransfer: Object.freeze({ engine: STYLE_TRANSFER_ENGINES, flavor: STYLE_TRANSFER_FLAVORS, portrait_beautifier: PORTRAIT_BEAUTIFIERS, portrait_style: PORTRAIT_STYLES }),
  referenceToVideo: Object.freeze({
    model: VIDEO_MODELS,
    /** Seconds allowed, by model (models not listed: whole seconds from 1). */
    duration: VIDEO_DURATIONS,
    resolution: VIDEO_RESOLUTIONS,
    audio_type: AUDIO_TYPES,
    movement_amplitude: MOVEMENT_AMPLITUDES,
    style: VIDEO_STYLES,
  }),
  extend: Object.freeze({ model: EXTEND_MODELS, resolution: EXTEND_RESOLUTIONS }),
  multiframe: Object.freeze({ model: EXTEND_MODELS, resolution: EXTEND_RESOLUTIONS }),
});
