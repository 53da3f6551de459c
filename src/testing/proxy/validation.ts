import { isObject } from '../server/request.js';
import { pngSize } from '../files/png.js';

interface FieldSpec {
  type: 'string' | 'boolean' | 'integer' | 'string[]' | 'object' | 'array';
  required?: boolean;
  min?: number;
  max?: number;
  oneOf?: readonly string[];
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  /** Base64 or an http(s)/data URL. */
  media?: boolean;
  uri?: boolean;
}

type Specs = Record<string, FieldSpec>;

const int = (min: number, max: number): FieldSpec => ({ type: 'integer', min, max });
const en = (...oneOf: string[]): FieldSpec => ({ type: 'string', oneOf });
const bool: FieldSpec = { type: 'boolean' };
const str: FieldSpec = { type: 'string' };
const media = (required = false): FieldSpec => ({ type: 'string', media: true, required });
const INT32 = 2_147_483_647;

/**
 * Model names of the video proxy.
 *
 * @example
 * VIDEO_MODELS.includes('videoq3-pro'); // true
 */
export const VIDEO_MODELS = Object.freeze(['videoq3-pro', 'videoq2-pro-fast', 'videoq2-pro', 'videoq2-turbo', 'videoq1', 'videoq1-classic', 'video2.0']);

/** Duration range (seconds) per video model; other models: 1 to 16. See docs/wire-protocol.md#media-proxy-limits-checked-before-sending. */
const DURATIONS: Record<string, [number, number]> = {
  'videoq3-pro': [1, 16],
  'videoq2-pro-fast': [1, 10],
  'videoq2-pro': [1, 8],
  'videoq2-turbo': [1, 8],
};

/** Upscaler result limit; see docs/wire-protocol.md#media-proxy-limits-checked-before-sending. */
const MAX_UPSCALED_PIXELS = 25_300_000;

const ADVANCED: Specs = {
  blacks: int(0, 100), brightness: int(0, 100), contrast: int(0, 100), saturation: int(0, 100), whites: int(0, 100),
  engine: en('automatic', 'balanced', 'cool', 'real', 'illusio', 'fairy', 'colorful_anime', 'hard_transform', 'softy'),
  fixed_generation: bool,
  transfer_light_a: en('automatic', 'low', 'medium', 'normal', 'high', 'high_on_faces'),
  transfer_light_b: en('automatic', 'composition', 'straight', 'smooth_in', 'smooth_out', 'smooth_both', 'reverse_both', 'soft_in', 'soft_out', 'soft_mid', 'strong_mid', 'style_shift', 'strong_shift'),
};

const IMAGE_SPECS: Record<string, Specs> = {
  'image-relight': {
    image: media(true), prompt: str,
    style: en('standard', 'darker_but_realistic', 'clean', 'smooth', 'brighter', 'contrasted_n_hdr', 'just_composition'),
    change_background: bool, preserve_details: bool, interpolate_from_original: bool, light_transfer_strength: int(0, 100),
    transfer_light_from_lightmap: media(), transfer_light_from_reference_image: media(),
    webhook_url: { type: 'string', uri: true }, advanced_settings: { type: 'object' },
  },
  'image-upscaler': {
    image: media(true), creativity: int(-10, 10), fractality: int(-10, 10), hdr: int(-10, 10), resemblance: int(-10, 10),
    engine: en('automatic', 'vendor_illusio', 'vendor_sharpy', 'vendor_sparkle'),
    optimized_for: en('standard', 'soft_portraits', 'hard_portraits', 'art_n_illustration', 'videogame_assets', 'nature_n_landscapes', 'films_n_photography', '3d_renders', 'science_fiction_n_horror'),
    prompt: str, scale_factor: en('2x', '4x', '8x', '16x'), webhook_url: str,
  },
  'image-style-transfer': {
    image: media(true), reference_image: media(true),
    engine: en('balanced', 'definio', 'illusio', '3d_cartoon', 'colorful_anime', 'caricature', 'real', 'super_real', 'softy'),
    fixed_generation: bool, flavor: en('faithful', 'gen_z', 'psychedelia', 'detaily', 'clear', 'donotstyle', 'donotstyle_sharp'),
    is_portrait: bool, portrait_beautifier: en('beautify_face', 'beautify_face_max'), portrait_style: en('standard', 'pop', 'super_pop'),
    prompt: str, structure_strength: int(0, 100), style_strength: int(0, 100), webhook_url: str,
  },
  'skin-enhancer/creative': { image: media(true), sharpen: int(0, 100), smart_grain: int(0, 100), webhook_url: str },
  'skin-enhancer/faithful': { image: media(true), sharpen: int(0, 100), skin_detail: int(0, 100), smart_grain: int(0, 100), webhook_url: { type: 'string', uri: true } },
};

