import { callSafely, Checker, checkOptions, isPlainObject, rule, throwIfAborted, TimeoutError, type FileInput, type HttpClient, type OptionRules, type RequestOptions } from '../core/index.js';
import { isFileInput, type FilesResource, type UploadOptions } from './files.js';
import { WATCH_RULES, type JobsResource, type WatchOptions } from './jobs.js';
import { CLOUD_DEFAULTS } from './shared/defaults.js';
import { JobFailedError, OutputDownloadError, WatcherClosedError } from './shared/errors.js';
import { eachFile, listOutputFiles } from './shared/outputs.js';
import type { JobResult, NodeOutput, OutputFile, OutputFileRef, SubmitResult, Workflow, WorkflowIssue } from './shared/types.js';
import { builderNeedsCatalog, builtWorkflow, isWorkflowBuilder } from './workflow/builder.js';
import type { WorkflowInput } from './workflow/builder-types.js';
import { isUiWorkflow, type ObjectInfo } from './workflow/validate.js';
import { checkWorkflowArgument, SUBMIT_RULES, type DefinitionCache, type SubmitJobOptions, type Submitter } from './submit.js';
import type { JobProgress, ProgressData, WatchEvent } from './watch/events.js';
import type { WatchHub } from './watch/hub.js';
import { namesNode, outputNodesOf, resolveAddress, resolveInputs, setInputs } from './workflow/addresses.js';
import type { UiWorkflow } from './workflow/types.js';

/**
 * Options of `cloud.runWorkflow()`. `timeout` is the per-attempt HTTP timeout of each request of
 * the run (uploads, the submission, downloads); `waitTimeout` the deadline of the wait for the job.
 *
 * @example
 * ```ts
 * await cloud.runWorkflow(workflow, { inputs: { 'Positive prompt.text': 'a boat' }, uploads: { 'Load Image.image': './in.png' }, waitTimeout: 600_000 });
 * ```
 */
export interface RunWorkflowOptions extends SubmitJobOptions, WatchOptions {
  /** Aborts the uploads, the submission or the wait; once the job is submitted, it is cancelled too (`cancelOnAbort`). */
  signal?: AbortSignal | undefined;
  /**
   * Input values keyed by address, `"<node>.<input>"`: the node by id, title (`_meta.title`) or
   * a class type only one node has (`{ 'KSampler.seed': 42, 'Positive prompt.text': 'a boat' }`).
   * Set in a copy of the workflow; an address naming no node, several nodes or (with `validate`)
   * no input of the node fails before anything is uploaded or sent.
   */
  inputs?: Record<string, unknown> | undefined;
  /** Files to upload first, keyed by input address like `inputs`; the returned names are written into a copy of the workflow. */
  uploads?: Record<string, UploadSpec> | undefined;
  /**
   * Check the workflow and the input addresses against the server's node definitions before
   * uploading or submitting (inputs filled by `uploads` count as present).
   * @default true
   */
  validate?: boolean | undefined;
  /**
   * When `signal` aborts or `waitTimeout` passes after the job was submitted, cancel the job
   * (`cloud.jobs.cancel()`, bounded by `DEFAULTS.cloud.cancelTimeoutMs`) before rejecting: a run
   * nobody waits for any more is GPU time paid for nothing. `false` leaves it running (watch it
   * again with `cloud.jobs.watch(promptId)`). `cloud.close()` never cancels.
   * @default true
   */
  cancelOnAbort?: boolean | undefined;
  /**
   * Add the bytes of every output file to `result.files`.
   * @default false
   */
  download?: boolean | undefined;
  /**
   * Called with every `progress` message of the job (one node's steps) and the job's overall
   * progress as of that message (`job.fraction` goes from 0 to 1 over the whole workflow, cached
   * nodes counted). A fully cached run sends no `progress`: listen to `job_progress` through
   * `onEvent` to see every change. What it throws is dropped.
   */
  onProgress?: ((progress: ProgressData, job: JobProgress) => unknown) | undefined;
  /** Called with every event of the job (what `cloud.jobs.watch()` yields). What it throws is dropped. */
  onEvent?: ((event: WatchEvent) => unknown) | undefined;
  /** Called once the submission is accepted, before the wait: the place to store `promptId`. */
  onSubmitted?: ((submitted: SubmitResult) => unknown) | undefined;
}

