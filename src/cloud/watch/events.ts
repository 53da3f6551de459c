import type { JobResult, NodeOutput } from '../shared/types.js';

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
  /** The queue's state. */
  status?: {
    /** What the server is executing. */
    exec_info?: {
      /** Jobs of yours still queued or running on the server. */
      queue_remaining?: number;
    };
  };
  /** The socket's session id (the first `status` message carries it). */
  sid?: string;
  /** Any other field the server sends, kept as it is. */
  [key: string]: unknown;
}

/**
 * `execution_start`: the run began. Its fields (the job's `prompt_id`, the server's `timestamp`)
 * are carried by `execution_cached`, `execution_success`, `execution_error` and
 * `execution_interrupted` too.
 *
 * @example
 * ```ts
 * watcher.on('execution_start', (e) => console.log('started', e.prompt_id));
 * ```
 */
export interface ExecutionStartData {
  /** The id of the job the message is about. */
  prompt_id: string;
  /** When the server sent the message, in ms since the epoch. */
  timestamp?: number;
  /** Any other field the server sends, kept as it is. */
  [key: string]: unknown;
}

/**
 * `execution_cached`: nodes whose cached outputs are reused (may be empty), with the fields of
 * `execution_start`.
 *
 * @example
 * ```ts
 * watcher.on('execution_cached', (e) => console.log('cached', e.nodes));
 * ```
 */
export interface ExecutionCachedData extends ExecutionStartData {
  /** The ids of the nodes whose cached outputs are reused (they do not run); may be empty. */
  nodes?: string[];
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
  /** The id of the job the message is about. */
  prompt_id: string;
  /** The id of the node starting to run; `null` once the whole run is over (the end marker). */
  node: string | null;
  /** The id the web UI shows for that node (the outer node of a subgraph), when it differs. */
  display_node?: string;
  /** Any other field the server sends, kept as it is. */
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
  /** The id of the job the message is about. */
  prompt_id: string;
  /** Steps done so far (a sampler's step, a loader's bytes...). */
  value: number;
  /** Steps in all: `value / max` is the node's progress. */
  max: number;
  /** The id of the node reporting progress. */
  node?: string;
  /** Any other field the server sends, kept as it is. */
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
  /** The id of the job the message is about. */
  prompt_id: string;
  /** Every node's progress, by node id. */
  nodes?: Record<
    string,
    {
      /** Steps done so far. */
      value?: number;
      /** Steps in all. */
      max?: number;
      /** The node's state: `pending`, `running`, `finished` or `error` on current servers. */
      state?: string;
      /** The node's id. */
      node_id?: string;
      /** The id the web UI shows for the node (the outer node of a subgraph). */
      display_node_id?: string;
      /** Any other field the server sends, kept as it is. */
      [key: string]: unknown;
    }
  >;
  /** Any other field the server sends, kept as it is. */
  [key: string]: unknown;
}

/**
 * `executed`: the output of a node with UI output. It names its node as `executing` does.
 *
 * @example
 * ```ts
 * watcher.on('executed', (e) => console.log(e.node, e.output));
 * ```
 */
export interface ExecutedData extends ExecutingData {
  /** The id of the node that produced the output. */
  node: string;
  /** The node's output (`{images: [{filename, subfolder, type}]}`...); `listOutputFiles()` picks out the files. */
  output: NodeOutput;
}

/**
 * `execution_success`: the run completed. It carries the fields of `execution_start`.
 *
 * @example
 * ```ts
 * watcher.on('execution_success', (e) => console.log('done', e.prompt_id));
 * ```
 */
export type ExecutionSuccessData = ExecutionStartData;

/**
 * `execution_error`: the run failed (or, with `exception_type: 'ExecutionBlocked'`, a branch was
 * blocked), with the fields of `execution_start`.
 *
 * @example
 * ```ts
 * watcher.on('execution_error', (e) => console.error(e.exception_type, e.exception_message));
 * ```
 */
export interface ExecutionErrorData extends ExecutionStartData {
  /** What went wrong, in the server's words. */
  exception_message?: string;
  /** The exception's class on the server (`ExecutionBlocked` for a blocked branch). */
  exception_type?: string;
  /** The id of the node that failed. */
  node_id?: string;
  /** The type of the node that failed (`KSampler`...). */
  node_type?: string;
  /** The server's traceback, usually a list of strings. */
  traceback?: unknown;
  /** The failing node's inputs, as the server describes them. */
  current_inputs?: unknown;
  /** The outputs known when it failed, as the server describes them. */
  current_outputs?: unknown;
}

/**
 * `execution_interrupted`: the run was cancelled, with the fields of `execution_start`.
 *
 * @example
 * ```ts
 * watcher.on('execution_interrupted', (e) => console.log('interrupted at', e.node_id));
 * ```
 */
