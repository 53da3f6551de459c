import type { JobResult, NodeOutput } from '../model/types.js';

// Message data keeps the wire's own field names (snake_case); every field the SDK does not read
// is optional, and servers may add more.

/**
 * `status`: queue state; carries no `prompt_id` and recurs whenever the queue changes.
 *
 * @example
 * ```ts
 * watcher.on('status', (s) => console.log(s.status?.exec_info?.queue_remaining));
 * ```
 */
export interface StatusData {
  status?: { exec_info?: { queue_remaining?: number } };
  sid?: string;
  [key: string]: unknown;
}

/**
 * `execution_start`: the run began.
 *
 * @example
 * ```ts
 * watcher.on('execution_start', (e) => console.log('started', e.prompt_id));
 * ```
 */
export interface ExecutionStartData {
  prompt_id: string;
  timestamp?: number;
  [key: string]: unknown;
}

/**
 * `execution_cached`: nodes whose cached outputs are reused (may be empty).
 *
 * @example
 * ```ts
 * watcher.on('execution_cached', (e) => console.log('cached', e.nodes));
 * ```
 */
export interface ExecutionCachedData {
  prompt_id: string;
  nodes?: string[];
  timestamp?: number;
  [key: string]: unknown;
}

/**
 * `executing`: `node` is running; `null` means the run is over.
 *
 * @example
 * ```ts
 * watcher.on('executing', (e) => console.log('running node', e.node));
 * ```
 */
export interface ExecutingData {
  prompt_id: string;
  node: string | null;
  display_node?: string;
  [key: string]: unknown;
}

/**
 * `progress`: step `value` of `max` of a node.
 *
 * @example
 * ```ts
 * watcher.on('progress', (p) => console.log(`${p.value}/${p.max}`));
 * ```
 */
export interface ProgressData {
  prompt_id: string;
  value: number;
  max: number;
  node?: string;
  [key: string]: unknown;
}

/**
 * `progress_state`: the state of every node of the run.
 *
 * @example
 * ```ts
 * watcher.on('progress_state', (s) => console.log(Object.keys(s.nodes ?? {})));
 * ```
 */
