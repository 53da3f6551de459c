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
  /** The node type, a key of the server's node definitions (`cloud.nodes.list()`): `KSampler`, `LoadImage`... */
  class_type: string;
  /** The node's inputs by name: a literal value, or a link `[sourceNodeId, outputIndex]`. */
  inputs: Record<string, unknown>;
  /** Editor metadata the server ignores; `title` is the name the node has in the web UI, used in the SDK's messages. */
  _meta?:
    | {
        /** The node's title in the web UI (`"Positive prompt"`). */
        title?: string;
      }
    | undefined;
  /** Any other field of the node, sent as it is. */
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
  /** The job's id, as asked. */
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
  /** The kind of problem (`value_not_in_list`, `required_input_missing`...); `'error'` when the server gave none. */
  type: string;
  /** What is wrong, in the server's words (the `type` when it sent no message). */
  message: string;
  /** More detail, as the server sent it: often the input and the value it refused. */
  details?: unknown;
  /** Structured detail, as the server sent it (`input_name`, `input_config`, `received_value`...). */
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
  /** The node's type (`KSampler`...), when the server names it. */
  class_type?: string | undefined;
  /** Each problem of this node; may be empty when only an output depending on it was dropped. */
  errors: NodeErrorDetail[];
  /** The ids of the output nodes that depended on this node and were dropped with it. */
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
  /** The job's id (`prompt_id`): watch, cancel or look it up with it. */
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
  /**
   * Warnings of the check before sending (`validate`), when there were any: nodes sent unchecked
   * because the server's definition of their type could not be read (`code: 'unchecked_node'`).
   */
  warnings?: WorkflowIssue[] | undefined;
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
  /** The file's name on the server, as an upload returned it (`name`) or an output lists it. */
  filename: string;
  /** The folder under the file type's root; `''` for none. The cloud keeps one flat namespace and ignores it. */
  subfolder?: string | undefined;
  /** Which store the file is in: `output` (a run's results), `input` (uploads) or `temp` (previews). */
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
  /** The name the server stored the file under, maybe not the one sent (`photo (1).png`): put this one in the workflow. */
  name: string;
  /** The folder the file was stored in; `''` for none. */
  subfolder: string;
  /** The store the file went to (`input`, or `temp`), when the server says. */
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
  /** What went wrong: the server's `exception_message`, or its error message. */
  message: string;
  /** The exception's class on the server (`exception_type`: `torch.OutOfMemoryError`...), when sent. */
  exceptionType?: string | undefined;
  /** The id of the node that failed, when known. */
  nodeId?: string | undefined;
  /** The type of the node that failed (`KSampler`...), when known. */
  nodeType?: string | undefined;
  /** The server's traceback as it sent it (usually a list of strings), when sent. */
  traceback?: unknown;
}

/**
 * A file reference found in a job's outputs.
 *
 * @example
 * ```ts
 * const found: OutputFileRef = { nodeId: '9', kind: 'images', ref: { filename: 'a.png', subfolder: '', type: 'output' } };
 * ```
 */
export interface OutputFileRef {
  /** The id of the node whose output lists the file. */
  nodeId: string;
  /** The output list it is in (`images`, `video`, `audio`, `gifs`, or a node pack's own). */
  kind: string;
  /** The file's reference: `cloud.files.get(ref)` downloads it. */
  ref: FileRef;
}

/**
 * A downloaded output file (`runWorkflow(..., { download: true })`).
 *
 * @example
 * ```ts
 * for (const f of result.files ?? []) await writeFile(f.ref.filename, f.data);
 * ```
 */
export interface OutputFile extends OutputFileRef {
  /** The file's bytes (`new Blob([data])` takes them as they are). */
  data: Uint8Array<ArrayBuffer>;
  /** The download's `Content-Type` (`image/png`...), when the server sent one. */
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
  /** The job's id. */
  promptId: string;
  /** How the job ended: `completed`, or `failed` or `cancelled` (then `error` says why, when known). */
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
  /**
   * How the end was learned: a socket message or a status read. `cancel` is no longer given: a
   * cancel never settles a watch (see `cancelRequested`).
   */
  via: 'socket' | 'poll' | 'cancel';
  /**
   * True when this client asked to cancel the job (`cloud.jobs.cancel()`, whatever it answered)
   * before the watch settled. A cancel only asks: `status` is what the job did, and a run stopped
   * between nodes may finish its last node and complete, with its outputs (and its cost). Absent
   * otherwise.
   */
  cancelRequested?: boolean | undefined;
  /** Failure or interruption details. */
  error?: JobErrorInfo | undefined;
  /** Output bytes, with `download: true`. */
  files?: OutputFile[] | undefined;
  /**
   * What the run spent, from the `Price:` texts its partner-API nodes sent while they ran;
   * `undefined` when the server sent none (no partner node, a server that sends no price, or texts
   * the SDK could not attribute to this run: docs/cost.md#what-a-run-spent). Never an estimate.
   */
  cost?: RunCost | undefined;
}

/**
 * What a run spent, as the server reported it.
 *
 * @example
 * ```ts
 * const { cost } = await cloud.runWorkflow(workflow);
 * if (cost) console.log(`${cost.credits} credits ($${cost.usd.toFixed(2)})`, cost.byNode);
 * ```
 */
export interface RunCost {
  /** The run's credits: the sum over its priced nodes. */
  credits: number;
  /** The same in USD, at the client's credits-per-USD rate. */
  usd: number;
  /** Credits by node id: each node's last `Price:` line. */
  byNode: Record<string, number>;
}

/**
 * One problem `validateWorkflow()` found.
 *
 * @example
 * ```ts
 * const issue: WorkflowIssue = { nodeId: '3', input: 'seed', code: 'out_of_range', message: 'an integer from 0 to 100', received: -1 };
 * ```
 */
export interface WorkflowIssue {
  /** The id of the node concerned, or `(workflow)` when the workflow as a whole has the wrong shape. */
  nodeId: string;
  /** The input concerned, when there is one. */
  input?: string | undefined;
  /**
   * The kind of problem: a node type the server does not have, a required input not set, a number
   * outside `min`/`max`, a value outside the option list, a literal of the wrong type, a link to a
   * node that is not in the workflow, a node that is not `{class_type, inputs}`, or a whole
   * workflow in the web UI's format; or, as a warning, a node left unchecked because the server's
   * definition of its type could not be read.
   */
  code: 'unknown_class_type' | 'missing_required_input' | 'out_of_range' | 'not_in_options' | 'wrong_type' | 'missing_link_target' | 'invalid_node' | 'ui_format' | 'unchecked_node';
  /**
   * `'warning'` for an issue that does not stop a run (`unchecked_node`); absent for the others,
   * which do.
   */
  severity?: 'warning' | undefined;
  /** What was expected (`an integer from 0 to 100`, `one of: "euler", "dpmpp_2m"`...). */
  message: string;
  /** The value found, when there is one. */
  received?: unknown;
}
