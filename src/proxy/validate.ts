import { own, rule, type Checker } from '../core/index.js';
import { PROXY_ENUMS } from './enums.js';
import { readImageSize } from './image-size.js';
import { checkImageInput, decodeBase64Head, type ResolvedImage } from './inputs.js';

// The documented limits of every task's params, as one table of field checks per kind. Every rule
// below is a documented limit: docs/wire-protocol.md#media-proxy-limits-checked-before-sending.

/**
 * A record of params as received at run time (JavaScript callers bypass the types).
 * @example const fields: Fields = { image: url, sharpen: 10 };
 */
export type Fields = Record<string, unknown>;

/**
 * The check of one field: records what is wrong with `value`, the field at `path` of `fields`
 * (a rule of the core's `rule.*` is one that needs no other field).
 * @example const slider: FieldRule = (check, path, value) => check.integer(path, value, { min: 0, max: 100 });
 */
export type FieldRule = (check: Checker, path: string, value: unknown, fields: Fields) => void;

/**
 * The checks of a params object by field name, run in this order; a field not named is sent unchecked.
 * @example const rules: FieldRules = { image: image(true), webhook_url: checkUrl };
 */
export type FieldRules = Readonly<Record<string, FieldRule>>;

/**
 * Records every broken rule of `fields`; `prefix` names a nested object (`advanced_settings.`).
 * @example checkFields(check, params, TASKS.upscale.rules);
 */
export function checkFields(check: Checker, fields: Fields, rules: FieldRules, prefix = ''): void {
  for (const [name, fieldRule] of Object.entries(rules)) fieldRule(check, prefix + name, fields[name], fields);
}

/**
 * Records a problem unless `params` is a plain object; returns whether it is.
 * @example if (checkObject(check, 'image_settings[0]', item)) checkFields(check, item, KEY_FRAME, 'image_settings[0].');
 */
export function checkObject(check: Checker, path: string, value: unknown): value is Fields {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return true;
  check.fail(path, 'an object', value);
  return false;
}

/**
 * A callback (`webhook_url`, `callback_url`) or other link: an absolute http(s) URL. It is sent
 * unchanged; no payload or signature is documented, so the SDK neither adds nor verifies one.
 * @example checkUrl(check, 'callback_url', 'hooks/x'); // records: an absolute http(s) URL
 */
export function checkUrl(check: Checker, path: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'string' && /^https?:\/\//i.test(value) && URL.canParse(value)) return;
  check.fail(path, 'an absolute http(s) URL', value);
}

const INT32 = { min: -2_147_483_648, max: 2_147_483_647 };
// An integer within the int32 range of the wire, or narrower.
const int = (min = INT32.min, max = INT32.max): FieldRule => (check, path, value) => check.integer(path, value, { min, max });
const image = (required: boolean): FieldRule => (check, path, value) => checkImageInput(check, path, value, required);
const text = (maxLength?: number): FieldRule => (check, path, value) => check.string(path, value, { allowEmpty: true, maxLength });
const required = (list: readonly unknown[]): FieldRule => (check, path, value) => check.oneOf(path, value, list, { required: true });
// One rule for several fields.
const each = (fieldRule: FieldRule, ...names: string[]): FieldRules => Object.fromEntries(names.map((name) => [name, fieldRule]));
// Each list of a task's `PROXY_ENUMS` entry: its field must be one of it.
const lists = (enums: Readonly<Record<string, unknown>>): FieldRules =>
  Object.fromEntries(Object.entries(enums).flatMap(([name, list]) => (Array.isArray(list) ? [[name, rule.oneOf(list)]] : [])));
const object = (rules: FieldRules): FieldRule => (check, path, value) => {
  if (value !== undefined && checkObject(check, path, value)) checkFields(check, value, rules, `${path}.`);
};

const { relight, upscale, styleTransfer, referenceToVideo, extend, multiframe } = PROXY_ENUMS;

/** Largest upscaler result, in pixels (width × height after `scale_factor`). */
export const MAX_UPSCALED_PIXELS = 25_300_000;

/**
 * Relight: sliders 0 to 100, enums, booleans, the two exclusive light sources, prompt weights 1 to 1.4.
 * @example checkFields(check, { image: url, light_transfer_strength: 101 }, RELIGHT); // records light_transfer_strength
 */
