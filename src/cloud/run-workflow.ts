import { callSafely, Checker, checkOptions, isPlainObject, Limiter, rule, throwIfAborted, type FileInput, type HttpClient, type OptionRules, type RequestOptions } from '../core/index.js';
import type { DefinitionCache } from './definitions.js';
import { isFileInput, type FilesResource, type UploadOptions } from './files.js';
import { SUBMIT_RULES, WATCH_RULES, type JobsResource, type SubmitJobOptions, type WatchOptions } from './jobs.js';
import { InvalidWorkflowError, JobFailedError, OutputDownloadError, WatcherClosedError } from './model/errors.js';
import { listOutputFiles } from './model/outputs.js';
import type { JobResult, OutputFile, SubmitResult, Workflow } from './model/types.js';
import { checkWorkflowShape } from './model/validate-workflow.js';
import type { ProgressData, WatchEvent } from './watch/events.js';
import type { WatchHub } from './watch/hub.js';

/**
 * One upload of `runWorkflow({ uploads })`: a file, or a file with upload options.
 *
 * @example
 * ```ts
 * const spec: UploadSpec = { file: './photo.png', filename: 'photo.png', overwrite: true };
 * ```
 */
export type UploadSpec = FileInput | ({ file: FileInput } & Pick<UploadOptions, 'filename' | 'type' | 'overwrite'>);

/**
 * Options of `cloud.runWorkflow()`. `timeout` is the per-attempt HTTP timeout of each request of
 * the run (uploads, the submission, downloads); `waitTimeout` the deadline of the wait for the job.
 *
 * @example
 * ```ts
 * await cloud.runWorkflow(workflow, { uploads: { '10.image': './in.png' }, download: true, waitTimeout: 600_000 });
 * ```
 */
export interface RunWorkflowOptions extends SubmitJobOptions, WatchOptions {
  /** Aborts the uploads, the submission or the wait (the job itself keeps running once submitted). */
  signal?: AbortSignal | undefined;
  /** Files to upload first, keyed `"<nodeId>.<inputName>"`; the returned names are written into a copy of the workflow. */
  uploads?: Record<string, UploadSpec> | undefined;
  /**
   * Check the workflow against the server's node definitions before uploading or submitting
   * (inputs filled by `uploads` count as present).
   * @default true
   */
  validate?: boolean | undefined;
  /**
   * Add the bytes of every output file to `result.files`.
   * @default false
   */
  download?: boolean | undefined;
  /** Called with every `progress` message of the job. What it throws is dropped. */
  onProgress?: ((progress: ProgressData) => unknown) | undefined;
  /** Called with every event of the job (what `cloud.jobs.watch()` yields). What it throws is dropped. */
  onEvent?: ((event: WatchEvent) => unknown) | undefined;
  /**
   * Called once the submission is accepted, before the wait: store `promptId` here, since an
   * abort afterwards rejects with your `signal.reason` while the paid job keeps running.
   */
  onSubmitted?: ((submitted: SubmitResult) => unknown) | undefined;
}

/** Rules of `runWorkflow()` options. */
const RUN_RULES: OptionRules = Object.freeze({
  ...SUBMIT_RULES,
  ...WATCH_RULES,
  uploads: (check, path, value) => {
    if (value !== undefined && !isPlainObject(value)) check.fail(path, 'an object of "<nodeId>.<inputName>" keys to files', value);
  },
  download: rule.boolean,
  onProgress: rule.callback,
  onEvent: rule.callback,
  onSubmitted: rule.callback,
});
const SPEC_RULES: OptionRules = { file: rule.any, filename: rule.string, type: rule.oneOf(['input', 'temp']), overwrite: rule.boolean };
const DOWNLOAD_CONCURRENCY = 4;

/**
 * What `runWorkflow()` is written over: the client's resources and its watch hub, never the client.
 *
 * @example
 * ```ts
 * const parts: RunParts = { http, definitions, files, jobs, hub };
 * ```
 */
export interface RunParts {
  http: HttpClient;
  definitions: DefinitionCache;
  files: FilesResource;
  jobs: JobsResource;
  hub: WatchHub;
}

interface Target {
  key: string;
  nodeId: string;
  input: string;
  file: FileInput;
  upload: Pick<UploadOptions, 'filename' | 'type' | 'overwrite'>;
}