const PAYLOAD: FieldSpec = { type: 'string', maxLength: 1_048_576 };
const PROMPT: FieldSpec = { type: 'string', maxLength: 2000 };

const VIDEO_SPECS: Record<string, Specs> = {
  reference2video: {
    model: { type: 'string', required: true, oneOf: VIDEO_MODELS }, prompt: PROMPT,
    images: { type: 'string[]', maxItems: 1 }, duration: int(1, INT32),
    resolution: en('360p', '540p', '720p', '1080p', '2K'), aspect_ratio: str, audio: bool,
    audio_type: en('all', 'speech_only', 'sound_effect_only'), bgm: bool, voice_id: str,
    movement_amplitude: en('auto', 'small', 'medium', 'large'), style: en('general', 'anime'), enhance: bool, is_rec: bool,
    meta_data: str, off_peak: bool, priority: int(-INT32, INT32), seed: int(-INT32, INT32), watermark: bool,
    wm_position: int(1, 4), wm_url: str, callback_url: str, payload: PAYLOAD,
  },
  extend: {
    model: { type: 'string', required: true, oneOf: ['videoq2-pro', 'videoq2-turbo'] }, duration: int(1, 7),
    images: { type: 'string[]', maxItems: 1 }, prompt: PROMPT, resolution: en('540p', '720p', '1080p'),
    video_creation_id: str, video_url: str, callback_url: str, payload: PAYLOAD,
  },
  multiframe: {
    image_settings: { type: 'array', required: true, minItems: 2, maxItems: 9 },
    model: { type: 'string', required: true, oneOf: ['videoq2-pro', 'videoq2-turbo'] },
    start_image: media(true), resolution: en('540p', '720p', '1080p'), callback_url: str, payload: PAYLOAD,
  },
};

function isMedia(value: string): boolean {
  if (/^(https?:\/\/|data:)/i.test(value)) return true;
  return value.length > 0 && /^[A-Za-z0-9+/=\s_-]+$/.test(value);
}

function checkFields(body: Record<string, unknown>, specs: Specs, prefix = ''): string[] {
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    const value = body[name];
    const label = `${prefix}${name}`;
    if (value === undefined || value === null) {
      if (spec.required) problems.push(`${label} is required`);
      continue;
    }
    if (spec.type === 'integer') {
      if (typeof value !== 'number' || !Number.isInteger(value)) problems.push(`${label} must be an integer`);
      else if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) problems.push(`${label} must be between ${spec.min} and ${spec.max}`);
    } else if (spec.type === 'boolean') {
      if (typeof value !== 'boolean') problems.push(`${label} must be a boolean`);
    } else if (spec.type === 'object') {
      if (!isObject(value)) problems.push(`${label} must be an object`);
    } else if (spec.type === 'array' || spec.type === 'string[]') {
      if (!Array.isArray(value) || (spec.type === 'string[]' && !value.every((item) => typeof item === 'string'))) problems.push(`${label} must be an array${spec.type === 'string[]' ? ' of strings' : ''}`);
      else if (spec.minItems !== undefined && value.length < spec.minItems) problems.push(`${label} must have at least ${spec.minItems} items`);
      else if (spec.maxItems !== undefined && value.length > spec.maxItems) problems.push(`${label} accepts at most ${spec.maxItems} item${spec.maxItems === 1 ? '' : 's'}`);
    } else if (typeof value !== 'string') {
      problems.push(`${label} must be a string`);
    } else if (spec.oneOf && !spec.oneOf.includes(value)) {
      problems.push(`${label} must be one of ${spec.oneOf.join(', ')}`);
    } else if (spec.maxLength !== undefined && value.length > spec.maxLength) {
      problems.push(`${label} must be at most ${spec.maxLength} characters`);
    } else if (spec.media && !isMedia(value)) {
      problems.push(`${label} must be Base64 or a URL`);
    } else if (spec.uri && !URL.canParse(value)) {
      problems.push(`${label} must be a URI`);
    }
  }
  return problems;
}

