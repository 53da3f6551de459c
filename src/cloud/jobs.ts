import { Checker, checkOptions, ConnectionError, isPlainObject, redactUrl, REQUEST_RULES, scrubSecrets, rule, TimeoutError, ValidationError, waitRules, type HttpClient, type OptionRules, type RequestOptions, type Rule, type WaitOptions } from '../core/index.js';
import type { DefinitionCache } from './definitions.js';
import { POLL_FLOOR_MS } from './model/defaults.js';
import { InvalidWorkflowError, SubmissionUnknownError, WorkflowError } from './model/errors.js';
import type { JobReader } from './model/job-reader.js';
import { PromptResponseSchema, toNodeErrors } from './model/schemas.js';
import type { JobStatusInfo, NodeOutput, SubmitResult, Workflow } from './model/types.js';
import { checkWorkflowShape } from './model/validate-workflow.js';
import type { WatcherStats } from './watch/events.js';
import type { WatchHub } from './watch/hub.js';
import type { JobWatcher } from './watch/job-watcher.js';

/**
 * Options of `cloud.jobs.submit()`.
 *
 * @example
 * ```ts
 * await cloud.jobs.submit(workflow, { partnerApiKey: true, timeout: 30_000 });
 * ```
 */
export interface SubmitJobOptions extends RequestOptions {
  /**
   * Check the workflow against the server's node definitions (fetched once per client) before
   * sending it; problems reject with `InvalidWorkflowError` and nothing is sent.
   * @default true
   */
  validate?: boolean | undefined;
  /** Key for partner nodes (`extra_data.api_key_platform_org`); `true` reuses the client's key. */
  partnerApiKey?: boolean | string | undefined;
  /** Other `extra_data` fields. */
  extraData?: Record<string, unknown> | undefined;
}

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

const partnerKeyRule: Rule = (check, path, value) => {
  // The value is a secret: never echo it.
  if (value !== undefined && typeof value !== 'boolean' && (typeof value !== 'string' || value.trim() === '')) check.fail(path, 'true (reuse the client key), false, or a non-empty key string', typeof value);
};
const extraDataRule: Rule = (check, path, value) => {
  if (value !== undefined && !isPlainObject(value)) check.fail(path, 'an object of extra_data fields', value);
};

/** Rules of the options `jobs.submit()` shares with `runWorkflow()`. */
export const SUBMIT_RULES: OptionRules = Object.freeze({ ...REQUEST_RULES, validate: rule.boolean, partnerApiKey: partnerKeyRule, extraData: extraDataRule });
/** Rules of `jobs.watch()` options. */
export const WATCH_RULES: OptionRules = Object.freeze(waitRules(POLL_FLOOR_MS));

/**
 * What the jobs resource is built on.
 *
 * @example
 * ```ts
 * new JobsResource({ http, clientId, reader, hub, definitions });
 * ```
 */
export interface JobsDeps {
  http: HttpClient;
  clientId: string;
  reader: JobReader;
  hub: WatchHub;
  definitions: DefinitionCache;
}

/**
 * Jobs: `cloud.jobs`. Submit a workflow, read a job's status and outputs, watch it.
 *
 * @example
 * ```ts
 * const { promptId } = await cloud.jobs.submit(workflow);
 * const { status, outputs } = await cloud.jobs.watch(promptId).result();
 * ```
 */
export class JobsResource {
  readonly #deps: JobsDeps;

  /** @internal Built by `CloudClient` (use `cloud.jobs`). */
  constructor(deps: JobsDeps) {
    this.#deps = deps;
  }

