import { Checker, ConnectionError, HttpClient, redactUrl, TimeoutError, type ClientOptions, type Credential, type FileInput, type RequestOptions } from '../core/index.js';
import { JobWatcher, type WatchOptions } from '../watcher/job-watcher.js';
import type { WatcherStats } from '../watcher/events.js';
import { WatchHub } from '../watcher/hub.js';
import type { WebSocketConstructor } from '../watcher/socket.js';
import { CLOUD_DEFAULTS, resolvePolicy, type WatcherPolicyOptions } from './defaults.js';
import { mapCloudError, SubmissionUnknownError, toWorkflowValidationError, WorkflowError } from './errors.js';
import { fetchOutputs } from './outputs.js';
import { runWorkflow, type RunWorkflowOptions } from './run-workflow.js';
import { ObjectInfoSchema, PromptResponseSchema, toNodeErrors } from './schemas.js';
import { JobStatusReader, type StatusMapping } from './status.js';
import type { FileRef, JobResult, JobStatusInfo, NodeOutput, SubmitResult, UploadResult, Workflow } from './types.js';
import { upload, type UploadImageOptions, type UploadMaskOptions } from './uploads.js';
import { validateWorkflow, type ObjectInfo } from './validate-workflow.js';
import type { WorkflowIssue } from './errors.js';

/**
 * Options of `new CloudClient()`: the core client options plus the cloud's own.
 *
 * @example
 * ```ts
 * new CloudClient({ baseUrl: 'https://cloud.example.com', apiKey: process.env.CLOUD_API_KEY, watcher: { poll: { silenceMs: 10_000 } } });
 * ```
 */
export interface CloudClientOptions extends ClientOptions {
  /** The platform API key: `X-API-Key` on every request, `token` in the socket URL. Optional only for a local runtime. */
  apiKey?: Credential | undefined;
  /**
   * WebSocket constructor, for runtimes without a global one (`import WebSocket from 'ws'`).
   * @default globalThis.WebSocket
   */
  WebSocket?: WebSocketConstructor | undefined;
  /**
   * `cloud`, `local` (a local runtime: `/history` instead of the status route), or `auto`
   * (local when the status route answers 404 and `/history` answers).
   * @default 'auto'
   */
  runtime?: 'cloud' | 'local' | 'auto' | undefined;
  /** Socket `clientId`, also sent as the submission's `client_id`. @default a random UUID */
  clientId?: string | undefined;
  /** Watcher policies; see `CLOUD_DEFAULTS`. */
  watcher?: WatcherPolicyOptions | undefined;
  /** Extra or replacement raw status values (lowercase keys). @default JOB_STATUS_MAP */
  statusMap?: Readonly<Record<string, StatusMapping>> | undefined;
  /** Routes asked for outputs after a completion learned by polling. @default CLOUD_DEFAULTS.outputRoutes */
  outputRoutes?: readonly string[] | undefined;
}

/**
 * Options of `cloud.submitWorkflow()`.
 *
 * @example
 * ```ts
 * await cloud.submitWorkflow(workflow, { partnerApiKey: true });
 * ```
 */
export interface SubmitWorkflowOptions extends RequestOptions {
  /** Key for partner nodes (`extra_data.api_key_platform_org`); `true` reuses the client's key. */
  partnerApiKey?: boolean | string | undefined;
  /** Other `extra_data` fields. */
  extraData?: Record<string, unknown> | undefined;
}

/**
 * Client of the cloud execution API (Area A), also able to drive a local runtime: object info,
 * uploads, submission, job status, outputs, and job watching over one shared WebSocket.
 *
 * @example
 * ```ts
 * import { CloudClient } from 'graphcloud';
 * const cloud = new CloudClient({ baseUrl: 'https://cloud.example.com', apiKey });
 * const result = await cloud.runWorkflow(workflow, { uploads: { '10.image': './photo.png' } });
 * await cloud.close();
 * ```
 */
export class CloudClient {
  readonly baseUrl: string;
  /** The socket `clientId`, sent as `client_id` with every submission. */
  readonly clientId: string;
  readonly #http: HttpClient;
  readonly #apiKey: Credential | undefined;
  readonly #hub: WatchHub;
  readonly #options: CloudClientOptions;
  readonly #status: JobStatusReader;

