// cloud.jobs: submit, read, list, watch, and stopping jobs, all of it: the routes, and how the
// watchers of a cancelled job settle. The newest servers cancel one job with
// `POST /api/jobs/{id}/cancel`; the others take two calls: remove it from the queue when pending,
// interrupt it when running. The cloud's interrupt stops every running job of the user, so it is
// never sent for one job; it is `interruptAll()`, called by name
// (docs/wire-protocol.md#cloud-job-control-listing-and-queue).
import { ApiError, assertOptions, Checker, checkOptions, NotFoundError, REQUEST_RULES, rule, waitRules, type HttpClient, type OptionRules, type RequestOptions, type WaitOptions } from '../core/index.js';
import { POLL_FLOOR_MS } from './shared/defaults.js';
import type { JobReader } from './shared/job-reader.js';
import { JOB_STATUSES } from './shared/status.js';
import { CancelSchema, QueueDeleteSchema, type RelayTokens } from './shared/wire.js';
import type { CancelResult, JobDetail, JobPage, JobQueue, JobRoutes, JobSummary, ListJobsParams } from './shared/job-types.js';
import type { JobStatusInfo, NodeOutput, SubmitResult, Workflow } from './shared/types.js';
import { checkWorkflowArgument, SUBMIT_RULES, type SubmitJobOptions, type Submitter } from './submit.js';
import type { WatcherStats } from './watch/events.js';
import type { WatchHub } from './watch/hub.js';
import type { JobWatcher } from './watch/job-watcher.js';
import { outputNodesOf } from './workflow/addresses.js';
import type { WorkflowInput } from './workflow/builder-types.js';

/**
 * Options of `cloud.jobs.watch()`: the wait's signal and deadline, and the poll backoff used
 * while the socket is down.
 *
 * @example
 * ```ts
 * cloud.jobs.watch(promptId, { waitTimeout: 600_000, signal: AbortSignal.timeout(900_000) });
 * ```
 */
export interface WatchOptions extends WaitOptions {
  /**
   * Delays between status reads while the socket is down (and after a failed read), over the
   * client's `watcher.poll`; the first watcher of a job sets them for that job.
   * @default DEFAULTS.cloud.poll
   */
  poll?: WaitOptions['poll'];
  /**
   * Deadline of the wait in ms, or `false` for none; `result()` then rejects with a
   * `TimeoutError` whose `submitted` names the job.
   * @default 3_600_000 (`DEFAULTS.cloud.waitTimeout`)
   */
  waitTimeout?: number | false | undefined;
}

/** Rules of `jobs.watch()` options. */
export const WATCH_RULES: OptionRules = Object.freeze(waitRules(POLL_FLOOR_MS));
const JOB_WATCH_RULES: OptionRules = Object.freeze({
  ...WATCH_RULES,
  relayToken: rule.string,
  workflow: rule.record(rule.any, 'an API-format workflow (an object of nodes by id)'),
});

/**
 * Options of `cloud.jobs.watch()` beside `WatchOptions`.
 *
 * @example
 * ```ts
 * cloud.jobs.watch(promptId, { workflow: (await cloud.jobs.get(promptId))?.workflow });
 * ```
 */
export interface JobWatchOptions {
  /** The job's token from a relay (docs/browser.md). */
  relayToken?: string | undefined;
  /** The job's workflow (API format), when known: `watcher.progress` then counts its nodes. */
  workflow?: Workflow | undefined;
}

const NOT_CANCELLED = (reason: CancelResult['reason']): CancelResult => ({ cancelled: false, via: undefined, reason });

const LIST_RULES: OptionRules = Object.freeze({
  status: (check, path, value) => {
    if (Array.isArray(value)) value.forEach((item, i) => check.oneOf(`${path}[${i}]`, item, JOB_STATUSES));
    else check.oneOf(path, value, JOB_STATUSES);
  },
  sortBy: rule.oneOf(['createdAt', 'executionTime']),
  sortOrder: rule.oneOf(['asc', 'desc']),
  offset: (check, path, value) => check.integer(path, value, { min: 0 }),
  limit: (check, path, value) => check.integer(path, value, { min: 1, max: 1000 }),
  outputType: rule.oneOf(['image', 'video', 'audio']),
});

/**
 * Jobs: `cloud.jobs`. Submit a workflow, read, list, watch and cancel jobs, read the queue.
 *
 * @example
 * ```ts
 * const { promptId } = await cloud.jobs.submit(workflow);
 * const { status, outputs } = await cloud.jobs.watch(promptId).result();
 * ```
 */
