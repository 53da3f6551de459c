export { JobWatcher, type WatchOptions } from './job-watcher.js';
export { decodeBinaryFrame, type DecodedFrame } from './frames.js';
export type { WebSocketConstructor, WebSocketLike } from './socket.js';
export type { JobSource } from './poller.js';
export type {
  ExecutedData,
  ExecutingData,
  ExecutionCachedData,
  ExecutionErrorData,
  ExecutionInterruptedData,
  ExecutionStartData,
  ExecutionSuccessData,
  NotificationData,
  PreviewData,
  ProgressData,
  ProgressStateData,
  StatusData,
  TextData,
  WatchEvent,
  WatchEventMap,
  WatcherListeners,
  WatcherStats,
} from './events.js';