export const RELIGHT: FieldRules = {
  image: image(true),
  // "(text:weight)" with a weight of 1 to 1.4. Only a number after the colon is a weight: ordinary
  // parentheses such as "(style: cinematic)" are prompt text and pass.
  prompt: (check, path, prompt) => {
    check.string(path, prompt, { allowEmpty: true });
    if (typeof prompt !== 'string') return;
    for (const match of prompt.matchAll(/\(([^()]*):\s*([+-]?(?:\d+\.?\d*|\.\d+))\s*\)/g)) {
      const weight = Number(match[2]);
      if (!(weight >= 1 && weight <= 1.4)) check.fail(path, 'weights "(text:weight)" from 1 to 1.4', match[0]);
    }
  },
  ...lists(relight),
  ...each(rule.boolean, 'change_background', 'preserve_details', 'interpolate_from_original'),
  light_transfer_strength: int(0, 100),
  transfer_light_from_lightmap: image(false),
  transfer_light_from_reference_image: (check, path, value, p) => {
    checkImageInput(check, path, value, false);
    if (p.transfer_light_from_lightmap == null || value == null) return;
    check.fail(path, 'not together with transfer_light_from_lightmap (give one light source)', '(both given)');
  },
  webhook_url: checkUrl,
  advanced_settings: object({
    ...each(int(0, 100), 'whites', 'blacks', 'brightness', 'contrast', 'saturation'),
    ...lists(relight.advanced_settings),
    fixed_generation: rule.boolean,
  }),
};

/**
 * Upscaler: the four -10 to 10 sliders, enums. The pixel limit needs the bytes: `checkUpscaledPixels`.
 * @example checkFields(check, { image: url, scale_factor: '3x' }, UPSCALE); // records scale_factor
 */
export const UPSCALE: FieldRules = {
  image: image(true),
  ...each(int(-10, 10), 'creativity', 'fractality', 'hdr', 'resemblance'),
  ...lists(upscale),
  prompt: text(),
  webhook_url: checkUrl,
};

// A portrait list is checked only with is_portrait: true, since the server ignores the field
// otherwise (and the SDK does not send it: see `withoutIgnoredPortraitFields`).
const portrait = (list: readonly unknown[]): FieldRule => (check, path, value, p) => {
  if (p.is_portrait === true) check.oneOf(path, value, list);
};

/**
 * Style transfer: both images, strengths 0 to 100, enums (the portrait ones with `is_portrait: true` only).
 * @example checkFields(check, { image, reference_image, is_portrait: true, portrait_style: 'rock' }, STYLE_TRANSFER); // portrait_style
 */
export const STYLE_TRANSFER: FieldRules = {
  image: image(true),
  reference_image: image(true),
  engine: rule.oneOf(styleTransfer.engine),
  flavor: rule.oneOf(styleTransfer.flavor),
  portrait_beautifier: portrait(styleTransfer.portrait_beautifier),
  portrait_style: portrait(styleTransfer.portrait_style),
  ...each(rule.boolean, 'fixed_generation', 'is_portrait'),
  prompt: text(),
  ...each(int(0, 100), 'structure_strength', 'style_strength'),
  webhook_url: checkUrl,
};

/**
 * Removes the portrait fields from a style-transfer body unless `is_portrait` is `true`: the
 * server ignores them then (docs/wire-protocol.md#media-proxy-limits-checked-before-sending), so
 * what is sent says what will happen.
 * @example withoutIgnoredPortraitFields({ portrait_style: 'pop' }); // {}
 */
export function withoutIgnoredPortraitFields(body: Fields): Fields {
  if (body.is_portrait === true) return body;
  // The fields of style transfer that only a portrait uses.
  const { portrait_beautifier: _beautifier, portrait_style: _style, ...sent } = body;
  return sent;
}

/**
 * The skin enhancers' checks: the image as Base64, bytes or an HTTPS URL ("Base64 or publicly
 * accessible HTTPS URL": a plain http URL is refused), and `sliders` 0 to 100 (creative:
 * `sharpen`, `smart_grain`; faithful: also `skin_detail`).
 * @example checkFields(check, { image, skin_detail: -1 }, skinEnhancer('sharpen', 'skin_detail')); // records skin_detail
 */