export interface ProgressStateData {
  prompt_id: string;
  nodes?: Record<string, { value?: number; max?: number; state?: string; node_id?: string; display_node_id?: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

/**
 * `executed`: the output of a node with UI output.
 *
 * @example
 * ```ts
 * watcher.on('executed', (e) => console.log(e.node, e.output));
 * ```
 */
export interface ExecutedData {
  prompt_id: string;
  node: string;
  display_node?: string;
  output: NodeOutput;
  [key: string]: unknown;
}

/**
 * `execution_success`: the run completed.
 *
 * @example
 * ```ts
 * watcher.on('execution_success', (e) => console.log('done', e.prompt_id));
 * ```
 */
export interface ExecutionSuccessData {
  prompt_id: string;
  timestamp?: number;
  [key: string]: unknown;
}

/**
 * `execution_error`: the run failed (or, with `exception_type: 'ExecutionBlocked'`, a branch was blocked).
 *
 * @example
 * ```ts
 * watcher.on('execution_error', (e) => console.error(e.exception_type, e.exception_message));
 * ```
 */
export interface ExecutionErrorData {
  prompt_id: string;
  exception_message?: string;
  exception_type?: string;
  node_id?: string;
  node_type?: string;
  traceback?: unknown;
  current_inputs?: unknown;
  current_outputs?: unknown;
  timestamp?: number;
  [key: string]: unknown;
}

/**
 * `execution_interrupted`: the run was cancelled.
 *
 * @example
 * ```ts
 * watcher.on('execution_interrupted', (e) => console.log('interrupted at', e.node_id));
 * ```
 */
export interface ExecutionInterruptedData {
  prompt_id: string;
  node_id?: string;
  node_type?: string;
  executed?: string[];
  timestamp?: number;
  [key: string]: unknown;
}

/**
 * `notification`: a server notice.
 *
 * @example
 * ```ts
 * watcher.on('notification', (n) => console.log(n.value));
 * ```
 */
export interface NotificationData {
  value?: unknown;
  [key: string]: unknown;
}

/**
 * A preview image from a binary frame of type 1 (no metadata) or 4 (with metadata).
 *
 * @example
 * ```ts
 * watcher.on('preview', (p) => show(new Blob([p.data], { type: p.mimeType })));
 * ```
 */
export interface PreviewData {
  promptId?: string | undefined;
  nodeId?: string | undefined;
  displayNodeId?: string | undefined;
  mimeType: string;
  /** The image bytes (`new Blob([data], { type: mimeType })` takes them as they are). */
  data: Uint8Array<ArrayBuffer>;
}

/**
 * Text a node sent in a binary frame of type 3.
 *
 * @example
 * ```ts
 * watcher.on('text', (t) => console.log(t.nodeId, t.data));
 * ```
 */
export interface TextData {
  promptId?: string | undefined;
  nodeId?: string | undefined;
  mimeType: 'text/plain';
  data: string;
}

/**
 * What each watcher event carries. `execution_blocked` is an `execution_error` with
 * `exception_type: 'ExecutionBlocked'`: not terminal, the run goes on. `result` and `error`
 * fire once, when the watcher settles.
 *
 * @example
 * ```ts
 * watcher.on('progress', (p) => console.log(`${p.value}/${p.max}`));
 * ```
 */
export interface WatchEventMap {
  status: StatusData;
  execution_start: ExecutionStartData;
  execution_cached: ExecutionCachedData;
  executing: ExecutingData;
  progress: ProgressData;
  progress_state: ProgressStateData;
  executed: ExecutedData;
  execution_success: ExecutionSuccessData;
  execution_error: ExecutionErrorData;
  execution_blocked: ExecutionErrorData;
  execution_interrupted: ExecutionInterruptedData;
  notification: NotificationData;
  preview: PreviewData;
  text: TextData;
}

/**
 * One event of a watched job, as `for await (const event of watcher)` yields it.
 *
 * @example
 * ```ts
 * for await (const event of watcher) if (event.type === 'executed') console.log(event.data.output);
 * ```
 */
export type WatchEvent = { [K in keyof WatchEventMap]: { type: K; data: WatchEventMap[K] } }[keyof WatchEventMap];

/**
 * Listener signatures of `watcher.on()`: every `WatchEventMap` event, plus `result` (the job
 * settled) and `error` (the job failed, timed out or was aborted).
 *
 * @example
 * ```ts
 * watcher.on('executed', (e) => console.log(e.node, e.output));
 * watcher.on('error', (err) => console.error(err.message));
 * ```
 */
export type WatcherListeners = { [K in keyof WatchEventMap]: (data: WatchEventMap[K]) => void } & {
  result: (result: JobResult) => void;
  error: (error: Error) => void;
};

/**
 * Message types that concern one prompt (they carry `prompt_id`).
 *
 * @example
 * ```ts
 * PROMPT_MESSAGE_TYPES.has('executed'); // true
 * ```
 */
export const PROMPT_MESSAGE_TYPES: ReadonlySet<string> = new Set([
  'execution_start',
  'execution_cached',
  'executing',
  'progress',
  'progress_state',
  'executed',
  'execution_success',
  'execution_error',
  'execution_interrupted',
]);

/**
 * Counters of what the shared socket received and dropped, for diagnostics.
 *
 * @example
 * ```ts
 * console.log(cloud.jobs.stats().ignored);
 * ```
 */
export interface WatcherStats {
  /** Frames received (text and binary). */
  received: number;
  /** Frames ignored: unknown types, malformed JSON, truncated binary frames. */
  ignored: number;
  /** Messages held for a prompt id no watcher had claimed yet. */
  held: number;
  /** Held messages dropped by the byte or age bound. */
  dropped: number;
  /** Bytes of messages held right now (bounded by `watcher.hold.maxBytes`). */
  heldBytes: number;
  /** Socket connections opened. */
  connections: number;
  /** Status polls made. */
  polls: number;
}
