import { ApiError, BadRequestError, ConnectionError, GraphcloudError, isPlainObject, PaymentRequiredError, ValidationError, type ApiErrorInit, type ValidationIssue } from '../../core/index.js';
import type { CostEstimate, CostLimit } from './cost-types.js';
import type { JobResult, NodeErrorDetail, NodeErrors, Workflow, WorkflowIssue } from './types.js';
import { toNodeErrors } from './wire.js';

/**
 * Rebuilds the init of an existing `ApiError` so it can be re-thrown as a more precise class.
 *
 * @example
 * ```ts
 * throw new InsufficientCreditsError(initOf(apiError));
 * ```
 */
export function initOf(error: ApiError): ApiErrorInit {
  return { status: error.status, method: error.method, url: error.url, body: error.body, requestId: error.requestId, retryAfterMs: error.retryAfterMs };
}

/**
 * The server rejected the workflow (`400 {error: {type, ...}, node_errors}`); nothing runs.
 * `type` is the server's `error.type` (`prompt_outputs_failed_validation`, `missing_node_type`...),
 * `nodeErrors` lists each node's errors.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof WorkflowValidationError) for (const [id, n] of Object.entries(e.nodeErrors)) console.log(id, n.errors); }
 * ```
 */
export class WorkflowValidationError extends BadRequestError {
  /** `'WorkflowValidationError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'WorkflowValidationError';
  /** The server's `error.type` (`prompt_outputs_failed_validation`, `missing_node_type`, `prompt_no_outputs`...); the same as `code`. */
  readonly type: string | undefined;
  /** Each rejected node's errors, by node id; empty when the server named none. */
  readonly nodeErrors: Record<string, NodeErrors>;

  /** `workflow` (the one sent) gives each node's title to the message. */
  constructor(init: ApiErrorInit, nodeErrors: Record<string, NodeErrors>, workflow?: Workflow) {
    super(init);
    this.type = this.code;
    this.nodeErrors = nodeErrors;
    // The server's details (which input, which value, the allowed ones), not only its summary.
    const lines = describeNodeErrors(nodeErrors, workflow);
    const shown = lines.length > 0 ? lines : [topLevelDetails(init.body)].filter((line) => line !== undefined);
    if (shown.length > 0) this.message += `\n${shown.map((line) => `  - ${line}`).join('\n')}`;
  }
}

/**
 * A `200` answer to a submission that carries `error` (and maybe no `prompt_id`).
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof WorkflowError) console.log(e.type, e.body); }
 * ```
 */
export class WorkflowError extends GraphcloudError {
  /** `'WorkflowError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'WorkflowError';
  /** The server's `error.type`, when `error` was an object with one. */
  readonly type: string | undefined;
  /** The answer's `node_errors` by node id; empty when it named none. */
  readonly nodeErrors: Record<string, NodeErrors>;
  /** The whole answer body, as the server sent it. */
  readonly body: unknown;
  /** Set when the server also returned a `prompt_id`: the job may still run. */
  readonly promptId: string | undefined;

  constructor(message: string, type: string | undefined, nodeErrors: Record<string, NodeErrors>, body: unknown, promptId?: string) {
    super(`Workflow rejected: ${message}${promptId ? ` (prompt_id ${promptId} was returned too)` : ''}`);
    this.type = type;
    this.promptId = promptId;
    this.nodeErrors = nodeErrors;
    this.body = body;
  }
}

/**
 * `402`: the account has no credits left. Never retried.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof InsufficientCreditsError) notifyBilling(); }
 * ```
 */