  /**
   * Submits a workflow (`POST /api/prompt`, never retried), after checking it against the node
   * definitions (`validate`). Prefer `cloud.runWorkflow()`, which opens the socket first so no
   * message of a fast run is missed.
   *
   * @throws {InvalidWorkflowError} the check found problems; nothing was sent.
   * @throws {WorkflowValidationError} the server rejected the workflow (400 with `node_errors`).
   * @throws {WorkflowError} a 200 answer carrying `error`.
   * @throws {InsufficientCreditsError} 402. @throws {SubscriptionInactiveError} 429.
   * @throws {SubmissionUnknownError} no answer arrived: the job may exist; it is never resubmitted.
   * @example
   * ```ts
   * const { promptId } = await cloud.jobs.submit(workflow, { partnerApiKey: true });
   * ```
   */
  async submit(workflow: Workflow, options?: SubmitJobOptions): Promise<SubmitResult> {
    const check = new Checker();
    checkWorkflowShape(check, workflow);
    checkOptions(check, 'options', options, SUBMIT_RULES);
    check.throwIfInvalid('cloud.jobs.submit()');
    const { http, clientId, definitions } = this.#deps;
    http.throwIfClosed();
    const { validate = true, partnerApiKey, extraData, ...request } = options ?? {};
    if (validate) {
      const issues = await definitions.check(workflow, request);
      if (issues.length > 0) throw new InvalidWorkflowError(issues, 'cloud.jobs.submit()');
    }
    const extra: Record<string, unknown> = { ...extraData };
    if (partnerApiKey === true) extra.api_key_platform_org = await this.#clientKey();
    else if (typeof partnerApiKey === 'string') extra.api_key_platform_org = partnerApiKey;
    const json = { prompt: workflow, client_id: clientId, ...(Object.keys(extra).length > 0 ? { extra_data: extra } : {}) };
    // Every credential this request carries is scrubbed from whatever the server echoes.
    const secrets = [typeof extra.api_key_platform_org === 'string' ? extra.api_key_platform_org : '', (await http.credential()) ?? ''];
    // finishOnClose: once sent, a submission's answer names the job; close() must not lose it.
    const answer = await http.request({ method: 'POST', path: '/api/prompt', json, schema: PromptResponseSchema, secrets, finishOnClose: true, options: request }).catch((error: unknown) => {
      // A refused connection sent nothing: the ConnectionError says it is safe to submit again.
      if (error instanceof ConnectionError && error.notSent) throw error;
      // Otherwise the request may have reached the server: say so, since a blind retry would run (and bill) the job twice.
      if (error instanceof ConnectionError || error instanceof TimeoutError) throw new SubmissionUnknownError(redactUrl(`${http.baseUrl}/api/prompt`), error);
      throw error;
    });
    const nodeErrors = toNodeErrors(answer.node_errors);
    if (answer.error || !answer.prompt_id) {
      const body = scrubSecrets(answer, secrets);
      const error = body.error;
      const message = typeof error === 'string' ? error : (error?.message ?? 'the server returned no prompt_id');
      throw new WorkflowError(message, typeof error === 'object' && error ? (error.type ?? undefined) : undefined, toNodeErrors(body.node_errors), body, body.prompt_id ?? undefined);
    }
    return { promptId: answer.prompt_id, number: answer.number ?? undefined, nodeErrors };
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
  async getOutputs(promptId: string, options?: RequestOptions): Promise<{ outputs: Record<string, NodeOutput>; complete: boolean }> {
    checkCall('cloud.jobs.getOutputs()', promptId, options, REQUEST_RULES);
    return this.#deps.reader.outputs(promptId, options);
  }

  /**
   * Watches a job on the client's shared socket (opened lazily; polled when it cannot be).
   *
   * @throws {ValidationError} for a bad id or option. @throws {ClientClosedError} after `close()`.
   * @example
   * ```ts
   * for await (const event of cloud.jobs.watch(promptId)) console.log(event.type);
   * ```
   */
  watch(promptId: string, options?: WatchOptions): JobWatcher {
    checkCall('cloud.jobs.watch()', promptId, options, WATCH_RULES);
    return this.#deps.hub.watch(promptId, options ?? {});
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

  async #clientKey(): Promise<string> {
    const key = await this.#deps.http.credential();
    if (key) return key;
    throw new ValidationError([{ path: 'options.partnerApiKey', rule: "a key string: true reuses the client's apiKey, and this client has none", received: true }], 'cloud.jobs.submit()');
  }
}

function checkCall(context: string, promptId: unknown, options: unknown, rules: OptionRules): void {
  const check = new Checker();
  check.id('promptId', promptId);
  checkOptions(check, 'options', options, rules);
  check.throwIfInvalid(context);
}
