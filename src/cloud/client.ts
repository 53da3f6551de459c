/// <reference lib="esnext.disposable" preserve="true" />
import { Checker, CLIENT_RULES, checkOptions, credentialRule, HttpClient, isPlainObject, redactUrl, REQUEST_RULES, resolveBaseUrl, rule, type ClientOptions, type Credential, type OptionRules, type RequestOptions, type Rule } from '../core/index.js';
import { NodeDefinitionsResource } from './definitions.js';
import { FilesResource } from './files.js';
import { JobsResource } from './jobs.js';
import { CLOUD_DEFAULTS, defined, resolvePolicy, WATCHER_RULES, type WatcherPolicyOptions } from './shared/defaults.js';
import type { JobRoutes } from './shared/job-types.js';
import { mapCloudError } from './shared/errors.js';
import { JobReader } from './shared/job-reader.js';
import { RelayTokens } from './shared/wire.js';
import { JOB_STATUSES, type StatusMapping } from './shared/status.js';
import type { Workflow, WorkflowIssue } from './shared/types.js';
import { isUiWorkflow, validateWorkflow } from './workflow/validate.js';
import { runWorkflow, type RunParts, type RunResult, type RunWorkflowOptions } from './run-workflow.js';
import { estimateCost, type EstimateCostOptions } from './estimate-cost.js';
import type { CostEstimate } from './shared/cost-types.js';
import { checkWorkflowArgument, DefinitionCache, Submitter } from './submit.js';
import { COST_DEFAULTS } from './cost/defaults.js';
import { WatchHub } from './watch/hub.js';
import type { WebSocketConstructor } from './watch/socket.js';
import type { WorkflowInput } from './workflow/builder-types.js';

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
  /** Watcher policies (the wait's deadline, socket, hold buffer, polls) over `DEFAULTS.cloud`. */
  watcher?: WatcherPolicyOptions | undefined;
  /** Extra or replacement raw status values (lowercase keys). @default JOB_STATUS_MAP */
  statusMap?: Readonly<Record<string, StatusMapping>> | undefined;
  /** Routes asked for outputs after a completion learned by polling. @default DEFAULTS.cloud.outputRoutes */
  outputRoutes?: readonly string[] | undefined;
  /**
   * Routes of job control and listing, over `DEFAULTS.cloud.jobRoutes` (`{id}` is replaced by the
   * prompt id); `cancel: false` skips the cancel route, for servers without it.
   * @default DEFAULTS.cloud.jobRoutes
   */
  jobRoutes?: Partial<JobRoutes> | undefined;
  /** Credits per US dollar, for `estimateCost()`'s `credits`. @default DEFAULTS.cost.creditsPerUsd */
  creditsPerUsd?: number | undefined;
}

const STATUS_ENTRY = rule.object({ status: rule.oneOf(JOB_STATUSES), terminal: rule.boolean });
const CLOUD_CLIENT_RULES: OptionRules = Object.freeze({
  ...CLIENT_RULES,
  apiKey: credentialRule,
  WebSocket: rule.callback,
  runtime: rule.oneOf(['cloud', 'local', 'auto']),
  clientId: rule.string,
  watcher: rule.object(WATCHER_RULES),
  creditsPerUsd: (check, path, value) => {
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) check.fail(path, 'a finite number of credits per US dollar, above 0', value);
  },
  statusMap: rule.record(STATUS_ENTRY, 'an object of raw status values to { status, terminal }'),
  jobRoutes: rule.object({ cancel: route(true, true), jobs: route(false), job: route(true), queue: route(false), interrupt: route(false) }),
  outputRoutes: (check, path, value) => {
    if (value === undefined) return;
    if (!Array.isArray(value) || value.length === 0) return check.fail(path, 'a non-empty list of routes such as "/api/jobs/{id}"', value);
    value.forEach((item, i) => checkRoute(check, `${path}[${i}]`, item, true));
  },
});

/** A route of `jobRoutes`: a path, holding `{id}` when `withId`; `false` too when `orFalse`. */
function route(withId: boolean, orFalse = false): Rule {
  return (check, path, value) => {
    if (value !== undefined && !(orFalse && value === false)) checkRoute(check, path, value, withId);
  };
}