export class InsufficientCreditsError extends PaymentRequiredError {
  /** `'InsufficientCreditsError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'InsufficientCreditsError';
}

/**
 * The cloud's `429`: the subscription is inactive. Not a rate limit; retrying does not help, so
 * the client never retries it.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof SubscriptionInactiveError) console.log('renew the subscription'); }
 * ```
 */
export class SubscriptionInactiveError extends ApiError {
  /** `'SubscriptionInactiveError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'SubscriptionInactiveError';
}

/**
 * Checking the workflow against the node definitions (`validate`, on by default) found problems
 * before anything was sent: nothing was uploaded, submitted or paid for. `workflowIssues` keeps
 * the node-level detail; `issues` is the generic list of `ValidationError`.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof InvalidWorkflowError) console.table(e.workflowIssues); }
 * ```
 */
export class InvalidWorkflowError extends ValidationError {
  /** `'InvalidWorkflowError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'InvalidWorkflowError';
  /** Every problem found, node by node (at least one). */
  readonly workflowIssues: WorkflowIssue[];

  constructor(workflowIssues: WorkflowIssue[], context = 'cloud.runWorkflow()') {
    const issues: ValidationIssue[] = workflowIssues.map((i) => ({ path: i.input ? `${i.nodeId}.inputs.${i.input}` : i.nodeId, rule: i.message, received: i.received }));
    super(issues, context);
    this.workflowIssues = workflowIssues;
  }
}

/**
 * `runWorkflow()` ended with a failed or cancelled run. `result` keeps everything known,
 * including the outputs of the nodes that did run.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof JobFailedError) console.log(e.promptId, e.result.error?.message); }
 * ```
 */
export class JobFailedError extends GraphcloudError {
  /** `'JobFailedError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'JobFailedError';
  /** The job's id. */
  readonly promptId: string;
  /** How the run ended. */
  readonly status: 'failed' | 'cancelled';
  /** Everything known about the run: `error` (why, when known) and the outputs of the nodes that did run. */
  readonly result: JobResult;

  constructor(result: JobResult & { status: 'failed' | 'cancelled' }) {
    const reason = result.error?.message ? `: ${result.error.message}` : '';
    super(`Job ${result.promptId} ${result.status === 'failed' ? 'failed' : 'was cancelled'}${reason}`);
    this.promptId = result.promptId;
    this.status = result.status;
    this.result = result;
  }
}

/**
 * The submission's answer never arrived (the connection broke, or the request timed out after it
 * was sent): the job may exist and run, and be billed. The SDK never resubmits; check the queue
 * (or wait for the job's messages) before submitting again. `cause` is the underlying
 * `ConnectionError` or `TimeoutError`.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof SubmissionUnknownError) console.warn('the job may be running; not resubmitting'); }
 * ```
 */
export class SubmissionUnknownError extends ConnectionError {
  /** `'SubmissionUnknownError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'SubmissionUnknownError';
  /**
   * The prompt id the client chose and sent, when it sent one (never to a server known to be the
   * cloud, which assigns its own). A local runtime keeps it: `cloud.jobs.get(promptId)` tells
   * whether the job exists. `submitted` names it too once the server is known to keep it.
   */
  readonly promptId: string | undefined;

  constructor(url: string, cause: Error, promptId?: string, kept = false) {
    super('POST', url, cause);
    this.promptId = promptId;
    if (promptId !== undefined && kept) this.submitted = { kind: 'job', promptId };
    const look = promptId === undefined
      ? 'Check your jobs (cloud.jobs.listAll()) before submitting again.'
      : kept
        ? `Its prompt id is ${promptId}: cloud.jobs.get('${promptId}') tells whether it exists.`
        : `The client asked for prompt id ${promptId} (a local runtime keeps it, the cloud assigns its own): look it up with cloud.jobs.get('${promptId}'), or check your jobs, before submitting again.`;
    this.message = `POST ${url}: no answer to the submission (${cause.message}). The job may have been created and may run and be billed; it was not resubmitted. ${look}`;
  }
}

/**
 * `runWorkflow(..., { download: true })` could not download an output of a finished run. The run
 * itself is in `result` (outputs included, without `files`): nothing of it is lost, and each file
 * can be fetched again with `cloud.files.get()`.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof OutputDownloadError) console.log(e.promptId, e.result.outputs, e.cause); }
 * ```
 */
export class OutputDownloadError extends GraphcloudError {
  /** `'OutputDownloadError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'OutputDownloadError';
  /** The job's id. */
  readonly promptId: string;
  /** The finished run, outputs included (without `files`): fetch each file again with `cloud.files.get()`. */
  readonly result: JobResult;