/**
 * The `runWorkflow()` flow: check, upload in parallel, wait for the socket (open, or failed so
 * that polling takes over), submit once, watch, download.
 *
 * @example
 * ```ts
 * const result = await runWorkflow(parts, workflow, { uploads: { '1.image': './in.png' } });
 * ```
 */
export async function runWorkflow(parts: RunParts, workflow: Workflow, options?: RunWorkflowOptions): Promise<JobResult> {
  const targets = checkArguments(workflow, options);
  const { http, definitions, files, jobs, hub } = parts;
  const { uploads: _uploads, signal, timeout, totalTimeout, retry, headers, waitTimeout, poll, validate = true, download, onProgress, onEvent, onSubmitted, partnerApiKey, extraData } = options ?? {};
  const request: RequestOptions = { signal, timeout, totalTimeout, retry, headers };
  throwIfAborted(signal);
  http.throwIfClosed();
  const release = hub.retain();
  try {
    // Open the socket while checking and uploading: it must be up before the submission.
    const ready = hub.ready(signal);
    ready.catch(() => undefined);
    if (validate) {
      const issues = await definitions.check(workflow, { ...request, pending: new Set(targets.map((t) => t.key)) });
      if (issues.length > 0) throw new InvalidWorkflowError(issues);
    }
    const names = await Promise.all(
      targets.map(async ({ file, upload }) => {
        const uploaded = await files.upload(file, { ...upload, ...request });
        return uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
      }),
    );
    const prepared = withInputs(workflow, targets, names);
    const since = await ready;
    throwIfAborted(signal);
    http.throwIfClosed();
    const submitted = await jobs.submit(prepared, { ...request, validate: false, partnerApiKey, extraData });
    callSafely(onSubmitted, submitted);
    // Closed while the submission was in flight: the job runs; name it rather than lose it.
    if (http.closed.aborted) throw new WatcherClosedError(submitted.promptId, http.closed.reason);
    const watcher = hub.watch(submitted.promptId, { signal, waitTimeout, poll, nodeErrors: submitted.nodeErrors }, since);
    if (onProgress) watcher.on('progress', onProgress);
    if (onEvent) watcher.onEvent(onEvent);
    release();
    const result = await watcher.result();
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
  } finally {
    release();
  }
}

/** Checks the workflow, the options and the uploads before anything starts; returns the uploads. */
function checkArguments(workflow: Workflow, options: RunWorkflowOptions | undefined): Target[] {
  const check = new Checker();
  checkWorkflowShape(check, workflow);
  const isObject = checkOptions(check, 'options', options, RUN_RULES);
  const uploads = isObject && isPlainObject(options?.uploads) ? options.uploads : {};
  const targets = Object.entries(uploads).map(([key, spec]): Target => {
    const path = `options.uploads["${key}"]`;
    const dot = key.indexOf('.');
    const nodeId = dot > 0 ? key.slice(0, dot) : '';
    const input = dot > 0 ? key.slice(dot + 1) : '';
    if (!nodeId || !input) check.fail(path, 'a key "<nodeId>.<inputName>"', key);
    else if (isPlainObject(workflow) && !Object.hasOwn(workflow, nodeId)) check.fail(path, `a node of the workflow (no node "${nodeId}")`, key);
    if (isPlainObject(spec)) {
      checkOptions(check, path, spec, SPEC_RULES);
      if (!isFileInput(spec.file)) check.fail(`${path}.file`, 'a Blob, File, ArrayBuffer, Uint8Array, ReadableStream or file path', spec.file);
      const { file, ...upload } = spec as { file: FileInput } & Target['upload'];
      return { key, nodeId, input, file, upload };
    }
    if (!isFileInput(spec)) check.fail(path, 'a file: a Blob, File, ArrayBuffer, Uint8Array, ReadableStream, file path, or { file, filename?, type?, overwrite? }', spec);
    return { key, nodeId, input, file: spec as FileInput, upload: {} };
  });
  check.throwIfInvalid('cloud.runWorkflow()');
  return targets;
}

/** A copy of the workflow with the uploaded names written in; the caller's object is untouched. */
function withInputs(workflow: Workflow, targets: Target[], names: string[]): Workflow {
  const copy: Workflow = { ...workflow };
  targets.forEach(({ nodeId, input }, index) => {
    const node = copy[nodeId];
    if (!node) return;
    copy[nodeId] = { ...node, inputs: { ...node.inputs, [input]: names[index] } };
  });
  return copy;
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