/** Rules of `runWorkflow()` options. */
const RUN_RULES: OptionRules = Object.freeze({
  ...SUBMIT_RULES,
  ...WATCH_RULES,
  inputs: rule.record(rule.any, 'an object of "<node>.<input>" addresses to values'),
  uploads: rule.record(rule.any, 'an object of "<node>.<input>" addresses to files'),
  cancelOnAbort: rule.boolean,
  download: rule.boolean,
  onProgress: rule.callback,
  onEvent: rule.callback,
  onSubmitted: rule.callback,
});

/**
 * What `runWorkflow()` is written over: the client's resources, its submitter and its watch hub,
 * never the client.
 *
 * @example
 * ```ts
 * const parts: RunParts = { http, definitions, files, jobs, hub, submitter };
 * ```
 */
export interface RunParts {
  http: HttpClient;
  definitions: DefinitionCache;
  files: FilesResource;
  /** Cancels the job when nobody waits for it any more (`cancelOnAbort`). */
  jobs: JobsResource;
  hub: WatchHub;
  submitter: Submitter;
}

/**
 * What `cloud.runWorkflow()` resolves with: the job's result, and `outputsOf(node)` to read one
 * output node's outputs by its builder handle (or id).
 *
 * @example
 * ```ts
 * const save = wf.SaveImage({ images: decoded.IMAGE, filename_prefix: 'boat' });
 * const result: RunResult = await cloud.runWorkflow(wf);
 * result.outputsOf(save).images;
 * ```
 */
export interface RunResult extends JobResult {
  /** The outputs of one node (`{}` when it produced none): a builder's node handle or a node id. */
  outputsOf(node: { readonly id: string } | string): NodeOutput;
}

/**
 * The `runWorkflow()` flow, in the order a reader follows it: check the arguments; prepare the run
 * (`prepareRun()`: convert, place the inputs, the cost guard, check); open the socket while the
 * files upload (`uploadRun()`); submit once; watch (cancelling the job on abort); download.
 *
 * @example
 * ```ts
 * const result = await runWorkflow(parts, workflow, { uploads: { '1.image': './in.png' } });
 * ```
 */
export async function runWorkflow(parts: RunParts, given: WorkflowInput, options?: RunWorkflowOptions): Promise<RunResult> {
  const check = new Checker();
  checkWorkflowArgument(check, given);
  checkOptions(check, 'options', options, RUN_RULES);
  const uploads = readUploads(check, isPlainObject(options) ? options.uploads : undefined);
  check.throwIfInvalid(CONTEXT);
  const { signal, timeout, totalTimeout, retry, headers, waitTimeout, poll, cancelOnAbort = true, download, onProgress, onEvent, onSubmitted, partnerApiKey, extraData, promptId } = options ?? {};
  const { http, files, jobs, hub, submitter } = parts;
  const request: RequestOptions = { signal, timeout, totalTimeout, retry, headers };
  const prepared = await prepareRun(parts, given, uploads, options ?? {}, request, CONTEXT);
  const release = hub.retain();
  // Set once the job may exist: from the moment the submission is sent when the server keeps the
  // id the client chose, else from its answer.
  let sent: string | undefined;
  try {
    // The socket must be up (or known down, so that polling takes over) before the submission: it
    // opens while the files upload, and only for arguments that passed every check.
    const ready = hub.ready(signal);
    ready.catch(() => undefined);
    const workflow = await uploadRun(files, prepared, request);
    const since = await ready;
    throwIfAborted(signal);
    http.throwIfClosed();
    const chosen = submitter.choosePromptId(promptId);
    if (chosen.kept) sent = chosen.promptId;
    const submitted = await submitter.submit(workflow, { ...request, partnerApiKey, extraData, promptId: chosen.promptId, validate: false }, CONTEXT, prepared.warnings);
    sent = submitted.promptId;
    callSafely(onSubmitted, submitted);
    // Closed while the submission was in flight: the job runs; name it rather than lose it.
    if (http.closed.aborted) throw new WatcherClosedError(submitted.promptId, http.closed.reason);
    const outputNodes = outputNodesOf(workflow, prepared.info);
    const watcher = hub.watch(submitted.promptId, { signal, waitTimeout, poll, nodeErrors: submitted.nodeErrors, outputNodes, nodes: Object.keys(workflow) }, since);
    if (onProgress) watcher.on('progress', (progress) => onProgress(progress, watcher.progress));
    if (onEvent) watcher.onEvent(onEvent);
    release();
    const result = await watcher.result();
    // The job has ended: nothing is left to cancel, whatever fails from here on.
    sent = undefined;
    if (result.status !== 'completed') throw new JobFailedError(result as JobResult & { status: 'failed' | 'cancelled' });
    if (download) {
      try {
        result.files = await downloadAll(files, result, request);
      } catch (error) {
        throwIfAborted(signal);
        // The run is paid for and finished: its outputs must survive a failed download.
        throw new OutputDownloadError(result, error);
      }
    }
    return withOutputsOf(result);
  } catch (error) {
    // Nobody waits for this job any more: stop paying for it (an abort, or the wait's deadline).
    const abandoned = (signal?.aborted === true && error === signal.reason) || (error instanceof TimeoutError && error.submitted !== undefined);
    if (cancelOnAbort && abandoned && sent !== undefined && !http.closed.aborted) {
      // Without the caller's (aborted) signal, bounded in time; a failed cancel changes nothing.
      const bound = CLOUD_DEFAULTS.cancelTimeoutMs;
      await jobs.cancel(sent, { headers, timeout: Math.min(timeout ?? bound, bound), totalTimeout: bound }).catch(() => undefined);
    }
    throw error;
  } finally {
    release();
  }
}

