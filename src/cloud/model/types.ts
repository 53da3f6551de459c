/**
 * One node of an API-format workflow: its class and its inputs. An input is a literal value or
 * a link `[sourceNodeId, outputIndex]` to another node's output.
 *
 * @example
 * ```ts
 * const node: WorkflowNode = { class_type: 'LoadImage', inputs: { image: 'photo.png' } };
 * ```
 */
export interface WorkflowNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string } | undefined;
  [key: string]: unknown;
}

/**
 * An API-format workflow: node id to node.
 *
 * @example
 * ```ts
 * const workflow: Workflow = { '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } } };
 * ```
 */
export type Workflow = Record<string, WorkflowNode>;

/**
 * The documented job statuses; raw server states are mapped onto them (see `cloud.jobs.getStatus()`).
 *
 * @example
 * ```ts
 * const done: JobStatus[] = ['completed', 'failed', 'cancelled'];
 * ```
 */
export type JobStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

/**
 * What `cloud.jobs.getStatus()` learned about a job.
 *
 * @example
 * ```ts
 * const { status, raw, terminal } = await cloud.jobs.getStatus(promptId);
 * ```
 */
export interface JobStatusInfo {
  promptId: string;
  /** The documented value. */
  status: JobStatus;
  /** The value the server sent (`success`, `queued_waiting`, `history:absent`...). */
  raw: string;
  /** True once the job will not change any more. */
  terminal: boolean;
  /** The server's reason, for a failed job. */
  errorMessage?: string | undefined;
}

/**
 * One validation problem of one node, as the server reports it.
 *
 * @example
 * ```ts
 * for (const e of nodeErrors['3']?.errors ?? []) console.log(e.type, e.message);
 * ```
 */
export interface NodeErrorDetail {
  type: string;
  message: string;
  details?: unknown;
  extra_info?: unknown;
}

/**
 * The server's errors of one node (`node_errors[nodeId]`).
 *
 * @example
 * ```ts
 * const error: NodeErrors = { class_type: 'KSampler', errors: [], dependent_outputs: ['9'] };
 * ```
 */
export interface NodeErrors {
  class_type?: string | undefined;
  errors: NodeErrorDetail[];
  dependent_outputs?: unknown[] | undefined;
}

/**
 * The answer to a submission.
 *
 * @example
 * ```ts
 * const { promptId, number, nodeErrors } = await cloud.jobs.submit(workflow);
 * ```
 */
export interface SubmitResult {
  promptId: string;
  /** Position in the queue, when the server sent it. */
  number: number | undefined;
  /** Nodes dropped by validation while the rest runs (can be non-empty on success). */
  nodeErrors: Record<string, NodeErrors>;
  /**
   * The job's token, when submitted through a relay (`graphcloud/server`): keep it with the
   * prompt id to watch the job again after a page reload (`jobs.watch(promptId, { relayToken })`).
   */
  relayToken?: string | undefined;
}

/**
 * A stored file, as uploads return it and outputs reference it.
 *
 * @example
 * ```ts
 * const ref: FileRef = { filename: 'out_0001.png', subfolder: '', type: 'output' };
 * ```
 */
export interface FileRef {
  filename: string;
  subfolder?: string | undefined;
  type?: string | undefined;
}

/**
 * What an upload returns; later calls use `name` (the server may rename or deduplicate).
 *
 * @example
 * ```ts
 * const { name } = await cloud.files.upload('./photo.png');
 * ```
 */
export interface UploadResult {
  name: string;
  subfolder: string;
  type?: string | undefined;
}

/**
 * The output of one node (`executed.output`): lists such as `images`, `video`, `audio`, `gifs`,
 * `text`, and anything else a node pack sends. Kept as the server sent it; `listOutputFiles()`
 * picks out the file references.
 *
 * @example
 * ```ts
 * const refs = listOutputFiles(result.outputs).filter((f) => f.nodeId === '9');
 * ```
 */
export type NodeOutput = Record<string, unknown>;

/**
 * Why a run failed, from `execution_error` or from the status route.
 *
 * @example
 * ```ts
 * if (result.status === 'failed') console.log(result.error?.message);
 * ```
 */
export interface JobErrorInfo {
  message: string;
  exceptionType?: string | undefined;
  nodeId?: string | undefined;
  nodeType?: string | undefined;
  traceback?: unknown;
}

/**
 * A downloaded output file (`runWorkflow(..., { download: true })`).
 *
 * @example
 * ```ts
 * for (const f of result.files ?? []) await writeFile(f.ref.filename, f.data);
 * ```
 */
export interface OutputFile {
  nodeId: string;
  /** The output list it came from (`images`, `video`...). */
  kind: string;
  ref: FileRef;
  /** The file's bytes (`new Blob([data])` takes them as they are). */
  data: Uint8Array<ArrayBuffer>;
  mimeType: string | undefined;
}

/**
 * The outcome of a watched job.
 *
 * @example
 * ```ts
 * const { status, outputs, outputsComplete } = await cloud.jobs.watch(promptId).result();
 * ```
 */
export interface JobResult {
  promptId: string;
  status: 'completed' | 'failed' | 'cancelled';
  /** Outputs by node id, from `executed` messages and, when needed, the server's history. */
  outputs: Record<string, NodeOutput>;
  /** The submission's `node_errors` (nodes dropped before the run). */
  nodeErrors: Record<string, NodeErrors>;
  /**
   * True when every output is known: the whole run was seen on the socket, or the server's
   * history answered. False when completion was learned by polling and no output route answered.
   */
  outputsComplete: boolean;
  /** How the end was learned: a socket message, a status read, or `cloud.jobs.cancel()` itself. */
  via: 'socket' | 'poll' | 'cancel';
  /** Failure or interruption details. */
  error?: JobErrorInfo | undefined;
  /** Output bytes, with `download: true`. */
  files?: OutputFile[] | undefined;
}