/** Records a route that is not a path starting with `/` (or, `withId`, holding `{id}`). */
function checkRoute(check: Checker, path: string, value: unknown, withId: boolean): void {
  const what = withId ? 'a route starting with "/" that holds "{id}"' : 'a route starting with "/"';
  if (typeof value !== 'string' || !value.startsWith('/') || (withId && !value.includes('{id}'))) check.fail(path, what, value);
}

// What each client's runWorkflow() runs over, for prepareRun() outside the client (the queue
// prepares a run when it is added): read with runParts(), never on the client's own surface.
const PARTS = new WeakMap<CloudClient, RunParts>();

/**
 * The parts a client's `runWorkflow()` runs over (its node definitions, files, submitter...), for
 * `prepareRun()` and `uploadRun()` in the queue, which prepares runs as `runWorkflow()` does. Not in the main entry.
 *
 * @example
 * ```ts
 * const prepared = await prepareRun(runParts(cloud), spec.workflow, uploads, { validate: false }, { signal }, 'queue.add()');
 * const workflow = await uploadRun(runParts(cloud).files, prepared, { signal });
 * ```
 */
export function runParts(cloud: CloudClient): RunParts {
  return PARTS.get(cloud) as RunParts;
}

/**
 * Client of the cloud execution API, also able to drive a local runtime. Resources: `nodes`
 * (node definitions), `files` (uploads, outputs), `jobs` (submit, status, outputs, watch); and
 * `runWorkflow()`, which does all of it, with one shared WebSocket for every watched job.
 *
 * @example
 * ```ts
 * import { CloudClient } from 'graphcloud';
 * await using cloud = new CloudClient({ baseUrl: 'https://cloud.example.com', apiKey });
 * const result = await cloud.runWorkflow(workflow, { uploads: { '10.image': './photo.png' } });
 * ```
 */
export class CloudClient {
  /** The API's base URL without its trailing slashes (a path such as `/api/graphcloud` resolved against the page). */
  readonly baseUrl: string;
  /** The socket `clientId`, sent as `client_id` with every submission. */
  readonly clientId: string;
  /** Node definitions: `list()`, `get()`. */
  readonly nodes: NodeDefinitionsResource;
  /** Files: `upload()`, `uploadMask()`, `get()`, `getResponse()`, `saveOutputs()`. */
  readonly files: FilesResource;
  /** Jobs: `submit()`, `get()`, `list()`, `listAll()`, `getQueue()`, `cancel()`, `interruptAll()`, `getStatus()`, `getOutputs()`, `watch()`, `stats()`. */
  readonly jobs: JobsResource;
  /** What `runWorkflow()` runs over: the transport, the resources, the watch hub and the submitter. */
  readonly #run: RunParts;