const CONTEXT = 'cloud.runWorkflow()';

/**
 * A run ready for its files: the API-format workflow with its `inputs` placed, the node
 * definitions it was checked against (when checked), the check's warnings, and where each upload's
 * name goes (`uploadRun()` sends them).
 *
 * @example
 * ```ts
 * const prepared: PreparedRun = await prepareRun(parts, workflow, [], {}, {}, 'cloud.runWorkflow()');
 * ```
 */
export interface PreparedRun {
  workflow: Workflow;
  info: ObjectInfo | undefined;
  warnings: WorkflowIssue[];
  uploads: { nodeId: string; input: string; file: FileInput; options: Pick<UploadOptions, 'filename' | 'type' | 'overwrite'> }[];
}

/**
 * Makes a run ready to upload and submit, everything that can refuse it before anything is sent,
 * as `runWorkflow()`, `estimateCost()` and the queue (when a run is added) need it: an address
 * that certainly names no node is refused before any request; then the workflow is converted to
 * the API format (a UI-format one, or a builder whose outputs are named, with the node
 * definitions), its `inputs` and the places of its `uploads` (as `readUploads()` read them) are
 * resolved, the cost guard (`maxCost`) applied, and the workflow checked (`validate`, default true).
 *
 * @throws {@link WorkflowAddressError}, {@link InvalidWorkflowError}, the cost guard's `BudgetExceededError`, the caller's abort reason, or `ClientClosedError`.
 * @example
 * ```ts
 * const prepared = await prepareRun(parts, given, readUploads(check, uploads), { inputs, validate: false }, { signal }, 'queue.add()');
 * const workflow = await uploadRun(parts.files, prepared, { signal });
 * ```
 */
export async function prepareRun(
  parts: Pick<RunParts, 'http' | 'definitions' | 'submitter'>,
  given: WorkflowInput,
  uploads: ReturnType<typeof readUploads>,
  options: Pick<RunWorkflowOptions, 'inputs' | 'validate' | 'maxCost' | 'allowUnpriced'>,
  request: RequestOptions,
  context: string,
): Promise<PreparedRun> {
  const { inputs = {}, validate = true } = options;
  const { http, definitions, submitter } = parts;
  // A builder whose outputs are all known by index is an API-format workflow from here on; one
  // that needs the catalog is written by the conversion below.
  const input = isWorkflowBuilder(given) && !builderNeedsCatalog(given) ? builtWorkflow(given, undefined) : given;
  // An address naming no node fails before any request: at once for an API-format workflow, and
  // for a UI-format one whenever its file alone can tell (untitled nodes need the definitions).
  if (isUiWorkflow(input)) checkUiAddresses(input, [...Object.keys(inputs), ...uploads.map((upload) => upload.address)]);
  else if (!isWorkflowBuilder(input)) placeInputs(input as Workflow, inputs, uploads, undefined);
  throwIfAborted(request.signal);
  http.throwIfClosed();
  const api = await definitions.convert(input, request, context);
  const info = validate ? await definitions.current(request) : undefined;
  const placed = placeInputs(api, inputs, uploads, info);
  // The budget refuses before anything is uploaded or sent.
  if (options.maxCost) await submitter.estimate(placed.workflow, request, options, context);
  const pending = new Set(placed.uploads.map(({ nodeId, input: name }) => `${nodeId}.${name}`));
  const warnings = validate ? await definitions.validate(placed.workflow, { ...request, pending }, context) : [];
  // `placed.uploads` is in the order of `uploads`: each place gets its file.
  return { workflow: placed.workflow, info, warnings, uploads: placed.uploads.map((place, index) => ({ ...uploads[index]!, ...place })) };
}