export interface ExecutionInterruptedData extends ExecutionStartData {
  /** The id of the node that was running when the run was interrupted. */
  node_id?: string;
  /** That node's type. */
  node_type?: string;
  /** The ids of the nodes that had finished before the interruption. */
  executed?: string[];
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
  /** The notice, usually a text. */
  value?: unknown;
  /** Any other field the server sends, kept as it is. */
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
  /** The job the preview belongs to: named by a type 4 frame, else the job that last reported activity on the socket. */
  promptId?: string | undefined;
  /** The id of the node that sent the preview (type 4 frames only). */
  nodeId?: string | undefined;
  /** The id the web UI shows for that node (type 4 frames only). */
  displayNodeId?: string | undefined;
  /** The image's type: `image/jpeg` or `image/png`. */
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
  /** The job the text belongs to: the job that last reported activity on the socket (the frame names none). */
  promptId?: string | undefined;
  /** The id of the node that sent the text, when the frame names one. */
  nodeId?: string | undefined;
  /** Always `text/plain`. */
  mimeType: 'text/plain';
  /** The text, decoded from UTF-8. */
  data: string;
}

/**
 * How far along a whole job is: the `job_progress` event, `watcher.progress`, and the second
 * argument of `runWorkflow`'s `onProgress`. Nodes served from cache count as done; a node's own
 * steps (`progress` messages) count as its share while it runs.
 *
 * @example
 * ```ts
 * watcher.on('job_progress', (p) => bar.update(p.fraction ?? 0, `${p.done} of ${p.total ?? '?'} nodes`));
 * ```
 */
export interface JobProgress {
  /** The id of the job. */
  promptId: string;
  /** Nodes done: run to their end, or served from cache. */
  done: number;
  /** Of the nodes done, those served from cache (`execution_cached`). */
  cached: number;
  /**
   * The nodes of the workflow, or `undefined` when the watch does not know it
   * (`cloud.jobs.watch(id)` without its `workflow` option); a node the server ran beyond them
   * raises it.
   */
  total: number | undefined;
  /** The id of the node running now, if any. */
  node: string | undefined;
  /** The running node's share of its own work, from 0 to 1 (its last `progress` `value / max`; 0 before one). */
  nodeFraction: number;
  /**
   * The whole job, from 0 to 1: `(done + nodeFraction) / total`, and 1 once the job completed;
   * `undefined` while `total` is unknown.
   */
  fraction: number | undefined;
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
  /** The queue changed (no job named). */
  status: StatusData;
  /** The run began. */
  execution_start: ExecutionStartData;
  /** Which nodes reuse cached outputs (sent on every run, maybe empty). */
  execution_cached: ExecutionCachedData;
  /** A node starts to run, or (`node: null`) the run is over. */
  executing: ExecutingData;
  /** A node's step count moved. */
  progress: ProgressData;
  /** Every node's state and progress. */
  progress_state: ProgressStateData;
  /** A node produced output (only nodes with UI output). */
  executed: ExecutedData;
  /** The run completed. */
  execution_success: ExecutionSuccessData;
  /** The job's overall progress changed (after the message that changed it); not a wire message. */
  job_progress: JobProgress;
  /** The run failed: the job's end. */
  execution_error: ExecutionErrorData;
  /** A branch was blocked; the run goes on (not an end). */
  execution_blocked: ExecutionErrorData;
  /** The run was interrupted: the job is cancelled. */
  execution_interrupted: ExecutionInterruptedData;
  /** A notice from the server. */
  notification: NotificationData;
  /** A preview image (binary frame). */
  preview: PreviewData;
  /** Text a node sent (binary frame). */
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
export type WatchEvent = {
  [K in keyof WatchEventMap]: {
    /** The event's name, a key of {@link WatchEventMap}: narrows `data`. */
    type: K;
    /** What the event carries. */
    data: WatchEventMap[K];
  };
}[keyof WatchEventMap];

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
  /** The job ended (completed, failed or cancelled): called once, with what `watcher.result()` resolves to. */
  result: (result: JobResult) => void;
  /**
   * Called at most once: with a `JobFailedError` after `result` when the run failed or was
   * cancelled, or with the error `watcher.result()` rejects with when the wait ended without an
   * outcome (timed out, aborted, closed).
   */
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
  /** Bytes of messages held right now (bounded by `watcher.hold.maxBytes` plus `maxPreviewBytes`). */
  heldBytes: number;
  /** Socket connections opened. */
  connections: number;
  /** Status polls made. */
  polls: number;
  /**
   * `Price:` texts no job was charged with: the node they name was being run by no watched run, or
   * by several runs of this socket at once (two runs of one workflow), so the SDK could not tell
   * whose price it was (docs/cost.md#what-a-run-spent).
   */
  unattributedPrices: number;
}