export class JobsResource {
  readonly #deps: ConstructorParameters<typeof JobsResource>[0];
  /** Whether this server has the cancel route, once a cancel found out. */
  #cancelRoute: 'unknown' | 'present' | 'missing' = 'unknown';

  /**
   * @internal Built by `CloudClient` (use `cloud.jobs`) on the client's transport, its one job
   * reader, its watch hub, its submitter, the job routes and the relay's job tokens.
   */
  constructor(deps: { http: HttpClient; reader: JobReader; hub: WatchHub; routes: Readonly<JobRoutes>; submitter: Submitter; tokens: RelayTokens }) {
    this.#deps = deps;
  }

  /**
   * Submits a workflow (`POST /api/prompt`, never retried). A workflow saved from the web UI is
   * converted first (`toApiWorkflow`, with the node definitions fetched once per client); then it
   * is checked against the definitions (`validate`). On a local runtime the client chooses the
   * prompt id, so a lost answer can be looked up. Prefer `cloud.runWorkflow()`, which opens the
   * socket first so no message of a fast run is missed.
   *
   * @throws `WorkflowConversionError` a UI-format workflow could not be converted; nothing was sent.
   * @throws `InvalidWorkflowError` the check found problems; nothing was sent.
   * @throws `WorkflowValidationError` the server rejected the workflow (400 with `node_errors`).
   * @throws `WorkflowError` a 200 answer carrying `error`.
   * @throws `InsufficientCreditsError` 402. @throws `SubscriptionInactiveError` 429.
   * @throws `SubmissionUnknownError` no answer arrived: the job may exist (`promptId` names it on a local runtime); it is never resubmitted.
   * @example
   * ```ts
   * const { promptId } = await cloud.jobs.submit(JSON.parse(await readFile('saved-from-ui.json', 'utf8')));
   * ```
   */
  async submit(workflow: WorkflowInput, options?: SubmitJobOptions): Promise<SubmitResult> {
    const check = new Checker();
    checkWorkflowArgument(check, workflow);
    checkOptions(check, 'options', options, SUBMIT_RULES);
    check.throwIfInvalid('cloud.jobs.submit()');
    this.#deps.http.throwIfClosed();
    return this.#deps.submitter.submit(workflow, options, 'cloud.jobs.submit()');
  }

  /**
   * A job's status, mapped onto the documented values (`raw` keeps the server's). On a local
   * runtime, read from `/history/{id}`.
   *
   * @example
   * ```ts
   * const { status, terminal } = await cloud.jobs.getStatus(promptId);
   * ```
   */
  async getStatus(promptId: string, options?: RequestOptions): Promise<JobStatusInfo> {
    checkCall('cloud.jobs.getStatus()', promptId, options, REQUEST_RULES);
    return this.#deps.reader.status(promptId, options);
  }

  /**
   * A finished job's outputs from the server's history routes; `complete: false` when none
   * answered with them.
   *
   * @example
   * ```ts
   * const { outputs, complete } = await cloud.jobs.getOutputs(promptId);
   * ```
   */
  async getOutputs(promptId: string, options?: RequestOptions): Promise<{
    /** Outputs by node id, as the server recorded them; empty when no route answered with them. */
    outputs: Record<string, NodeOutput>;
    /** True when a history route answered with the job's outputs. */
    complete: boolean;
  }> {
    checkCall('cloud.jobs.getOutputs()', promptId, options, REQUEST_RULES);
    return this.#deps.reader.outputs(promptId, options);
  }

  /**
   * One job with its status, timings, error, outputs and workflow (`GET /api/jobs/{id}`), or
   * `undefined` when the server has no such job: after a `SubmissionUnknownError`, this tells
   * whether the submission arrived. A job removed from a local runtime's queue before it ran is
   * `undefined` too.
   *
   * @example
   * ```ts
   * const job = await cloud.jobs.get(promptId);
   * if (job) console.log(job.status, job.durationMs, Object.keys(job.outputs));
   * ```
   */
  async get(promptId: string, options?: RequestOptions): Promise<JobDetail | undefined> {
    checkCall('cloud.jobs.get()', promptId, options, REQUEST_RULES);
    return this.#deps.reader.get(promptId, this.#deps.tokens.withToken(promptId, options));
  }