export function skinEnhancer(...sliders: string[]): FieldRules {
  return {
    image: (check, path, value) => {
      checkImageInput(check, path, value, true);
      if (typeof value !== 'string' || !/^http:\/\//i.test(value)) return;
      check.fail(path, 'an https URL (the skin enhancers fetch only HTTPS), Base64 or bytes', value);
    },
    ...each(int(0, 100), ...sliders),
    webhook_url: checkUrl,
  };
}

/**
 * Refuses an upscale whose result would exceed the limit, when the input's size can be read (bytes,
 * a file, Base64 text; not a URL). Without `scale_factor` the smallest, `2x`, is assumed, so a
 * request is refused only when it must fail (and not at all without an image).
 * @example checkUpscaledPixels(check, { wire, bytes: png3000x2200 }, '2x'); // records image
 */
export function checkUpscaledPixels(check: Checker, image: ResolvedImage | undefined, scaleFactor: unknown): void {
  const bytes = image?.bytes ?? (image?.base64 !== undefined ? decodeBase64Head(image.base64) : undefined);
  const size = bytes && readImageSize(bytes);
  if (!size) return;
  const scale = upscale.scale_factor.includes(scaleFactor as never) ? Number.parseInt(scaleFactor as string, 10) : 2;
  const pixels = size.width * scale * size.height * scale;
  if (pixels > MAX_UPSCALED_PIXELS) {
    const what = `${size.width}×${size.height}`;
    const limit = `a result of at most ${MAX_UPSCALED_PIXELS.toLocaleString('en-US')} pixels`;
    check.fail('image', `${limit} (${what} at ${scale}x gives ${pixels.toLocaleString('en-US')})`, `${what} ${size.type}`);
  }
}

// "images: 1 image accepted" (reference to video, extend).
const oneImage: FieldRule = (check, path, images) => {
  if (images === undefined || images === null) return;
  if (!Array.isArray(images)) return check.fail(path, 'an array of exactly 1 image', images);
  if (images.length !== 1) check.fail(path, 'exactly 1 image', `${images.length} images`);
  images.forEach((item: unknown, i) => checkImageInput(check, `${path}[${i}]`, item, true));
};

// The fields every video task accepts, checked last.
const VIDEO_COMMON: FieldRules = { prompt: text(2000), payload: text(1_048_576), callback_url: checkUrl };

/**
 * Reference to video: model, duration by model, one image, lengths, enums, int32s, watermark position, JSON metadata.
 * @example checkFields(check, { model: 'videoq2-pro', duration: 9 }, REFERENCE_TO_VIDEO); // records duration
 */
export const REFERENCE_TO_VIDEO: FieldRules = {
  // Every list of the kind; `duration` is no list but ranges by model, checked next.
  ...lists(referenceToVideo),
  duration: (check, path, value, p) => {
    // Durations of models without a documented range: still whole, positive seconds.
    const { min, max } = (typeof p.model === 'string' && own(referenceToVideo.duration, p.model)) || { min: 1 };
    int(min, max)(check, path, value, p);
  },
  images: oneImage,
  aspect_ratio: rule.string,
  ...each(rule.boolean, 'audio', 'bgm', 'enhance', 'is_rec', 'off_peak', 'watermark'),
  voice_id: rule.string,
  meta_data: (check, path, value) => {
    if (value === undefined || value === null) return;
    if (typeof value !== 'string') return check.fail(path, 'a JSON string (use JSON.stringify)', typeof value);
    try {
      JSON.parse(value);
    } catch {
      check.fail(path, 'a JSON string', value);
    }
  },
  ...each(int(), 'priority', 'seed'),
  wm_position: int(1, 4),
  wm_url: checkUrl,
  ...VIDEO_COMMON,
};

/**
 * Extend: q2 models, 1 to 7 seconds, one end-frame image, the source video by id and URL together
 * or not at all (the vendor's schema accepts neither).
 * @example checkFields(check, { model: 'videoq2-pro', video_url: url }, EXTEND); // records video_creation_id
 */
export const EXTEND: FieldRules = {
  model: required(extend.model),
  duration: int(1, 7),
  images: oneImage,
  resolution: rule.oneOf(extend.resolution),
  // "video_creation_id: required together with video_url" (and the reverse): one alone is refused.
  video_creation_id: (check, path, id, p) => {
    if (p.video_url != null && id == null) check.fail(path, 'required together with video_url', id);
    if (id != null && p.video_url == null) check.fail('video_url', 'required together with video_creation_id', p.video_url);
    check.string(path, id);
  },
  video_url: checkUrl,
  ...VIDEO_COMMON,
};

// One key frame, in the vendor's real schema: a key image and 2 to 7 seconds.
const KEY_FRAME: FieldRules = { key_image: image(true), duration: int(2, 7), prompt: text() };

/**
 * Multi-frame: q2 models, a start image, 2 to 9 key frames each with a `key_image` and, when given,
 * a `duration` of 2 to 7 seconds (the vendor's real schema; see docs/wire-protocol.md#media-proxy-limits-checked-before-sending).
 * @example checkFields(check, { model: 'videoq2-pro', start_image: url, image_settings: [] }, MULTIFRAME); // records image_settings
 */
export const MULTIFRAME: FieldRules = {
  model: required(multiframe.model),
  start_image: image(true),
  resolution: rule.oneOf(multiframe.resolution),
  image_settings: (check, path, settings) => {
    if (!Array.isArray(settings)) return check.fail(path, 'required: an array of 2 to 9 key frames', settings);
    if (settings.length < 2 || settings.length > 9) check.fail(path, 'from 2 to 9 key frames', `${settings.length} items`);
    settings.forEach((item: unknown, i) => {
      if (checkObject(check, `${path}[${i}]`, item)) checkFields(check, item, KEY_FRAME, `${path}[${i}].`);
    });
  },
  ...VIDEO_COMMON,
};