  constructor(result: JobResult, cause: unknown) {
    super(`Job ${result.promptId} ${result.status}, but downloading its outputs failed${cause instanceof Error ? `: ${cause.message}` : ''}; error.result keeps its outputs`, { cause });
    this.promptId = result.promptId;
    this.result = result;
  }
}

/**
 * The watcher was closed (`close()`, `break` out of `for await`, or `cloud.close()`, then `cause`
 * is the `ClientClosedError`) before its job settled. The job itself goes on running on the
 * server: `submitted` names it, to watch it again with `cloud.jobs.watch(promptId)`.
 *
 * @example
 * ```ts
 * watcher.close();
 * await watcher.result().catch((e) => e instanceof WatcherClosedError); // true
 * ```
 */
export class WatcherClosedError extends GraphcloudError {
  /** `'WatcherClosedError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'WatcherClosedError';
  /** The id of the job that was being watched, and still runs: `cloud.jobs.watch(promptId)` follows it again. */
  readonly promptId: string;

  constructor(promptId: string, cause?: unknown) {
    super(`Stopped watching job ${promptId} before it settled; the job itself was not cancelled`, cause === undefined ? undefined : { cause });
    this.promptId = promptId;
    this.submitted = { kind: 'job', promptId };
  }
}

/**
 * A run refused by its budget (`maxCost`) before anything was sent: its estimate is over the
 * limit (`code` `over_budget`; the estimate's maximum is compared), or it has a partner node whose
 * price is unknown and `allowUnpriced` is not set (`code` `unpriced`). Nothing was uploaded or
 * submitted.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof BudgetExceededError) console.log(e.code, e.estimate.usd.max, e.limit.usd, e.estimate.unpriced); }
 * ```
 */
export class BudgetExceededError extends GraphcloudError {
  /** `'BudgetExceededError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'BudgetExceededError';

  /** `message` is built where the estimate is (cost/estimate.ts). */
  constructor(
    message: string,
    /** The run's estimate, with the nodes that make it up and those it could not price. */
    readonly estimate: CostEstimate,
    /** The budget given as `maxCost`. */
    readonly limit: CostLimit,
    /** `over_budget` or `unpriced`. */
    readonly code: 'over_budget' | 'unpriced',
  ) {
    super(message);
  }
}

/**
 * The cloud's own meaning of an error status, given once as the `mapError` hook of the client's
 * `HttpClient`: `402` no credits, `429` subscription inactive (not a rate limit), and a `400`
 * to a submission naming `node_errors` or a typed `error` a rejected workflow (see
 * docs/wire-protocol.md#cloud-submitting-a-workflow). Answers of other origins (a signed file
 * URL) keep their plain class.
 *
 * @example
 * ```ts
 * new HttpClient({ baseUrl, mapError: (error) => mapCloudError(error, new URL(baseUrl).origin) });
 * ```
 */
export function mapCloudError(error: ApiError, origin: string): GraphcloudError {
  const url = URL.canParse(error.url) ? new URL(error.url) : undefined;
  if (url?.origin !== origin) return error;
  if (error.status === 402) return new InsufficientCreditsError(initOf(error));
  if (error.status === 429) return new SubscriptionInactiveError(initOf(error));
  if (error.status !== 400 || error.method !== 'POST' || !/\/prompt$/.test(url.pathname)) return error;
  const body = (error.body && typeof error.body === 'object' ? error.body : {}) as Record<string, unknown>;
  if (body.node_errors === undefined && (typeof body.error !== 'object' || body.error === null)) return error;
  return new WorkflowValidationError(initOf(error), toNodeErrors(body.node_errors));
}

// The server's reasons for rejecting a workflow, as lines a person can act on: each node with its
// title, the server's message and its details (which input, which value, the allowed values),
// not only the summary (docs/wire-protocol.md#cloud-submitting-a-workflow).
const MAX_DETAILS = 400;
const MAX_LINES = 30;
const MAX_CHOICES = 10;

/**
 * One line per error of `node_errors`: `node 4 (CheckpointLoaderSimple "Base model"): Value not in
 * list: ckpt_name: 'x.safetensors' not in [...]`. `workflow`, when given, supplies the titles.
 *
 * @example
 * ```ts
 * describeNodeErrors({ '3': { class_type: 'KSampler', errors: [{ type: 'value_smaller_than_min', message: 'Value -1 smaller than min of 0', details: 'seed' }] } });
 * // ['node 3 (KSampler): Value -1 smaller than min of 0: seed']
 * ```
 */
export function describeNodeErrors(nodeErrors: Record<string, NodeErrors>, workflow?: Workflow): string[] {
  const lines = Object.entries(nodeErrors).flatMap(([id, node]) => node.errors.map((error) => `${nodeName(id, node, workflow)}: ${describeError(error)}`));
  return lines.length > MAX_LINES ? [...lines.slice(0, MAX_LINES), `… and ${lines.length - MAX_LINES} more (error.nodeErrors lists them all)`] : lines;
}

/**
 * The top-level `error.details` of a rejection that names no node (`missing_node_type`...), or
 * `undefined` when there is none.
 *
 * @example
 * ```ts
 * topLevelDetails({ error: { type: 'missing_node_type', message: '...', details: "Node ID '#3'" } }); // "Node ID '#3'"
 * ```
 */
export function topLevelDetails(body: unknown): string | undefined {
  const error = isPlainObject(body) ? body.error : undefined;
  const details = isPlainObject(error) ? error.details : undefined;
  return typeof details === 'string' && details.trim() !== '' ? clip(details.trim()) : undefined;
}

function nodeName(id: string, node: NodeErrors, workflow: Workflow | undefined): string {
  const sent = workflow && Object.hasOwn(workflow, id) ? workflow[id] : undefined;
  const type = node.class_type ?? sent?.class_type;
  const title = typeof sent?._meta?.title === 'string' && sent._meta.title !== type ? ` "${sent._meta.title}"` : '';
  return `node ${id}${type || title ? ` (${type ?? 'unknown type'}${title})` : ''}`;
}

function describeError(error: NodeErrorDetail): string {
  const details = typeof error.details === 'string' ? error.details.trim() : '';
  const extra = isPlainObject(error.extra_info) ? error.extra_info : {};
  const parts = [error.message];
  if (details && details !== error.message) parts.push(clip(details));
  else if (typeof extra.input_name === 'string') parts.push(`input "${extra.input_name}"${'received_value' in extra ? ` received ${preview(extra.received_value)}` : ''}`);
  const choices = details.includes(' not in ') ? undefined : allowedValues(extra.input_config);
  return `${parts.join(': ')}${choices ? ` (allowed: ${choices})` : ''}`;
}

/** The allowed values of an input definition `[[...values]]` or `['COMBO', {options}]`, shortened. */
function allowedValues(config: unknown): string | undefined {
  if (!Array.isArray(config)) return undefined;
  const [type, options] = config as [unknown, unknown];
  const list = Array.isArray(type) ? type : isPlainObject(options) && Array.isArray(options.options) ? (options.options as unknown[]) : undefined;
  if (!list) return undefined;
  const shown = list.slice(0, MAX_CHOICES).map(preview).join(', ');
  return list.length > MAX_CHOICES ? `${shown}, … (${list.length} values)` : shown;
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return clip(text, 80);
}

function clip(text: string, max = MAX_DETAILS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