  /**
   * One page of your jobs (`GET /api/jobs`), newest first unless `sortOrder` says otherwise. Times
   * are milliseconds since the epoch whatever the server writes.
   *
   * @throws `ValidationError` for an unknown filter or a bad value, before anything is sent.
   * @example
   * ```ts
   * const { jobs, hasMore } = await cloud.jobs.list({ status: 'failed', limit: 20 });
   * ```
   */
  async list(params?: ListJobsParams, options?: RequestOptions): Promise<JobPage> {
    checkList('cloud.jobs.list()', params, options);
    return this.#deps.reader.list(params ?? {}, options);
  }

  /**
   * Every job matching `params`, for `for await`: pages of `limit` jobs are fetched as the loop
   * reaches them, and a `break` fetches no more.
   *
   * @throws `ValidationError` at once, for an unknown filter or a bad value.
   * @example
   * ```ts
   * for await (const job of cloud.jobs.listAll({ status: ['pending', 'in_progress'] })) console.log(job.promptId, job.status);
   * ```
   */
  listAll(params?: ListJobsParams, options?: RequestOptions): AsyncIterable<JobSummary> {
    // Checked now, not when the loop starts: a bad filter fails where it was written.
    checkList('cloud.jobs.listAll()', params, options);
    return this.#deps.reader.listAll(params ?? {}, options);
  }

  /**
   * The queue (`GET /api/queue`): the running jobs, and the pending ones in the order they will
   * run, each with its `position` (1 runs next). The cloud lists only your own jobs.
   *
   * @example
   * ```ts
   * const { pending } = await cloud.jobs.getQueue();
   * console.log(pending.find((item) => item.promptId === promptId)?.position);
   * ```
   */
  async getQueue(options?: RequestOptions): Promise<JobQueue> {
    assertOptions('cloud.jobs.getQueue()', options, REQUEST_RULES);
    return this.#deps.reader.queue(options);
  }

  /**
   * Cancels one job: a pending job is removed from the queue, a running one interrupted. Uses
   * `POST /api/jobs/{id}/cancel` where the server has it; elsewhere it removes a pending job from
   * the queue and, on a local runtime, interrupts the running job by its id. On the cloud without
   * that route a running job cannot be stopped alone: `cancelled` is false with
   * `reason: 'running_not_cancellable'`, and nothing else is stopped (see `interruptAll()`).
   * A cancel asks; the job's own end decides: a runtime stops a run only between nodes, so a job
   * cancelled during its last node may still complete (and be paid). Watchers of the job settle
   * with what the job did, `cancelled` or `completed` with its outputs, and `cancelRequested: true`
   * (whatever the answer: the request was made).
   *
   * @example
   * ```ts
   * const { cancelled, via, reason } = await cloud.jobs.cancel(promptId);
   * ```
   */
  async cancel(promptId: string, options?: RequestOptions): Promise<CancelResult> {
    checkCall('cloud.jobs.cancel()', promptId, options, REQUEST_RULES);
    const { http, routes, tokens, reader } = this.#deps;
    // Noted before it is sent: the job may end while the request is on its way.
    reader.noteCancelRequested(promptId);
    // Through a relay, the job's token opens its cancel route (docs/browser.md).
    const scoped = tokens.withToken(promptId, options);
    if (routes.cancel !== false && this.#cancelRoute !== 'missing') {
      try {
        // Cancelling twice does no harm: a transient failure is retried like a read.
        const path = routes.cancel.replaceAll('{id}', encodeURIComponent(promptId));
        const answer = await http.request({ method: 'POST', path, schema: CancelSchema, idempotent: true, options: scoped });
        this.#cancelRoute = 'present';
        if (!answer.cancelled) return NOT_CANCELLED('ended_or_unknown');
        return this.#cancelled(promptId, 'cancel');
      } catch (error) {
        // A server without the route; an unknown job is `{cancelled: false}` where it exists.
        if (!(error instanceof NotFoundError || (error instanceof ApiError && error.status === 405))) throw error;
        this.#cancelRoute = 'missing';
      }
    }
    return this.#cancelInTwoCalls(promptId, scoped);
  }

  /**
   * Stops every running job (`POST /api/interrupt` without a body): on the cloud, **every running
   * job of your account**, whoever submitted it; on a local runtime, the job running now. Never
   * called implicitly; to stop one job, use `cancel()`.
   *
   * @example
   * ```ts
   * await cloud.jobs.interruptAll();
   * ```
   */
  async interruptAll(options?: RequestOptions): Promise<void> {
    assertOptions('cloud.jobs.interruptAll()', options, REQUEST_RULES);
    // Never retried: a second call could stop a job that started in between.
    await this.#deps.http.request({ method: 'POST', path: this.#deps.routes.interrupt, idempotent: false, options });
  }