  constructor(options: CloudClientOptions) {
    const check = new Checker();
    if (options === undefined) check.fail('options', 'an options object with at least baseUrl', options);
    else if (checkOptions(check, 'options', options, CLOUD_CLIENT_RULES)) {
      if (options.baseUrl === undefined) check.fail('options.baseUrl', 'an absolute http(s) URL such as https://api.example.com', undefined);
      if (options.runtime === 'cloud' && options.apiKey === undefined) check.fail('options.apiKey', 'the platform API key (required by the cloud)', undefined);
    }
    const policy = resolvePolicy(isPlainObject(options?.watcher) ? options.watcher : undefined, check);
    check.throwIfInvalid('new CloudClient()');
    const { apiKey, WebSocket, runtime = 'auto', clientId, watcher: _watcher, statusMap, outputRoutes, jobRoutes, creditsPerUsd, ...core } = options;
    // A path (a relay on the page's own server) was checked above to resolve in this page.
    const origin = new URL(resolveBaseUrl(core.baseUrl) ?? core.baseUrl).origin;
    const http = new HttpClient({
      ...core,
      auth: apiKey === undefined ? undefined : { scheme: 'api-key', credential: apiKey },
      // The cloud's 429 means "subscription inactive": retrying never helps.
      isRetryableStatus: (status) => status === 408 || status >= 500,
      mapError: (error) => mapCloudError(error, origin),
      clientName: 'CloudClient',
    });
    this.baseUrl = http.baseUrl;
    this.clientId = clientId ?? globalThis.crypto.randomUUID();
    const tokens = new RelayTokens();
    const routes = { ...CLOUD_DEFAULTS.jobRoutes, ...defined(jobRoutes) };
    const reader = new JobReader({ http, runtime, statusMap, outputRoutes: outputRoutes ?? CLOUD_DEFAULTS.outputRoutes, tokens, routes });
    const hub = new WatchHub({ http, clientId: this.clientId, WebSocket, reader, policy, tokens, creditsPerUsd: creditsPerUsd ?? COST_DEFAULTS.creditsPerUsd });
    const definitions = new DefinitionCache(http);
    const submitter = new Submitter({ http, clientId: this.clientId, reader, definitions, tokens, creditsPerUsd });
    this.nodes = new NodeDefinitionsResource(http, definitions);
    this.files = new FilesResource(http, tokens);
    this.jobs = new JobsResource({ http, reader, hub, submitter, routes, tokens });
    this.#run = { http, definitions, files: this.files, jobs: this.jobs, hub, submitter };
    PARTS.set(this, this.#run);
  }

  /**
   * Uploads inputs, checks the workflow, submits it once the socket is open, watches it, and
   * resolves with the result (and the output bytes with `download: true`).
   *
   * @throws {@link InvalidWorkflowError} the check against the node definitions failed; nothing was sent.
   * @throws {@link JobFailedError} the run failed or was cancelled (`error.result` keeps everything known).
   * @throws {@link TimeoutError} `waitTimeout` passed; the job was cancelled (`cancelOnAbort`, on by default) and `error.submitted` names it.
   * @example
   * ```ts
   * const { outputs } = await cloud.runWorkflow(workflow, { uploads: { '10.image': './in.png' }, onProgress: (p) => console.log(p.value) });
   * ```
   */
  async runWorkflow(workflow: WorkflowInput, options?: RunWorkflowOptions): Promise<RunResult> {
    return runWorkflow(this.#run, workflow, options);
  }

  /**
   * What a workflow will cost before it is sent, from the price badges of its partner-API nodes
   * (docs/cost.md): the workflow is made ready as `runWorkflow()` makes it (converted, `inputs`
   * placed, checked with `validate`). A node whose price cannot be counted is in `unpriced`.
   *
   * @throws {@link InvalidWorkflowError} the check against the node definitions failed.
   * @example
   * ```ts
   * const estimate = await cloud.estimateCost(workflow, { inputs: { 'Video.duration': 10 } });
   * console.log(estimate.usd.max, estimate.credits.max, estimate.unpriced);
   * ```
   */
  async estimateCost(workflow: WorkflowInput, options?: EstimateCostOptions): Promise<CostEstimate> {
    return estimateCost(this.#run, workflow, options);
  }

  /**
   * Checks a workflow against the server's node definitions (fetched once per client, then
   * reused; see `validateWorkflow()` for what is checked). Returns every issue, empty when none.
   *
   * @example
   * ```ts
   * for (const issue of await cloud.validateWorkflow(workflow)) console.log(issue.nodeId, issue.message);
   * ```
   */
  async validateWorkflow(workflow: WorkflowInput, options?: RequestOptions): Promise<WorkflowIssue[]> {
    const check = new Checker();
    checkWorkflowArgument(check, workflow);
    checkOptions(check, 'options', options, REQUEST_RULES);
    check.throwIfInvalid('cloud.validateWorkflow()');
    this.#run.http.throwIfClosed();
    // A file saved from the web UI is one issue (with the way to convert it), not one per key.
    if (isUiWorkflow(workflow)) return validateWorkflow(workflow as unknown as Workflow, {});
    return this.#run.definitions.check(await this.#run.definitions.convert(workflow, options ?? {}, 'cloud.validateWorkflow()'), options);
  }

  /**
   * Closes the client: every wait rejects (`WatcherClosedError`, naming its job, which goes on
   * running), the socket closes, timers are cleared, requests in flight are aborted (a submission
   * already sent is let finish), and later calls reject with `ClientClosedError`.
   *
   * @example
   * ```ts
   * await cloud.close();
   * ```
   */
  async close(): Promise<void> {
    this.#run.http.close();
  }

  /**
   * Calls `close()`: `await using cloud = new CloudClient(...)` closes it at the end of the block.
   *
   * @example
   * ```ts
   * { await using cloud = new CloudClient({ baseUrl, apiKey }); await cloud.runWorkflow(workflow); }
   * ```
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Shows the base URL only: no credential, no internals. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `CloudClient { baseUrl: '${redactUrl(this.baseUrl)}' }`;
  }
}


// The cloud's types, as `CloudClient.<Name>`: types only, nothing at run time (the openai-node
// pattern; it keeps the main entry short and names like `Node` out of the user's scope).
/**
 * The types of the cloud client.
 *
 * @example
 * ```ts
 * const options: CloudClient.RunWorkflowOptions = { uploads: { 'Load Image.image': './in.png' }, waitTimeout: 600_000 };
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace CloudClient {
  /** Options of `new CloudClient()`. */
  export type Options = CloudClientOptions;
  /** Options of `cloud.runWorkflow()`: uploads and inputs by address, the wait, the callbacks. */
  export type RunWorkflowOptions = import('./run-workflow.js').RunWorkflowOptions;
  /** One upload of `runWorkflow({ uploads })`: a file, or a file with its upload options. */
  export type UploadSpec = import('./run-workflow.js').UploadSpec;
  /** Options of `cloud.jobs.submit()`. */
  export type SubmitJobOptions = import('./submit.js').SubmitJobOptions;
  /** Options of `cloud.estimateCost()`: the run's inputs and `validate`. */
  export type EstimateCostOptions = import('./estimate-cost.js').EstimateCostOptions;
  /** What a workflow will cost: the total, each priced node, the nodes left unpriced. */
  export type CostEstimate = import('./shared/cost-types.js').CostEstimate;
  /** A price as a range, in US dollars or credits. */
  export type CostRange = import('./shared/cost-types.js').CostRange;
  /** One priced partner node of an estimate. */
  export type PricedNode = import('./shared/cost-types.js').PricedNode;
  /** A partner node an estimate could not price, and why. */
  export type UnpricedNode = import('./shared/cost-types.js').UnpricedNode;
  /** A budget (`maxCost`): the most a run may cost, in US dollars. */
  export type CostLimit = import('./shared/cost-types.js').CostLimit;
  /** Filters, sort and paging of `cloud.jobs.list()` and `listAll()`. */
  export type ListJobsParams = import('./shared/job-types.js').ListJobsParams;
  /** One job of a listing. */
  export type JobSummary = import('./shared/job-types.js').JobSummary;
  /** One job with its outputs, error and timings (`cloud.jobs.get()`). */
  export type JobDetail = import('./shared/job-types.js').JobDetail;
  /** One page of `cloud.jobs.list()`. */
  export type JobPage = import('./shared/job-types.js').JobPage;
  /** The server's queue, with each job's position (`cloud.jobs.getQueue()`). */
  export type JobQueue = import('./shared/job-types.js').JobQueue;
  /** One job of the queue. */
  export type QueueItem = import('./shared/job-types.js').QueueItem;
  /** What `cloud.jobs.cancel()` did: whether the job was cancelled, how, and why not. */
  export type CancelResult = import('./shared/job-types.js').CancelResult;
  /** The job-control routes the client assumes (`jobRoutes` option). */
  export type JobRoutes = import('./shared/job-types.js').JobRoutes;
  /** A workflow as the web UI saves it (the UI format). */
  export type UiWorkflow = import('./workflow/index.js').UiWorkflow;
  /** Options of `toApiWorkflow()`. */
  export type ToApiWorkflowOptions = import('./workflow/index.js').ToApiWorkflowOptions;
  /** An input address resolved to its node and input. */
  export type ResolvedAddress = import('./workflow/index.js').ResolvedAddress;
  /** A node an ambiguous or unknown address could have meant. */
  export type AddressCandidate = import('./workflow/index.js').AddressCandidate;
  /** Why a UI-format workflow could not be converted. */
  export type WorkflowConversionCode = import('./workflow/index.js').WorkflowConversionCode;
  /** What a value is as a workflow: API format, UI format, or neither. */
  export type WorkflowFormat = import('./workflow/index.js').WorkflowFormat;
  /** Options of `cloud.jobs.watch()`. */
  export type WatchOptions = import('./jobs.js').WatchOptions;
  /** `cloud.jobs.watch()`'s own options: a relay token, the job's workflow. */
  export type JobWatchOptions = import('./jobs.js').JobWatchOptions;
  /** Options of `cloud.files.upload()`. */
  export type UploadOptions = import('./files.js').UploadOptions;
  /** Options of `cloud.files.uploadMask()`. */
  export type UploadMaskOptions = import('./files.js').UploadMaskOptions;
  /** Options of `cloud.files.get()`, `getResponse()` and `url()`. */
  export type GetFileOptions = import('./files.js').GetFileOptions;
  /** Options of `cloud.files.saveOutputs()`. */
  export type SaveOutputsOptions = import('./save-outputs.js').SaveOutputsOptions;
  /** One file `cloud.files.saveOutputs()` wrote. */
  export type SavedOutput = import('./save-outputs.js').SavedOutput;
  /** What `cloud.files.saveOutputs()` saves: a run result, a job, or its outputs. */
  export type OutputsSource = import('./save-outputs.js').OutputsSource;
  /** One node of an API-format workflow. */
  export type WorkflowNode = import('./shared/types.js').WorkflowNode;
  /** The documented job statuses. */
  export type JobStatus = import('./shared/types.js').JobStatus;
  /** A job status as `cloud.jobs.getStatus()` reads it. */
  export type JobStatusInfo = import('./shared/types.js').JobStatusInfo;
  /** The answer to a submission: the prompt id and what the server said. */
  export type SubmitResult = import('./shared/types.js').SubmitResult;
  /** A stored file, as uploads return it and outputs reference it. */
  export type FileRef = import('./shared/types.js').FileRef;
  /** What an upload returns (always use its `name`). */
  export type UploadResult = import('./shared/types.js').UploadResult;
  /** The output of one node, as the server sent it. */
  export type NodeOutput = import('./shared/types.js').NodeOutput;
  /** A downloaded output file (`runWorkflow({ download: true })`). */
  export type OutputFile = import('./shared/types.js').OutputFile;
  /** A file reference found in a job's outputs (`listOutputFiles()`). */
  export type OutputFileRef = import('./shared/types.js').OutputFileRef;
  /** Why a run failed. */
  export type JobErrorInfo = import('./shared/types.js').JobErrorInfo;
  /** The server's errors of one node. */
  export type NodeErrors = import('./shared/types.js').NodeErrors;
  /** The node definitions of a server (`cloud.nodes.list()`). */
  export type ObjectInfo = import('./workflow/validate.js').ObjectInfo;
  /** One node type's definition. */
  export type NodeDefinition = import('./workflow/validate.js').NodeDefinition;
  /** One input's definition: `[type]` or `[type, options]`. */
  export type InputSpec = import('./workflow/validate.js').InputSpec;
  /** One problem `validateWorkflow()` found. */
  export type WorkflowIssue = import('./shared/types.js').WorkflowIssue;
  /** How a raw status value reads (`statusMap` option). */
  export type StatusMapping = import('./shared/status.js').StatusMapping;
  /** The watcher policies (`watcher` option): socket, hold, poll. */
  export type WatcherPolicyOptions = import('./shared/defaults.js').WatcherPolicyOptions;
  /** A watched job: events, `for await`, `result()`. */
  export type JobWatcher = import('./watch/job-watcher.js').JobWatcher;
  /** The data of each watcher event, by event name. */
  export type WatchEventMap = import('./watch/events.js').WatchEventMap;
  /** How far along a whole job is (`job_progress`, `watcher.progress`, `onProgress`'s second argument). */
  export type JobProgress = import('./watch/events.js').JobProgress;
  /** Counters of the shared socket (`cloud.jobs.stats()`). */
  export type WatcherStats = import('./watch/events.js').WatcherStats;
  /** A WebSocket constructor, for runtimes without a global one. */
  export type WebSocketConstructor = import('./watch/socket.js').WebSocketConstructor;
}
