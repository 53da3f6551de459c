import { Checker, throwIfAborted, type FileInput } from '../core/index.js';
import type { ProgressData, WatchEvent } from '../watcher/events.js';
import type { WatchHub } from '../watcher/hub.js';
import type { CloudClient } from './client.js';
import { InvalidWorkflowError, JobFailedError, OutputDownloadError, WatcherClosedError } from './errors.js';
import { listOutputFiles } from './outputs.js';
import type { JobResult, OutputFile, SubmitResult, Workflow } from './types.js';
import type { UploadImageOptions } from './uploads.js';
import { validateWorkflow } from './validate-workflow.js';

/**
 * One upload of `runWorkflow({ uploads })`: a file, or a file with upload options.
 *
 * @example
 * ```ts
 * const spec: UploadSpec = { file: './photo.png', filename: 'photo.png', overwrite: true };
 * ```
 */
export type UploadSpec = FileInput | ({ file: FileInput } & Pick<UploadImageOptions, 'filename' | 'type' | 'overwrite'>);

/**
 * Options of `cloud.runWorkflow()`.
 *
 * @example
 * ```ts
 * await cloud.runWorkflow(workflow, { uploads: { '10.image': './in.png' }, validate: true, download: true, timeout: 600_000 });
 * ```
 */
export interface RunWorkflowOptions {
  /** Files to upload first, keyed `"<nodeId>.<inputName>"`; the returned names are written into a copy of the workflow. */
  uploads?: Record<string, UploadSpec> | undefined;
  /** Aborts the uploads, the submission or the wait (the job itself keeps running once submitted). */
  signal?: AbortSignal | undefined;
  /** Deadline of the wait for the job, in ms. @default CLOUD_DEFAULTS.watch.timeoutMs */
  timeout?: number | undefined;
  /** Called with every `progress` message of the job. */
  onProgress?: ((progress: ProgressData) => void) | undefined;
  /** Called with every event of the job (the same events `cloud.watch()` yields). */
  onEvent?: ((event: WatchEvent) => void) | undefined;
  /**
   * Called once the submission is accepted, before the wait: store `promptId` here, since an
   * abort or a timeout afterwards rejects without it while the paid job keeps running.
   */
  onSubmitted?: ((submitted: SubmitResult) => void) | undefined;
  /** Key for partner nodes; `true` reuses the client's key. */
  partnerApiKey?: boolean | string | undefined;
  /** Other `extra_data` fields of the submission. */
  extraData?: Record<string, unknown> | undefined;
  /** Check the workflow against `getObjectInfo()` before uploading or submitting. @default false */
  validate?: boolean | undefined;
  /** Add the bytes of every output file to `result.files`. @default false */
  download?: boolean | undefined;
}

const DOWNLOAD_CONCURRENCY = 4;

/**
 * The `runWorkflow()` flow: validate, upload in parallel, wait for the socket (open, or failed so
 * that polling takes over), submit once, watch, download.
 *
 * @example
 * ```ts
 * const result = await runWorkflow({ client, hub }, workflow, { uploads: { '1.image': './in.png' } });
 * ```
 */