  /**
   * Watches a job on the client's shared socket (opened lazily; polled when it cannot be). For a
   * job submitted through a relay by another client (before a page reload), pass its `relayToken`
   * (`SubmitResult.relayToken`): it opens the job's status, outputs and socket messages.
   *
   * @throws `ValidationError` for a bad id or option. @throws `ClientClosedError` after `close()`.
   * @example
   * ```ts
   * for await (const event of cloud.jobs.watch(promptId)) console.log(event.type);
   * ```
   */
  watch(promptId: string, options?: WatchOptions & JobWatchOptions): JobWatcher {
    checkCall('cloud.jobs.watch()', promptId, options, JOB_WATCH_RULES);
    const { relayToken, workflow, ...watch } = options ?? {};
    if (relayToken !== undefined) this.#deps.tokens.set(promptId, relayToken);
    return this.#deps.hub.watch(promptId, { ...watch, ...(workflow ? { nodes: Object.keys(workflow), outputNodes: outputNodesOf(workflow) } : {}) });
  }

  /**
   * Counters of the shared socket (frames received, ignored, held, dropped, connections, polls).
   *
   * @example
   * ```ts
   * console.log(cloud.jobs.stats());
   * ```
   */
  stats(): Readonly<WatcherStats> {
    return { ...this.#deps.hub.stats };
  }

  async #cancelInTwoCalls(promptId: string, options: RequestOptions | undefined): Promise<CancelResult> {
    const { http, reader, routes } = this.#deps;
    const runtime = await reader.detect(options);
    let queue = await reader.queue(options);
    if (has(queue.pending, promptId)) {
      const answer = await http.request({ method: 'POST', path: routes.queue, json: { delete: [promptId] }, schema: QueueDeleteSchema, idempotent: true, options });
      const deleted = answer?.deleted?.map(String);
      // The cloud names what it removed; a local runtime answers nothing, so look again.
      if (deleted?.includes(promptId) !== true) queue = await reader.queue(options);
      if (deleted?.includes(promptId) === true || (!has(queue.pending, promptId) && !has(queue.running, promptId))) return this.#cancelled(promptId, 'queue');
    }
    if (!has(queue.running, promptId)) return NOT_CANCELLED('ended_or_unknown');
    if (runtime === 'cloud') return NOT_CANCELLED('running_not_cancellable');
    // Only this job: a local runtime interrupts the job its body names if that one runs.
    await http.request({ method: 'POST', path: routes.interrupt, json: { prompt_id: promptId }, idempotent: true, options });
    return this.#cancelled(promptId, 'interrupt');
  }

  /**
   * The server took the cancel. It only asks: the job may still end otherwise (a runtime stops a
   * run between nodes, so one in its last node completes; a local runtime's queue may have run it
   * between two reads), so no watcher settles here (docs/wire-protocol.md#cloud-job-control-listing-and-queue).
   * A job taken out of a queue is noted (a watch that then finds it nowhere reads it as cancelled),
   * an interrupted one is not; either is read now, in case the socket misses its end.
   */
  #cancelled(promptId: string, via: NonNullable<CancelResult['via']>): CancelResult {
    // A job taken out of a queue never runs and leaves no record: found nowhere, it was cancelled.
    // An interrupted job was running: it reaches the history however it ended (in its last node,
    // completed), so its absence there is lag, never a cancel.
    if (via !== 'interrupt') this.#deps.reader.noteCancelled(promptId);
    this.#deps.hub.readNow(promptId);
    return { cancelled: true, via, reason: undefined };
  }
}

function has(items: JobQueue['pending'], promptId: string): boolean {
  return items.some((item) => item.promptId === promptId);
}

function checkCall(context: string, promptId: unknown, options: unknown, rules: OptionRules): void {
  const check = new Checker();
  check.id('promptId', promptId);
  checkOptions(check, 'options', options, rules);
  check.throwIfInvalid(context);
}

function checkList(context: string, params: unknown, options: unknown): void {
  const check = new Checker();
  checkOptions(check, 'params', params, LIST_RULES);
  checkOptions(check, 'options', options, REQUEST_RULES);
  check.throwIfInvalid(context);
}