  constructor(options: CloudClientOptions) {
    const { apiKey, WebSocket, runtime, clientId, watcher, statusMap, outputRoutes: _routes, ...core } = options;
    const check = new Checker();
    if (runtime === 'cloud' && apiKey === undefined) check.fail('apiKey', 'the platform API key (required by the cloud)', apiKey);
    check.oneOf('runtime', runtime, ['cloud', 'local', 'auto']);
    check.string('clientId', clientId);
    check.throwIfInvalid('new CloudClient()');
    // 429 from the cloud means "subscription inactive": retrying never helps.
    this.#http = new HttpClient({ ...core, auth: apiKey === undefined ? undefined : { scheme: 'api-key', credential: apiKey }, isRetryableStatus: (s) => s === 408 || s >= 500 });
    this.baseUrl = this.#http.baseUrl;
    this.#apiKey = apiKey;
    this.#options = options;
    this.#status = new JobStatusReader(this.#http, runtime === 'auto' ? undefined : runtime, statusMap);
    this.clientId = clientId ?? globalThis.crypto.randomUUID();
    const socketUrl = async () => {
      const url = new URL(`${this.baseUrl}/ws`);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      url.searchParams.set('clientId', this.clientId);
      const key = await this.#key();
      if (key) url.searchParams.set('token', key);
      return url.toString();
    };
    const redacted = new URL(`${this.baseUrl}/ws`);
    redacted.protocol = redacted.protocol === 'https:' ? 'wss:' : 'ws:';
    this.#hub = new WatchHub({
      socketUrl,
      redactedUrl: `${redactUrl(redacted)}?clientId=${this.clientId}&token=[REDACTED]`,
      WebSocket: WebSocket ?? globalThis.WebSocket,
      source: { getJobStatus: (id, o) => this.getJobStatus(id, o), getJobOutputs: (id, o) => this.getJobOutputs(id, o) },
      policy: resolvePolicy(watcher),
    });
  }

  /**
   * Node definitions (`GET /api/object_info`).
   *
   * @example
   * ```ts
   * const info = await cloud.getObjectInfo();
   * console.log(Object.keys(info).length, info.KSampler?.input.required?.steps);
   * ```
   */
  async getObjectInfo(options?: RequestOptions): Promise<ObjectInfo> {
    return this.#call(() => this.#http.request({ method: 'GET', path: '/api/object_info', schema: ObjectInfoSchema, options }));
  }

  /**
   * Uploads an input image (`POST /api/upload/image`); use the returned `name` in the workflow.
   *
   * @example
   * ```ts
   * const { name } = await cloud.uploadImage('./photo.png');
   * ```
   */
  async uploadImage(input: FileInput, options?: UploadImageOptions): Promise<UploadResult> {
    return this.#call(() => upload(this.#http, 'image', input, options));
  }

  /**
   * Uploads a mask for an uploaded image (`POST /api/upload/mask`, `original_ref` as JSON).
   *
   * @example
   * ```ts
   * const mask = await cloud.uploadMask('./mask.png', { originalRef: await cloud.uploadImage('./photo.png') });
   * ```
   */
  async uploadMask(input: FileInput, options: UploadMaskOptions): Promise<UploadResult> {
    return this.#call(() => upload(this.#http, 'mask', input, options));
  }

  /**
   * Submits a workflow (`POST /api/prompt`, never retried). Prefer `runWorkflow()`, which opens
   * the socket first so no message of a fast run is missed.
   *
   * @throws {WorkflowValidationError} the server rejected the workflow (400 with `node_errors`).
   * @throws {WorkflowError} a 200 answer carrying `error`.
   * @throws {InsufficientCreditsError} 402. @throws {SubscriptionInactiveError} 429.
   * @throws {SubmissionUnknownError} no answer arrived: the job may exist; it is never resubmitted.
   * @example
   * ```ts
   * const { promptId } = await cloud.submitWorkflow(workflow, { partnerApiKey: true });
   * ```
   */
  async submitWorkflow(workflow: Workflow, options: SubmitWorkflowOptions = {}): Promise<SubmitResult> {
    const { partnerApiKey, extraData, ...request } = options;
    const check = new Checker();
    if (!workflow || typeof workflow !== 'object' || Array.isArray(workflow) || Object.keys(workflow).length === 0) check.fail('workflow', 'an API-format workflow with at least one node', workflow);
    check.throwIfInvalid('cloud.submitWorkflow()');
    const extra: Record<string, unknown> = { ...extraData };
    if (partnerApiKey === true) extra.api_key_platform_org = await this.#key();
    else if (typeof partnerApiKey === 'string') extra.api_key_platform_org = partnerApiKey;
    const json = { prompt: workflow, client_id: this.clientId, ...(Object.keys(extra).length > 0 ? { extra_data: extra } : {}) };
    const body = await this.#call(() => this.#http.request({ method: 'POST', path: '/api/prompt', json, schema: PromptResponseSchema, options: request })).catch((error: unknown) => {
      // The request may have reached the server: say so, since a blind retry would run (and bill) the job twice.
      if (error instanceof ConnectionError || error instanceof TimeoutError) throw new SubmissionUnknownError(redactUrl(`${this.baseUrl}/api/prompt`), error);
      throw error;
    });
    const nodeErrors = toNodeErrors(body.node_errors);
    if (body.error || !body.prompt_id) {
      const error = body.error;
      const message = typeof error === 'string' ? error : (error?.message ?? 'the server returned no prompt_id');
      throw new WorkflowError(message, typeof error === 'object' && error ? (error.type ?? undefined) : undefined, nodeErrors, body, body.prompt_id ?? undefined);
    }
    return { promptId: body.prompt_id, number: body.number ?? undefined, nodeErrors };
  }

  /**
   * A job's status, mapped onto the documented values (`raw` keeps the server's). On a local
   * runtime, read from `/history/{id}`.
   *
   * @example
   * ```ts
   * const { status, terminal } = await cloud.getJobStatus(promptId);
   * ```
   */
  async getJobStatus(promptId: string, options?: RequestOptions): Promise<JobStatusInfo> {
    ids('cloud.getJobStatus()', promptId);
    return this.#status.read(promptId, options);
  }

  /**
   * A finished job's outputs from the server's history routes; `complete: false` when none answered.
   *
   * @example
   * ```ts
   * const { outputs, complete } = await cloud.getJobOutputs(promptId);
   * ```
   */
  async getJobOutputs(promptId: string, options?: RequestOptions): Promise<{ outputs: Record<string, NodeOutput>; complete: boolean }> {
    ids('cloud.getJobOutputs()', promptId);
    return fetchOutputs(this.#http, this.#options.outputRoutes ?? CLOUD_DEFAULTS.outputRoutes, promptId, options);
  }

  /**
   * Checks a workflow against the node definitions (fetched when not given); see `validateWorkflow`.
   *
   * @example
   * ```ts
   * const issues = await cloud.validateWorkflow(workflow);
   * ```
   */
  async validateWorkflow(workflow: Workflow, objectInfo?: ObjectInfo, options?: RequestOptions): Promise<WorkflowIssue[]> {
    return validateWorkflow(workflow, objectInfo ?? (await this.getObjectInfo(options)));
  }

  /**
   * An output file's bytes (`GET /api/view`); the cloud's `302` to a signed URL on another host
   * is followed without the API key.
   *
   * @example
   * ```ts
   * const png = await cloud.getOutputFile(result.outputs['9'].images[0]);
   * ```
   */
  async getOutputFile(ref: FileRef, options?: RequestOptions): Promise<Uint8Array> {
    const response = await this.getOutputResponse(ref, options);
    return new Uint8Array(await response.arrayBuffer());
  }

  /**
   * An output file as an unread `Response` (stream it with `response.body`).
   *
   * @example
   * ```ts
   * const response = await cloud.getOutputResponse(ref);
   * await pipeline(Readable.fromWeb(response.body!), createWriteStream('out.mp4'));
   * ```
   */
  async getOutputResponse(ref: FileRef, options?: RequestOptions): Promise<Response> {
    const check = new Checker();
    check.string('ref.filename', ref?.filename, { required: true });
    check.throwIfInvalid('cloud.getOutputFile()');
    const query = { filename: ref.filename, subfolder: ref.subfolder ?? '', type: ref.type ?? 'output' };
    return this.#call(() => this.#http.requestRaw({ method: 'GET', path: '/api/view', query, options }));
  }

  /**
   * Watches a job on the shared socket (opened lazily; polled when it cannot be).
   *
   * @example
   * ```ts
   * for await (const event of cloud.watch(promptId)) console.log(event.type);
   * ```
   */
  watch(promptId: string, options: WatchOptions = {}): JobWatcher {
    ids('cloud.watch()', promptId);
    return this.#hub.watch(promptId, options);
  }

  /**
   * Uploads inputs, submits (after the socket is open), watches and resolves the result.
   *
   * @throws {JobFailedError} the run failed or was cancelled (`error.result` keeps everything known).
   * @example
   * ```ts
   * const { outputs } = await cloud.runWorkflow(workflow, { uploads: { '10.image': './in.png' }, onProgress: (p) => console.log(p.value) });
   * ```
   */
  async runWorkflow(workflow: Workflow, options: RunWorkflowOptions = {}): Promise<JobResult> {
    return runWorkflow({ client: this, hub: this.#hub }, workflow, options);
  }

  /**
   * Counters of the shared socket (frames received, ignored, held, dropped, polls).
   *
   * @example
   * ```ts
   * console.log(cloud.watcherStats());
   * ```
   */
  watcherStats(): Readonly<WatcherStats> {
    return { ...this.#hub.stats };
  }

  /**
   * Closes the socket; unsettled watchers reject with `WatcherClosedError` (jobs keep running).
   *
   * @example
   * ```ts
   * await cloud.close();
   * ```
   */
  async close(): Promise<void> {
    this.#hub.close();
  }

  async #key(): Promise<string | undefined> {
    const key = this.#apiKey;
    return typeof key === 'function' ? await key() : key;
  }

  async #call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toWorkflowValidationError(mapCloudError(error));
    }
  }

  /** Shows the base URL and client id only: no credential, no internals. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `CloudClient { baseUrl: '${redactUrl(this.baseUrl)}', clientId: '${this.clientId}' }`;
  }
}

function ids(context: string, promptId: unknown): void {
  const check = new Checker();
  check.string('promptId', promptId, { required: true });
  check.throwIfInvalid(context);
}