export async function runWorkflow(deps: { client: CloudClient; hub: WatchHub }, workflow: Workflow, options: RunWorkflowOptions): Promise<JobResult> {
  const { client, hub } = deps;
  const { uploads = {}, signal, timeout, onProgress, onEvent, onSubmitted, partnerApiKey, extraData, validate, download } = options;
  throwIfAborted(signal);
  const targets = checkArguments(workflow, uploads);
  const release = hub.retain();
  // cloud.close() stops the work that costs nothing yet (checks, uploads, the socket wait); a
  // submission in flight is left to finish so its prompt id is not lost.
  const work = signal ? AbortSignal.any([signal, hub.closed]) : hub.closed;
  try {
    // Open the socket while validating and uploading: it must be up before the submission.
    const ready = hub.ready(signal);
    ready.catch(() => undefined);
    if (validate) {
      const issues = validateWorkflow(workflow, await client.getObjectInfo({ signal: work }), { pending: new Set(targets.map((t) => t.key)) });
      if (issues.length > 0) throw new InvalidWorkflowError(issues);
    }
    const names = await Promise.all(
      targets.map(async ({ spec }) => {
        const { file, ...rest } = isSpecObject(spec) ? spec : { file: spec };
        const uploaded = await client.uploadImage(file, { ...rest, signal: work });
        return uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
      }),
    );
    const prepared = withInputs(workflow, targets, names);
    const since = await ready;
    throwIfAborted(work);
    const submitted = await client.submitWorkflow(prepared, { partnerApiKey, extraData, signal });
    notify(onSubmitted, submitted);
    // Closed while the submission was in flight: the job runs; name it rather than lose it.
    if (hub.closed.aborted) throw new WatcherClosedError(submitted.promptId);
    const watcher = hub.watch(submitted.promptId, { signal, timeout, nodeErrors: submitted.nodeErrors }, since);
    if (onProgress) watcher.on('progress', onProgress);
    if (onEvent) watcher.onEvent(onEvent);
    release();
    const result = await watcher.result();
    if (result.status !== 'completed') throw new JobFailedError(result as JobResult & { status: 'failed' | 'cancelled' });
    if (download) {
      try {
        result.files = await downloadAll(client, result, signal);
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

/** Calls an observer; a throwing or rejecting one must not lose the paid job being watched. */
function notify<T>(observer: ((value: T) => unknown) | undefined, value: T): void {
  try {
    const returned = observer?.(value);
    if (returned instanceof Promise) returned.catch(() => undefined);
  } catch {
    // Observers observe: the job goes on.
  }
}

function isSpecObject(spec: UploadSpec): spec is { file: FileInput } & Pick<UploadImageOptions, 'filename' | 'type' | 'overwrite'> {
  return typeof spec === 'object' && spec !== null && 'file' in spec && !(spec instanceof Blob) && !ArrayBuffer.isView(spec);
}

function checkArguments(workflow: Workflow, uploads: Record<string, UploadSpec>): { key: string; nodeId: string; input: string; spec: UploadSpec }[] {
  const check = new Checker();
  const isObject = workflow && typeof workflow === 'object' && !Array.isArray(workflow);
  if (!isObject || Object.keys(workflow).length === 0) check.fail('workflow', 'an API-format workflow with at least one node', workflow);
  const targets = Object.entries(uploads ?? {}).map(([key, spec]) => {
    const dot = key.indexOf('.');
    const nodeId = dot > 0 ? key.slice(0, dot) : '';
    const input = dot > 0 ? key.slice(dot + 1) : '';
    if (!nodeId || !input) check.fail(`uploads["${key}"]`, 'a key "<nodeId>.<inputName>"', key);
    else if (isObject && !workflow[nodeId]) check.fail(`uploads["${key}"]`, `a node of the workflow (no node "${nodeId}")`, key);
    check.required(`uploads["${key}"]`, spec);
    return { key, nodeId, input, spec };
  });
  check.throwIfInvalid('cloud.runWorkflow()');
  return targets;
}

/** A copy of the workflow with the uploaded names written in; the caller's object is untouched. */
function withInputs(workflow: Workflow, targets: { nodeId: string; input: string }[], names: string[]): Workflow {
  const copy: Workflow = { ...workflow };
  targets.forEach(({ nodeId, input }, index) => {
    const node = copy[nodeId];
    if (!node) return;
    copy[nodeId] = { ...node, inputs: { ...node.inputs, [input]: names[index] } };
  });
  return copy;
}

async function downloadAll(client: CloudClient, result: JobResult, signal: AbortSignal | undefined): Promise<OutputFile[]> {
  const refs = listOutputFiles(result.outputs);
  const files: OutputFile[] = new Array(refs.length);
  let next = 0;
  const worker = async () => {
    while (next < refs.length) {
      const index = next++;
      const found = refs[index];
      if (!found) continue;
      const response = await client.getOutputResponse(found.ref, { signal });
      const data = new Uint8Array(await response.arrayBuffer());
      files[index] = { nodeId: found.nodeId, kind: found.kind, ref: found.ref, data, mimeType: response.headers.get('content-type') ?? undefined };
    }
  };
  await Promise.all(Array.from({ length: Math.min(DOWNLOAD_CONCURRENCY, refs.length) }, worker));
  return files;
}
