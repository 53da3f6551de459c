import type { Checker } from '../core/index.js';
import { PROXY_ENUMS } from './enums.js';
import { checkImageInput, decodeBase64Head, type ResolvedImage } from './inputs.js';
import { readImageSize } from './image-size.js';
import { checkBooleans, checkEnums, checkIntegers, checkObject, checkUrl, type Fields } from './validate-common.js';

// Every rule below is a documented limit: docs/wire-protocol.md#media-proxy-limits-checked-before-sending.

/** Largest upscaler result, in pixels (width × height after `scale_factor`). */
export const MAX_UPSCALED_PIXELS = 25_300_000;

const { relight, upscale, styleTransfer } = PROXY_ENUMS;
const RELIGHT_SLIDERS = ['whites', 'blacks', 'brightness', 'contrast', 'saturation'] as const;

/**
 * Relight: sliders 0 to 100, enums, booleans, the two exclusive light sources, prompt weights 1 to 1.4.
 * @example validateRelight({ image: url, light_transfer_strength: 101 }, check); // records light_transfer_strength
 */
export function validateRelight(p: Fields, check: Checker): void {
  checkImageInput(check, 'image', p.image, true);
  checkPrompt(check, p.prompt);
  checkPromptWeights(check, p.prompt);
  checkEnums(check, p, relight);
  checkBooleans(check, p, ['change_background', 'preserve_details', 'interpolate_from_original']);
  check.integer('light_transfer_strength', p.light_transfer_strength, { min: 0, max: 100 });
  checkImageInput(check, 'transfer_light_from_lightmap', p.transfer_light_from_lightmap, false);
  checkImageInput(check, 'transfer_light_from_reference_image', p.transfer_light_from_reference_image, false);
  if (p.transfer_light_from_lightmap != null && p.transfer_light_from_reference_image != null) {
    check.fail('transfer_light_from_reference_image', 'not together with transfer_light_from_lightmap (give one light source)', '(both given)');
  }
  checkUrl(check, 'webhook_url', p.webhook_url);
  const advanced = p.advanced_settings;
  if (advanced === undefined || !checkObject(check, 'advanced_settings', advanced)) return;
  checkIntegers(check, advanced, RELIGHT_SLIDERS, 0, 100, 'advanced_settings.');
  checkEnums(check, advanced, relight.advanced_settings, undefined, 'advanced_settings.');
  check.boolean('advanced_settings.fixed_generation', advanced.fixed_generation);
}

/**
 * Upscaler: the four -10 to 10 sliders, enums. The pixel limit needs the bytes: `checkUpscaledPixels`.
 * @example validateUpscale({ image: url, scale_factor: '3x' }, check); // records scale_factor
 */
export function validateUpscale(p: Fields, check: Checker): void {
  checkImageInput(check, 'image', p.image, true);
  checkIntegers(check, p, ['creativity', 'fractality', 'hdr', 'resemblance'], -10, 10);
  checkEnums(check, p, upscale);
  checkPrompt(check, p.prompt);
  checkUrl(check, 'webhook_url', p.webhook_url);
}

/**
 * The fields of style transfer that only a portrait uses (`is_portrait: true`).
 * @example PORTRAIT_FIELDS.includes('portrait_style'); // true
 */
export const PORTRAIT_FIELDS = Object.freeze(['portrait_beautifier', 'portrait_style'] as const);

/**
 * Style transfer: strengths 0 to 100, enums; the portrait fields are checked only with
 * `is_portrait: true`, since the server ignores them otherwise (and the SDK does not send them:
 * see `withoutIgnoredPortraitFields`).
 * @example validateStyleTransfer({ image, reference_image, is_portrait: true, portrait_style: 'rock' }, check); // records portrait_style
 */
