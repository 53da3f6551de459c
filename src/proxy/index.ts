export { ProxyClient, type ProxyClientOptions, type StatusPath } from './client.js';
export { ImageResource, type ImageSubmitted } from './image.js';
export { VideoResource, type VideoSubmitted } from './video.js';
export { TaskFailedError, type TaskFailureReason } from './errors.js';
export { PROXY_DEFAULTS } from './defaults.js';
export { readImageSize, sniffImageType, type ImageSize } from './image-size.js';
export type { Base64Format, ImageFile, ImageInput } from './inputs.js';
export {
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
  type ImageParamsByKind,
  type RelightAdvancedSettings,
  type RelightParams,
  type SkinEnhancerCreativeParams,
  type SkinEnhancerFaithfulParams,
  type StyleTransferParams,
  type UpscaleParams,
} from './image-params.js';
export {
  AUDIO_TYPES,
  EXTEND_MODELS,
  EXTEND_RESOLUTIONS,
  MOVEMENT_AMPLITUDES,
  VIDEO_DURATIONS,
  VIDEO_MODELS,
  VIDEO_RESOLUTIONS,
  VIDEO_STYLES,
  type ExtendParams,
  type MultiframeImageSetting,
  type MultiframeParams,
  type ReferenceToVideoParams,
  type VideoModel,
  type VideoParamsByKind,
} from './video-params.js';
export type {
  Clock,
  ImageTask,
  ImageTaskKind,
  ImageTaskResult,
  ImageTaskStatus,
  Submitted,
  SubmitMethod,
  SubmitOptions,
  TaskKind,
  TaskPhase,
  TaskRef,
  TaskResultOf,
  TaskStatus,
  VideoCreation,
  VideoTask,
  VideoTaskKind,
  VideoTaskResult,
  VideoTaskState,
  WaitOptions,
} from './types.js';
