import type { PROXY_ENUMS } from './enums.js';
import type { ProxyImageInput } from './inputs.js';

// Wire names are the vendor's (snake_case). The enum values are PROXY_ENUMS' lists
// (docs/wire-protocol.md#media-proxy-limits-checked-before-sending).
type ReferenceToVideo = typeof PROXY_ENUMS.referenceToVideo;
type Extend = typeof PROXY_ENUMS.extend;

/**
 * A video model name.
 * @example const model: VideoModel = 'videoq2-pro';
 */
export type VideoModel = ReferenceToVideo['model'][number];

/** Fields every video task accepts. */
interface VideoTaskCommon {
  /** Receives status updates. Sent unchanged; no payload or signature is documented, so none is checked. */
  callback_url?: string;
  /** Pass-through parameters, at most 1,048,576 characters. */
  payload?: string;
}

/**
 * Body of `proxy.video.referenceToVideo()` (`POST /proxy/videovendor/reference2video`).
 *
 * @example
 * ```ts
 * const params: ReferenceToVideoParams = { model: 'videoq2-pro', prompt: 'a paper boat at dawn', images: [{ path: './boat.png' }], duration: 8 };
 * ```
 */
export interface ReferenceToVideoParams extends VideoTaskCommon {
  /** The video model; it bounds `duration`. */
  model?: VideoModel;
  /** At most 2000 characters. */
  prompt?: string;
  /** For image-to-video: exactly one image, the start frame. */
  images?: ProxyImageInput[];
  /** Seconds: `videoq3-pro` 1 to 16, `videoq2-pro-fast` 1 to 10, `videoq2-pro` and `videoq2-turbo` 1 to 8. */
  duration?: number;
  /** Availability depends on model and duration. */
  resolution?: ReferenceToVideo['resolution'][number];
  /** The frame shape as a ratio (`16:9`); the allowed values are not published, so the SDK checks only that it is a string. */
  aspect_ratio?: string;
  /** Direct audio-video generation. @default true (for `videoq3-pro`) */
  audio?: boolean;
  /** Used when `audio` is true; no effect for q3. */
  audio_type?: ReferenceToVideo['audio_type'][number];
  /** Background music; no effect for q3. */
  bgm?: boolean;
  /** No effect for q3. */
  voice_id?: string;
  /** No effect for q2 and q3 models. */
  movement_amplitude?: ReferenceToVideo['movement_amplitude'][number];
  /** The look of the video: `general` or `anime`. */
  style?: ReferenceToVideo['style'][number];
  /** The vendor's `enhance` switch, sent as given (its effect is not published). */
  enhance?: boolean;
  /** Use the recommended prompt: costs 10 more credits. */
  is_rec?: boolean;
  /** Custom metadata as a JSON string, e.g. `JSON.stringify({ order: 42 })`. */
  meta_data?: string;
  /** Lower cost; the video is generated within 48 hours. */
  off_peak?: boolean;
  /** int32. */
  priority?: number;
  /** int32; random when omitted. */
  seed?: number;
  /** @default false */
  watermark?: boolean;
  /** 1 top left, 2 top right, 3 bottom right, 4 bottom left. @default 3 */
  wm_position?: 1 | 2 | 3 | 4;
  /** Watermark image URL; a default watermark is used when omitted. */
  wm_url?: string;
}

/**
 * Body of `proxy.video.extend()` (`POST /proxy/videovendor/extend`). The source video is given by
 * `video_creation_id` and `video_url` together, or not at all.
 *
 * @example
 * ```ts
 * const params: ExtendParams = { model: 'videoq2-turbo', video_creation_id: creation.id, video_url: creation.url, duration: 4 };
 * ```
 */
export type ExtendParams = ExtendFields &
  (
    | {
        /** The creation to extend (`VideoCreation.id`); given with `video_url`. */
        video_creation_id: string;
        /** The video to extend (`VideoCreation.url`); given with `video_creation_id`. */
        video_url: string;
      }
    | {
        /** Not given: the server extends from the images alone. */
        video_creation_id?: undefined;
        /** Not given, like `video_creation_id`. */
        video_url?: undefined;
      }
  );

/**
 * The fields of `ExtendParams` other than the source video.
 *
 * @example
 * ```ts
 * const fields: ExtendFields = { model: 'videoq2-pro', duration: 5 };
 * ```
 */
export interface ExtendFields extends VideoTaskCommon {
  /** Required. */
  model: Extend['model'][number];
  /** Seconds, 1 to 7. @default 5 */
  duration?: number;
  /** One reference image for the end frame. */
  images?: ProxyImageInput[];
  /** At most 2000 characters. */
  prompt?: string;
  /** The resolution of the extension. */
  resolution?: Extend['resolution'][number];
  /** The creation to extend; required together with `video_url`. */
  video_creation_id?: string | undefined;
  /** Any video URL; required together with `video_creation_id`. */
  video_url?: string | undefined;
}

/**
 * One key frame of a multi-frame video.
 * @example const frame: MultiframeImageSetting = { key_image: url, duration: 3, prompt: 'turns left' };
 */
export interface MultiframeImageSetting {
  /** Required by the SDK. */
  key_image: ProxyImageInput;
  /** Seconds, 2 to 7 (the vendor's real schema). */
  duration?: number;
  /** Describes the motion towards this key frame (at most 2000 characters). */
  prompt?: string;
}

/**
 * Body of `proxy.video.multiframe()` (`POST /proxy/videovendor/multiframe`).
 *
 * @example
 * ```ts
 * const params: MultiframeParams = {
 *   model: 'videoq2-pro', start_image: { path: './a.png' },
 *   image_settings: [{ key_image: { path: './b.png' }, duration: 3 }, { key_image: { path: './c.png' }, duration: 3 }],
 * };
 * ```
 */
export interface MultiframeParams extends VideoTaskCommon {
  /** Required. */
  model: Extend['model'][number];
  /** Required: the first frame. */
  start_image: ProxyImageInput;
  /** Required: 2 to 9 key frames. */
  image_settings: MultiframeImageSetting[];
  /** The resolution of the video. */
  resolution?: Extend['resolution'][number];
}