/**
 * Validates an image proxy body; returns the problems (empty when valid).
 *
 * @example
 * validateImageBody('image-upscaler', { image: 'abc', creativity: 11 }); // ['creativity must be between -10 and 10']
 */
export function validateImageBody(endpoint: string, body: Record<string, unknown>): string[] {
  const problems = checkFields(body, IMAGE_SPECS[endpoint] ?? {});
  if (endpoint === 'image-relight') {
    if (body.transfer_light_from_lightmap !== undefined && body.transfer_light_from_reference_image !== undefined) {
      problems.push('transfer_light_from_lightmap and transfer_light_from_reference_image are incompatible');
    }
    if (isObject(body.advanced_settings)) problems.push(...checkFields(body.advanced_settings, ADVANCED, 'advanced_settings.'));
    if (typeof body.prompt === 'string') {
      for (const match of body.prompt.matchAll(/\(([^():]+):([^()]+)\)/g)) {
        const weight = Number(match[2]);
        if (!(weight >= 1 && weight <= 1.4)) problems.push(`prompt weight of "${match[1]}" must be between 1 and 1.4`);
      }
    }
  }
  if (endpoint === 'image-upscaler' && typeof body.image === 'string' && problems.length === 0) {
    const size = pngSize(Buffer.from(body.image.replace(/^data:[^,]*,/, ''), 'base64'));
    const factor = Number.parseInt(String(body.scale_factor ?? '2x'), 10);
    if (size && size.width * size.height * factor * factor > MAX_UPSCALED_PIXELS) {
      problems.push(`the resulting image (${size.width * factor}x${size.height * factor}) exceeds ${MAX_UPSCALED_PIXELS} pixels`);
    }
  }
  return problems;
}

/**
 * Validates a video proxy body; returns every problem (the `details` of the 400 body).
 *
 * @example
 * validateVideoBody('extend', { model: 'videoq2-pro', duration: 9 }); // ['duration must be between 1 and 7']
 */
export function validateVideoBody(endpoint: string, body: Record<string, unknown>): string[] {
  const problems = checkFields(body, VIDEO_SPECS[endpoint] ?? {});
  if (endpoint === 'reference2video' && typeof body.model === 'string' && Number.isInteger(body.duration)) {
    const [min, max] = DURATIONS[body.model] ?? [1, 16];
    const duration = Number(body.duration);
    if (duration < min || duration > max) problems.push(`duration must be between ${min} and ${max} for ${body.model}`);
  }
  if (endpoint === 'reference2video' && typeof body.meta_data === 'string') {
    try {
      JSON.parse(body.meta_data);
    } catch {
      problems.push('meta_data must be a JSON string');
    }
  }
  if (endpoint === 'extend' && (body.video_creation_id === undefined) !== (body.video_url === undefined)) {
    problems.push('video_creation_id and video_url must be given together');
  }
  if (endpoint === 'multiframe' && Array.isArray(body.image_settings)) {
    body.image_settings.forEach((item: unknown, index) => {
      if (!isObject(item)) problems.push(`image_settings[${index}] must be an object`);
      else problems.push(...checkFields(item, { key_image: media(), duration: int(2, 7), prompt: PROMPT }, `image_settings[${index}].`));
    });
  }
  return problems;
}

/**
 * Credits a video task costs in the simulator: 10 per second, plus 10 for `is_rec`.
 *
 * @example
 * videoCredits({ duration: 5, is_rec: true }); // 60
 */
export function videoCredits(body: Record<string, unknown>): number {
  const duration = Number.isInteger(body.duration) ? Number(body.duration) : 5;
  return duration * 10 + (body.is_rec === true ? 10 : 0);
}