export function validateStyleTransfer(p: Fields, check: Checker): void {
  checkImageInput(check, 'image', p.image, true);
  checkImageInput(check, 'reference_image', p.reference_image, true);
  // Every list with is_portrait: true; otherwise not the portrait ones, which the server then ignores.
  checkEnums(check, p, styleTransfer, p.is_portrait === true ? undefined : ['engine', 'flavor']);
  checkBooleans(check, p, ['fixed_generation', 'is_portrait']);
  checkPrompt(check, p.prompt);
  checkIntegers(check, p, ['structure_strength', 'style_strength'], 0, 100);
  checkUrl(check, 'webhook_url', p.webhook_url);
}

/**
 * Removes the portrait fields from a style-transfer body unless `is_portrait` is `true`: the
 * server ignores them then (docs/wire-protocol.md#media-proxy-limits-checked-before-sending), so
 * what is sent says what will happen.
 * @example withoutIgnoredPortraitFields({ portrait_style: 'pop' }); // {}
 */
export function withoutIgnoredPortraitFields(body: Fields): Fields {
  if (body.is_portrait === true) return body;
  const copy = { ...body };
  for (const field of PORTRAIT_FIELDS) delete copy[field];
  return copy;
}

/**
 * The skin enhancers' check: the image as Base64, bytes or an HTTPS URL ("Base64 or publicly
 * accessible HTTPS URL": a plain http URL is refused), and `sliders` 0 to 100 (creative:
 * `sharpen`, `smart_grain`; faithful: also `skin_detail`).
 * @example skinEnhancer(['sharpen', 'skin_detail'])({ image, skin_detail: -1 }, check); // records skin_detail
 */
export function skinEnhancer(sliders: readonly string[]): (p: Fields, check: Checker) => void {
  return (p, check) => {
    checkImageInput(check, 'image', p.image, true);
    if (typeof p.image === 'string' && /^http:\/\//i.test(p.image)) check.fail('image', 'an https URL (the skin enhancers fetch only HTTPS), Base64 or bytes', p.image);
    checkIntegers(check, p, sliders, 0, 100);
    checkUrl(check, 'webhook_url', p.webhook_url);
  };
}

/**
 * Refuses an upscale whose result would exceed the limit, when the input's size can be read (bytes,
 * a file, Base64 text; not a URL). Without `scale_factor` the smallest, `2x`, is assumed, so a
 * request is refused only when it must fail.
 * @example checkUpscaledPixels(check, { wire, bytes: png3000x2200 }, '2x'); // records image
 */
export function checkUpscaledPixels(check: Checker, image: ResolvedImage, scaleFactor: unknown, maxPixels = MAX_UPSCALED_PIXELS): void {
  const bytes = image.bytes ?? (image.base64 !== undefined ? decodeBase64Head(image.base64) : undefined);
  const size = bytes && readImageSize(bytes);
  if (!size) return;
  const scale = typeof scaleFactor === 'string' && upscale.scale_factor.includes(scaleFactor as never) ? Number.parseInt(scaleFactor, 10) : 2;
  const pixels = size.width * scale * size.height * scale;
  if (pixels > maxPixels) {
    check.fail('image', `a result of at most ${maxPixels.toLocaleString('en-US')} pixels (${size.width}×${size.height} at ${scale}x gives ${pixels.toLocaleString('en-US')})`, `${size.width}×${size.height} ${size.type}`);
  }
}

function checkPrompt(check: Checker, prompt: unknown): void {
  check.string('prompt', prompt, { allowEmpty: true });
}

// "(text:weight)" with a weight of 1 to 1.4 (relight). Only a number after the colon is a
// weight: ordinary parentheses such as "(style: cinematic)" are prompt text and pass.
function checkPromptWeights(check: Checker, prompt: unknown): void {
  if (typeof prompt !== 'string') return;
  for (const match of prompt.matchAll(/\(([^()]*):\s*([+-]?(?:\d+\.?\d*|\.\d+))\s*\)/g)) {
    const weight = Number(match[2]);
    if (!(weight >= 1 && weight <= 1.4)) check.fail('prompt', 'weights "(text:weight)" from 1 to 1.4', match[0]);
  }
}