/**
 * Uploads a prepared run's files in parallel and writes their names into a copy of its workflow.
 *
 * @example
 * ```ts
 * const workflow = await uploadRun(files, await prepareRun(parts, given, uploads, {}, request, context), request);
 * ```
 */
export async function uploadRun(files: FilesResource, prepared: PreparedRun, request: RequestOptions): Promise<Workflow> {
  const names = await Promise.all(
    prepared.uploads.map(async ({ file, options: upload }) => {
      const uploaded = await files.upload(file, { ...upload, ...request });
      return uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
    }),
  );
  return withUploads(prepared.workflow, prepared.uploads, names);
}

/** The result, with `outputsOf()` as a method that `JSON.stringify` leaves out. */
function withOutputsOf(result: JobResult): RunResult {
  const outputsOf = (node: { readonly id: string } | string): NodeOutput => {
    const id = typeof node === 'string' ? node : node.id;
    return (Object.hasOwn(result.outputs, id) ? result.outputs[id] : undefined) ?? {};
  };
  return Object.defineProperty(result, 'outputsOf', { value: outputsOf, enumerable: false, writable: true, configurable: true }) as RunResult;
}

/** Downloads every output file, a few at a time; the first failure stops the others. */
async function downloadAll(files: FilesResource, result: JobResult, request: RequestOptions): Promise<OutputFile[]> {
  const download = async ({ nodeId, kind, ref }: OutputFileRef, signal: AbortSignal): Promise<OutputFile> => {
    const response = await files.getResponse(ref, { ...request, signal, promptId: result.promptId });
    const data = new Uint8Array(await response.arrayBuffer());
    return { nodeId, kind, ref, data, mimeType: response.headers.get('content-type') ?? undefined };
  };
  return eachFile(listOutputFiles(result.outputs), download, request.signal);
}

// The inputs of one run: values and uploads keyed by input address ("<node>.<input>", the node by
// id, title or unique class type; docs/workflows.md#input-addresses). Every address is resolved,
// and checked against the node definitions, before anything is uploaded or submitted.

/**
 * One upload of `runWorkflow({ uploads })`: a file, or a file with upload options.
 *
 * @example
 * ```ts
 * const spec: UploadSpec = { file: './photo.png', filename: 'photo.png', overwrite: true };
 * ```
 */
export type UploadSpec =
  | FileInput
  | ({
      /** The file to upload: a path, bytes or a `Blob`. */
      file: FileInput;
    } & Pick<UploadOptions, 'filename' | 'type' | 'overwrite'>);

const SPEC_RULES: OptionRules = { file: rule.any, filename: rule.string, type: rule.oneOf(['input', 'temp']), overwrite: rule.boolean };

/**
 * Reads `options.uploads` into the uploads the run performs (`{ address, file, options }`),
 * recording bad specs on `check` (the addresses are resolved once the workflow is in the API
 * format: `placeInputs()`).
 *
 * @example
 * ```ts
 * const uploads = readUploads(check, options.uploads);
 * ```
 */
export function readUploads(check: Checker, uploads: unknown) {
  if (!isPlainObject(uploads)) return [];
  return Object.entries(uploads).map(([address, spec]) => {
    const path = `options.uploads["${address}"]`;
    if (isPlainObject(spec)) {
      checkOptions(check, path, spec, SPEC_RULES);
      if (!isFileInput(spec.file)) check.fail(`${path}.file`, 'a Blob, File, ArrayBuffer, Uint8Array, ReadableStream or file path', spec.file);
      const { file, ...options } = spec as { file: FileInput } & Pick<UploadOptions, 'filename' | 'type' | 'overwrite'>;
      return { address, file, options };
    }
    if (!isFileInput(spec)) check.fail(path, 'a file: a Blob, File, ArrayBuffer, Uint8Array, ReadableStream, file path, or { file, filename?, type?, overwrite? }', spec);
    return { address, file: spec as FileInput, options: {} };
  });
}

