import { callSafely, Checker, checkOptions, isPlainObject, Limiter, rule, throwIfAborted, TimeoutError, type HttpClient, type OptionRules, type RequestOptions } from '../core/index.js';
import type { DefinitionCache } from './definitions.js';
import type { FilesResource } from './files.js';
import { WATCH_RULES, type JobsResource, type WatchOptions } from './jobs.js';
import { CLOUD_DEFAULTS } from './model/defaults.js';
import { InvalidWorkflowError, JobFailedError, OutputDownloadError, splitIssues, WatcherClosedError, type WorkflowIssue } from './model/errors.js';
import { listOutputFiles } from './model/outputs.js';
import type { JobResult, OutputFile, SubmitResult, Workflow } from './model/types.js';
import { checkUiAddresses, placeInputs, readUploads, withUploads, type UploadSpec } from './run-inputs.js';
import { checkWorkflowArgument, SUBMIT_RULES, toApiFormat, type SubmitJobOptions, type Submitter } from './submit.js';
import type { JobProgress, ProgressData, WatchEvent } from './watch/events.js';
import type { WatchHub } from './watch/hub.js';
import { isUiWorkflow } from './workflow/format.js';
import { outputNodesOf } from './workflow/output-nodes.js';
import type { UiWorkflow } from './workflow/types.js';

export type { UploadSpec } from './run-inputs.js';

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
  inputs: (check, path, value) => {
    if (value !== undefined && !isPlainObject(value)) check.fail(path, 'an object of "<node>.<input>" addresses to values', value);
  },
  uploads: (check, path, value) => {
    if (value !== undefined && !isPlainObject(value)) check.fail(path, 'an object of "<node>.<input>" addresses to files', value);
  },
  cancelOnAbort: rule.boolean,
  download: rule.boolean,
  onProgress: rule.callback,
  onEvent: rule.callback,
  onSubmitted: rule.callback,
});
const DOWNLOAD_CONCURRENCY = 4;

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
 * The `runWorkflow()` flow: check, convert a UI-format workflow, resolve the input addresses,
 * upload in parallel, wait for the socket (open, or failed so that polling takes over), submit
 * once, watch (cancelling the job on abort), download.
 *
 * @example
 * ```ts
 * const result = await runWorkflow(parts, workflow, { uploads: { '1.image': './in.png' } });
 * ```
 */
export async function runWorkflow(parts: RunParts, input: Workflow | UiWorkflow, options?: RunWorkflowOptions): Promise<JobResult> {
  const check = new Checker();
  checkWorkflowArgument(check, input);
  checkOptions(check, 'options', options, RUN_RULES);
  const targets = readUploads(check, isPlainObject(options) ? options.uploads : undefined);
  check.throwIfInvalid('cloud.runWorkflow()');
  // An address naming no node fails before any request: at once for an API-format workflow, and
  // for a UI-format one whenever its file alone can tell (untitled nodes need the definitions).
  if (!isUiWorkflow(input)) placeInputs(input, options?.inputs ?? {}, targets, undefined);
  else checkUiAddresses(input, [...Object.keys(options?.inputs ?? {}), ...targets.map((target) => target.address)]);
  const { http, definitions, files, jobs, hub, submitter } = parts;
  const { inputs = {}, signal, timeout, totalTimeout, retry, headers, waitTimeout, poll, validate = true, cancelOnAbort = true, download, onProgress, onEvent, onSubmitted, partnerApiKey, extraData, promptId } = options ?? {};
  const request: RequestOptions = { signal, timeout, totalTimeout, retry, headers };
  throwIfAborted(signal);
  http.throwIfClosed();
  const release = hub.retain();
  // Known as soon as the submission is sent when the server keeps client-chosen ids.
  let sent: string | undefined;
  try {
    const api = await toApiFormat(definitions, input, request, 'cloud.runWorkflow()');
    const info = validate ? await definitions.current(request) : undefined;
    const placed = placeInputs(api, inputs, targets, info);
    let warnings: WorkflowIssue[] = [];
    // Every address is known good: open the socket while checking and uploading (it must be up
    // before the submission), not before; an argument that fails opens nothing.
    const ready = hub.ready(signal);
    ready.catch(() => undefined);
    if (validate) {
      const pending = new Set(placed.uploads.map(({ nodeId, input: name }) => `${nodeId}.${name}`));
      const issues = splitIssues(await definitions.check(placed.workflow, { ...request, pending }));
      if (issues.errors.length > 0) throw new InvalidWorkflowError(issues.errors);
      warnings = issues.warnings;
    }
    const names = await Promise.all(
      targets.map(async ({ file, options: upload }) => {
        const uploaded = await files.upload(file, { ...upload, ...request });
        return uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
      }),
    );
    const prepared = withUploads(placed.workflow, placed.uploads, names);
    const since = await ready;
    throwIfAborted(signal);
    http.throwIfClosed();
    const submitted = await submitter.submit(prepared, { ...request, partnerApiKey, extraData, promptId, validate: false }, 'cloud.runWorkflow()', { warnings, onChosen: (chosen) => (sent = chosen) });
    sent = submitted.promptId;
    callSafely(onSubmitted, submitted);
    // Closed while the submission was in flight: the job runs; name it rather than lose it.
    if (http.closed.aborted) throw new WatcherClosedError(submitted.promptId, http.closed.reason);
    const outputNodes = outputNodesOf(prepared, info);
    const watcher = hub.watch(submitted.promptId, { signal, waitTimeout, poll, nodeErrors: submitted.nodeErrors, outputNodes, nodes: Object.keys(prepared) }, since);
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
    return result;
  } catch (error) {
    // Nobody waits for this job any more: stop paying for it (an abort, or the wait's deadline).
    const abandoned = (signal?.aborted === true && error === signal.reason) || (error instanceof TimeoutError && error.submitted !== undefined);
    if (cancelOnAbort && abandoned && sent !== undefined && !http.closed.aborted) await cancelQuietly(jobs, sent, { timeout, headers });
    throw error;
  } finally {
    release();
  }
}

/** Cancels a job whose wait ended, without the caller's (aborted) signal, bounded in time; never throws. */
async function cancelQuietly(jobs: JobsResource, promptId: string, request: RequestOptions): Promise<void> {
  const totalTimeout = CLOUD_DEFAULTS.cancelTimeoutMs;
  const timeout = request.timeout === undefined ? totalTimeout : Math.min(request.timeout, totalTimeout);
  await jobs.cancel(promptId, { headers: request.headers, timeout, totalTimeout }).catch(() => undefined);
}

/** Downloads every output file, a few at a time; the first failure stops the others. */
async function downloadAll(files: FilesResource, result: JobResult, request: RequestOptions): Promise<OutputFile[]> {
  const stop = new AbortController();
  const signal = request.signal ? AbortSignal.any([request.signal, stop.signal]) : stop.signal;
  const limiter = new Limiter(DOWNLOAD_CONCURRENCY);
  try {
    return await Promise.all(
      listOutputFiles(result.outputs).map(({ nodeId, kind, ref }) =>
        limiter.run(async () => {
          const response = await files.getResponse(ref, { ...request, signal, promptId: result.promptId });
          const data = new Uint8Array(await response.arrayBuffer());
          return { nodeId, kind, ref, data, mimeType: response.headers.get('content-type') ?? undefined };
        }, signal),
      ),
    );
  } catch (error) {
    stop.abort(error);
    throw error;
  }
}
