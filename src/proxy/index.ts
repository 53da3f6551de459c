// The media proxy's public names. Everything else in this folder is internal.
export { ProxyClient } from './client.js';
export { TaskFailedError } from './errors.js';
export { PROXY_DEFAULTS } from './defaults.js';
export { PROXY_ENUMS } from './enums.js';
export type { ProxyClientOptions, StatusPath, SubmitTaskOptions, WaitForTaskOptions } from './options.js';
export type { ImageTasks, VideoTasks } from './submit.js';
export type { ImageTaskKind, TaskKind, TaskParams, VideoTaskKind } from './tasks.js';
export type { RelightParams, SkinEnhancerCreativeParams, SkinEnhancerFaithfulParams, StyleTransferParams, UpscaleParams } from './image-params.js';
export type { ExtendParams, MultiframeParams, ReferenceToVideoParams } from './video-params.js';
export type { ProxyImageInput } from './inputs.js';
export type { ImageTask, ImageTaskResult, TaskOf, TaskRef, TaskResultOf, TaskStatus, VideoTask, VideoTaskResult } from './types.js';