/**
 * Where each input and upload goes, in the API-format workflow of the run. With node definitions,
 * an address must name an input the node type declares. Two addresses of the same input fail.
 *
 * @throws {@link WorkflowAddressError} for an unknown or ambiguous node, an unknown input, or an input set twice.
 * @example
 * ```ts
 * const { workflow, uploads } = placeInputs(api, { 'KSampler.seed': 7 }, targets, info);
 * ```
 */
export function placeInputs(api: Workflow, inputs: Record<string, unknown>, uploads: readonly { address: string }[], info: ObjectInfo | undefined): { workflow: Workflow; uploads: { nodeId: string; input: string }[] } {
  const addresses = [...Object.keys(inputs), ...uploads.map((upload) => upload.address)];
  const count = Object.keys(inputs).length;
  const uploaded = resolveInputs(api, addresses, info, 'Set each input once, in inputs or in uploads').slice(count);
  return { workflow: count > 0 ? setInputs(api, inputs, info) : api, uploads: uploaded.map(({ nodeId, input }) => ({ nodeId, input })) };
}

/**
 * A copy of the workflow with the uploaded names written in; the given workflow is untouched.
 *
 * @example
 * ```ts
 * const prepared = withUploads(workflow, [{ nodeId: '1', input: 'image' }], ['cat (1).png']);
 * ```
 */
export function withUploads(workflow: Workflow, places: readonly { nodeId: string; input: string }[], names: readonly string[]): Workflow {
  const copy: Workflow = { ...workflow };
  places.forEach(({ nodeId, input }, index) => {
    const node = copy[nodeId];
    if (node) copy[nodeId] = { ...node, inputs: { ...node.inputs, [input]: names[index] } };
  });
  return copy;
}

// Nodes of the web UI that never reach the server (docs/workflows.md).
const FRONTEND_ONLY = new Set(['Reroute', 'Note', 'MarkdownNote', 'PrimitiveNode']);
// Muted (2) and bypassed (4) nodes are left out of the prompt.
const LEFT_OUT = new Set([2, 4]);

/**
 * Refuses, before a UI-format workflow is converted (which reads the node definitions), an address
 * whose node part certainly names no node: none of the file's node ids, titles and types, when
 * every node the conversion can emit has a title of its own. (An untitled node is titled by its
 * definition's display name, which only the definitions give: then the check waits for them.)
 * Ids of expanded subgraphs (`outer:inner`) and every other ambiguity are left to `placeInputs()`.
 *
 * @throws {@link WorkflowAddressError} listing the nodes of the workflow.
 * @example
 * ```ts
 * checkUiAddresses(ui, ['Photo.image', 'Resize.width']);
 * ```
 */
export function checkUiAddresses(ui: UiWorkflow, addresses: readonly string[]): void {
  const subgraphs = ui.definitions?.subgraphs ?? [];
  const groups = ui.extra?.groupNodes ?? {};
  // The file's nodes: its own first (`top`), then those inside subgraphs and group nodes.
  const nodes = [ui, ...(Array.isArray(subgraphs) ? subgraphs : []), ...(isPlainObject(groups) ? Object.values(groups) : [])].flatMap((graph, index) =>
    isPlainObject(graph) && Array.isArray(graph.nodes) ? graph.nodes.filter(isPlainObject).map((node) => ({ node, top: index === 0 })) : [],
  );
  const inner = new Set(subgraphs.map((graph) => (isPlainObject(graph) ? graph.id : undefined)));
  const runs = ({ type, mode }: Record<string, unknown>) => typeof type === 'string' && !FRONTEND_ONLY.has(type) && !inner.has(type) && !/^workflow[>/]/.test(type) && !LEFT_OUT.has(mode as number);
  if (nodes.some(({ node }) => runs(node) && !(typeof node.title === 'string' && node.title))) return;
  // Every node under a key; one inside another graph under a key no address names (its id will be composite).
  const all: Workflow = Object.create(null);
  const shown: Workflow = Object.create(null);
  nodes.forEach(({ node, top }, index) => {
    const skeleton = { class_type: String(node.type), inputs: {}, _meta: { title: node.title as string } };
    all[top ? String(node.id) : `:${index}`] = skeleton;
    if (top && runs(node)) shown[String(node.id)] = skeleton;
  });
  for (const address of addresses) {
    // Throws the error of an address naming no node (or a malformed one), listing the nodes.
    if (!address.includes(':') && !namesNode(all, address)) resolveAddress(shown, address);
  }
}
