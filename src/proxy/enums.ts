// The documented values of the enumerated params, in the vendors' own (snake_case) field names
// (docs/wire-protocol.md#media-proxy-limits-checked-before-sending). The params types, the checks
// and PROXY_ENUMS all read these lists.

const VIDEO_MODELS = Object.freeze(['videoq3-pro', 'videoq2-pro-fast', 'videoq2-pro', 'videoq2-turbo', 'videoq1', 'videoq1-classic', 'video2.0'] as const);
// `extend` and `multiframe` take the same models and resolutions.
const Q2_MODELS = Object.freeze(['videoq2-pro', 'videoq2-turbo'] as const);
const Q2_RESOLUTIONS = Object.freeze(['540p', '720p', '1080p'] as const);
const VIDEO_DURATIONS: Readonly<Partial<Record<(typeof VIDEO_MODELS)[number], DurationRange>>> = Object.freeze({
  'videoq3-pro': Object.freeze({ min: 1, max: 16 }),
  'videoq2-pro-fast': Object.freeze({ min: 1, max: 10 }),
  'videoq2-pro': Object.freeze({ min: 1, max: 8 }),
  'videoq2-turbo': Object.freeze({ min: 1, max: 8 }),
});

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
    style: Object.freeze(['standard', 'darker_but_realistic', 'clean', 'smooth', 'brighter', 'contrasted_n_hdr', 'just_composition'] as const),
    /** `advanced_settings` values. */
    advanced_settings: Object.freeze({
      /** `advanced_settings.engine` values. */
      engine: Object.freeze(['automatic', 'balanced', 'cool', 'real', 'illusio', 'fairy', 'colorful_anime', 'hard_transform', 'softy'] as const),
      /** `advanced_settings.transfer_light_a` values. */
      transfer_light_a: Object.freeze(['automatic', 'low', 'medium', 'normal', 'high', 'high_on_faces'] as const),
      /** `advanced_settings.transfer_light_b` values. */
      transfer_light_b: Object.freeze(['automatic', 'composition', 'straight', 'smooth_in', 'smooth_out', 'smooth_both', 'reverse_both', 'soft_in', 'soft_out', 'soft_mid', 'strong_mid', 'style_shift', 'strong_shift'] as const),
    }),
  }),
  /** `proxy.image.upscale()`. */
  upscale: Object.freeze({
    /** `scale_factor` values. */
    scale_factor: Object.freeze(['2x', '4x', '8x', '16x'] as const),
    /** `engine` values. */
    engine: Object.freeze(['automatic', 'vendor_illusio', 'vendor_sharpy', 'vendor_sparkle'] as const),
    /** `optimized_for` values. */
    optimized_for: Object.freeze(['standard', 'soft_portraits', 'hard_portraits', 'art_n_illustration', 'videogame_assets', 'nature_n_landscapes', 'films_n_photography', '3d_renders', 'science_fiction_n_horror'] as const),
  }),
  /** `proxy.image.styleTransfer()`. */
  styleTransfer: Object.freeze({
    /** `engine` values. */
    engine: Object.freeze(['balanced', 'definio', 'illusio', '3d_cartoon', 'colorful_anime', 'caricature', 'real', 'super_real', 'softy'] as const),
    /** `flavor` values. */
    flavor: Object.freeze(['faithful', 'gen_z', 'psychedelia', 'detaily', 'clear', 'donotstyle', 'donotstyle_sharp'] as const),
    /** `portrait_beautifier` values (with `is_portrait: true`). */
    portrait_beautifier: Object.freeze(['beautify_face', 'beautify_face_max'] as const),
    /** `portrait_style` values (with `is_portrait: true`). */
    portrait_style: Object.freeze(['standard', 'pop', 'super_pop'] as const),
  }),
  /** `proxy.video.referenceToVideo()`. */
  referenceToVideo: Object.freeze({
    /** `model` values. */
    model: VIDEO_MODELS,
    /** Seconds allowed, by model (models not listed: whole seconds from 1). */
    duration: VIDEO_DURATIONS,
    /** `resolution` values (availability depends on model and duration). */
    resolution: Object.freeze(['360p', '540p', '720p', '1080p', '2K'] as const),
    /** `audio_type` values. */
    audio_type: Object.freeze(['all', 'speech_only', 'sound_effect_only'] as const),
    /** `movement_amplitude` values. */
    movement_amplitude: Object.freeze(['auto', 'small', 'medium', 'large'] as const),
    /** `style` values. */
    style: Object.freeze(['general', 'anime'] as const),
  }),
  /** `proxy.video.extend()`. */
  extend: Object.freeze({
    /** `model` values. */
    model: Q2_MODELS,
    /** `resolution` values. */
    resolution: Q2_RESOLUTIONS,
  }),
  /** `proxy.video.multiframe()`. */
  multiframe: Object.freeze({
    /** `model` values. */
    model: Q2_MODELS,
    /** `resolution` values. */
    resolution: Q2_RESOLUTIONS,
  }),
});

/**
 * The seconds a video model's video may last (`PROXY_ENUMS.referenceToVideo.duration`).
 * @example const { min, max }: DurationRange = PROXY_ENUMS.referenceToVideo.duration['videoq3-pro']!;
 */
export interface DurationRange {
  /** Shortest duration, in seconds. */
  readonly min: number;
  /** Longest duration, in seconds. */
  readonly max: number;
}
