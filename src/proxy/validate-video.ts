import type { Checker } from '../core/index.js';
import { checkImageInput } from './inputs.js';
import { checkBooleans, checkEnums, checkInt32, checkObject, checkUrl, type Fields } from './validate-common.js';
import { PROXY_ENUMS } from './enums.js';
import type { VideoModel } from './video-params.js';

// Every rule below is a documented limit: docs/wire-protocol.md#media-proxy-limits-checked-before-sending.

const { referenceToVideo, extend, multiframe } = PROXY_ENUMS;
const MAX_PROMPT = 2000;
const MAX_PAYLOAD = 1_048_576;
/** Seconds of one multi-frame key frame, in the vendor's real schema. */
const KEY_FRAME_SECONDS = { min: 2, max: 7 };

/**
 * Reference to video: model, duration by model, one image, lengths, enums, int32s, watermark position, JSON metadata.
 * @example validateReferenceToVideo({ model: 'videoq2-pro', duration: 9 }, check); // records duration
 */
export function validateReferenceToVideo(p: Fields, check: Checker): void {
  // Every list of the kind; `duration` is no list but ranges by model, checked next.
  checkEnums(check, p, referenceToVideo);
  const range = referenceToVideo.duration[p.model as VideoModel];
  // Durations of models without a documented range: still whole, positive seconds.
  checkInt32(check, 'duration', p.duration, range ?? { min: 1 });
  checkOneImage(check, p.images);
  check.string('aspect_ratio', p.aspect_ratio);
  checkBooleans(check, p, ['audio', 'bgm', 'enhance', 'is_rec', 'off_peak', 'watermark']);
  check.string('voice_id', p.voice_id);
  checkMetaData(check, p.meta_data);
  checkInt32(check, 'priority', p.priority);
  checkInt32(check, 'seed', p.seed);
  check.integer('wm_position', p.wm_position, { min: 1, max: 4 });
  checkUrl(check, 'wm_url', p.wm_url);
  checkCommon(check, p);
}

/**
 * Extend: q2 models, 1 to 7 seconds, one end-frame image, the source video by id and URL together
 * or not at all (the vendor's schema accepts neither).
 * @example validateExtend({ model: 'videoq2-pro', video_url: url }, check); // records video_creation_id
 */
export function validateExtend(p: Fields, check: Checker): void {
  check.oneOf('model', p.model, extend.model, { required: true });
  check.integer('duration', p.duration, { min: 1, max: 7 });
  checkOneImage(check, p.images);
  check.oneOf('resolution', p.resolution, extend.resolution);
  // "video_creation_id: required together with video_url" (and the reverse): one alone is refused.
  const hasId = p.video_creation_id != null;
  const hasUrl = p.video_url != null;
  if (hasUrl && !hasId) check.fail('video_creation_id', 'required together with video_url', p.video_creation_id);
  if (hasId && !hasUrl) check.fail('video_url', 'required together with video_creation_id', p.video_url);
  check.string('video_creation_id', p.video_creation_id);
  checkUrl(check, 'video_url', p.video_url);
  checkCommon(check, p);
}

/**
 * Multi-frame: q2 models, a start image, 2 to 9 key frames each with a `key_image` and, when given,
 * a `duration` of 2 to 7 seconds (the vendor's real schema; see docs/wire-protocol.md#media-proxy-limits-checked-before-sending).
 * @example validateMultiframe({ model: 'videoq2-pro', start_image: url, image_settings: [] }, check); // records image_settings
 */
export function validateMultiframe(p: Fields, check: Checker): void {
  check.oneOf('model', p.model, multiframe.model, { required: true });
  checkImageInput(check, 'start_image', p.start_image, true);
  check.oneOf('resolution', p.resolution, multiframe.resolution);
  const settings = p.image_settings;
  if (!Array.isArray(settings)) {
    check.fail('image_settings', 'required: an array of 2 to 9 key frames', settings);
  } else {
    if (settings.length < 2 || settings.length > 9) check.fail('image_settings', 'from 2 to 9 key frames', `${settings.length} items`);
    settings.forEach((item: unknown, i) => {
      const at = `image_settings[${i}]`;
      if (!checkObject(check, at, item)) return;
      checkImageInput(check, `${at}.key_image`, item.key_image, true);
      check.integer(`${at}.duration`, item.duration, { min: KEY_FRAME_SECONDS.min, max: KEY_FRAME_SECONDS.max });
      check.string(`${at}.prompt`, item.prompt, { allowEmpty: true });
    });
  }
  checkCommon(check, p);
}

function checkCommon(check: Checker, p: Fields): void {
  check.string('prompt', p.prompt, { allowEmpty: true, maxLength: MAX_PROMPT });
  check.string('payload', p.payload, { allowEmpty: true, maxLength: MAX_PAYLOAD });
  checkUrl(check, 'callback_url', p.callback_url);
}

// "images: 1 image accepted" (reference to video, extend).
function checkOneImage(check: Checker, images: unknown): void {
  if (images === undefined || images === null) return;
  if (!Array.isArray(images)) return check.fail('images', 'an array of exactly 1 image', images);
  if (images.length !== 1) check.fail('images', 'exactly 1 image', `${images.length} images`);
  images.forEach((image: unknown, i) => checkImageInput(check, `images[${i}]`, image, true));
}

function checkMetaData(check: Checker, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string') return check.fail('meta_data', 'a JSON string (use JSON.stringify)', typeof value);
  try {
    JSON.parse(value);
  } catch {
    check.fail('meta_data', 'a JSON string', value);
  }
}
