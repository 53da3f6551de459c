// Submitting a workflow once (`POST /api/prompt`, never retried), after converting a UI-format
// workflow and checking it against the node definitions (the one copy of them a client keeps,
// `DefinitionCache`). On a local runtime the client chooses the prompt id before sending, so an
// answer lost on the way back can be looked up (docs/wire-protocol.md#cloud-local-runtimes).
import { Checker, checkAnsweredId, checkOptions, ConnectionError, isPlainObject, raceSignal, redactUrl, REQUEST_RULES, rule, TimeoutError, ValidationError, type HttpClient, type OptionRules, type RequestOptions, type Rule } from '../core/index.js';
import { initOf, InvalidWorkflowError, SubmissionUnknownError, WorkflowError, WorkflowValidationError } from './shared/errors.js';
import type { JobReader } from './shared/job-reader.js';
import { AnyObjectSchema, PromptResponseSchema, toNodeErrors, type RelayTokens } from './shared/wire.js';
import type { SubmitResult, Workflow, WorkflowIssue } from './shared/types.js';
import type { CostEstimate, CostLimit } from './shared/cost-types.js';
import { readObjectInfo } from './workflow/node-definitions.js';
import { describeWorkflowFormat, isUiWorkflow, splitIssues, validateWorkflow, type ObjectInfo } from './workflow/validate.js';
import { WorkflowConversionError } from './workflow/errors.js';
import { builderNeedsCatalog, builtWorkflow, isWorkflowBuilder } from './workflow/builder.js';
import type { WorkflowInput } from './workflow/builder-types.js';

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
  /**
   * The prompt id to ask for (a UUID). A local runtime keeps it, so the job can be looked up by it
   * even if the answer is lost; the cloud assigns its own. @default a new UUID on a local runtime
   */
  promptId?: string | undefined;
  /**
   * A budget: the run is refused with a `BudgetExceededError`, before anything is sent, when its
   * estimate (`cloud.estimateCost()`) may cost more (its maximum is compared). Without it, no
   * estimate is made.
   */
  maxCost?: CostLimit | undefined;
  /**
   * With `maxCost`, run even when a partner node's price is unknown (no badge, a text badge, a
   * rate...): the budget then counts only the priced nodes.
   * @default false
   */
  allowUnpriced?: boolean | undefined;
}

const partnerKeyRule: Rule = (check, path, value) => {
  // The value is a secret: never echo it.
  if (value !== undefined && typeof value !== 'boolean' && (typeof value !== 'string' || value.trim() === '')) check.fail(path, 'true (reuse the client key), false, or a non-empty key string', typeof value);
};
const extraDataRule = rule.record(rule.any, 'an object of extra_data fields');

const promptIdRule: Rule = (check, path, value) => {
  if (value !== undefined && (typeof value !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value))) check.fail(path, 'a lowercase UUID', value);
};

/** Rules of the options `jobs.submit()` shares with `runWorkflow()`. */
export const SUBMIT_RULES: OptionRules = Object.freeze({
  ...REQUEST_RULES,
  validate: rule.boolean,
  partnerApiKey: partnerKeyRule,
  extraData: extraDataRule,
  promptId: promptIdRule,
  maxCost: (check, path, value) => {
    if (checkOptions(check, path, value, { usd: rule.any })) check.number(`${path}.usd`, value.usd, { min: 0, required: true });
  },
  allowUnpriced: rule.boolean,
});

/**
 * Records on `check` when `workflow` is neither a UI-format workflow (converted before sending)
 * nor a well-formed API-format one. A value that looks like a broken UI file or a request body
 * gets one issue saying so, not one per key.
 *
 * @example
 * ```ts
 * checkWorkflowArgument(check, json);
 * ```
 */
export function checkWorkflowArgument(check: Checker, workflow: unknown): void {
  if (isUiWorkflow(workflow) || isWorkflowBuilder(workflow)) return;
  const shape = new Checker();
  const nodes = isPlainObject(workflow) ? Object.entries(workflow) : [];
  const expected = 'an API-format workflow with at least one node ({"<nodeId>": {class_type, inputs}})';
  if (nodes.length === 0) shape.fail('workflow', expected, workflow);
  // Every node has the shape the server needs, whether or not `validate` checks it further: a node
  // of `null` must never be sent (and paid for).
  for (const [nodeId, node] of nodes) {
    if (!isPlainObject(node) || typeof node.class_type !== 'string' || node.class_type === '' || !isPlainObject(node.inputs)) {
      shape.fail(`workflow["${nodeId}"]`, 'a node {class_type: string, inputs: object}', node);
    }
  }
  if (shape.issues.length === 0) return;
  const { hint } = describeWorkflowFormat(workflow);
  const specific = isPlainObject(workflow) && ('nodes' in workflow || 'prompt' in workflow);
  if (specific && hint) check.fail('workflow', hint, '(not an API-format workflow)');
  else check.issues.push(...shape.issues);
}

// Issues a stale copy can cause: a node pack installed, a file uploaded or a model added since
// the copy was fetched (a local runtime changes while it runs).
const STALE: ReadonlySet<WorkflowIssue['code']> = new Set(['unknown_class_type', 'not_in_options']);

/**
 * The node definitions of one client (`GET /api/object_info`), fetched once and reused by every
 * check of a workflow. Concurrent first checks share one request. A check that finds an unknown
 * `class_type` or a value outside an option list with a cached copy fetches the definitions again
 * once before reporting it.
 *
 * @example
 * ```ts
 * const definitions = new DefinitionCache(http);
 * const issues = await definitions.check(workflow, { pending: new Set(['1.image']) });
 * ```
 */
export class DefinitionCache {
  readonly #http: HttpClient;
  #info: ObjectInfo | undefined;
  #loading: Promise<ObjectInfo> | undefined;

  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** Fetches the definitions (the caller's own request) and keeps them. */
  async refresh(options?: RequestOptions): Promise<ObjectInfo> {
    const info = readObjectInfo(await this.#http.request({ method: 'GET', path: '/api/object_info', schema: AnyObjectSchema, options }));
    this.#info = info;
    return info;
  }

  /** The cached definitions, fetching them once when there are none. */
  async current(options?: RequestOptions): Promise<ObjectInfo> {
    return this.#info ?? this.#load(options);
  }

  /**
   * Checks a workflow against the definitions; `pending` names `"<nodeId>.<input>"`
   * values that uploads fill in later.
   */
  async check(workflow: Workflow, { pending, ...options }: RequestOptions & { pending?: ReadonlySet<string> | undefined } = {}): Promise<WorkflowIssue[]> {
    const cached = this.#info;
    const info = cached ?? (await this.#load(options));
    const issues = validateWorkflow(workflow, info, { pending });
    if (!cached || !issues.some((issue) => STALE.has(issue.code))) return issues;
    // Another check may have refreshed the copy meanwhile: fetch only if it is still this one.
    if (this.#info === cached) this.#info = undefined;
    return validateWorkflow(workflow, await this.current(options), { pending });
  }

  /**
   * Checks a workflow (`check()`): its errors throw an `InvalidWorkflowError` naming
   * `context`; its warnings (nodes left unchecked) are returned.
   */
  async validate(workflow: Workflow, options: Parameters<DefinitionCache['check']>[1], context: string): Promise<WorkflowIssue[]> {
    const { errors, warnings } = splitIssues(await this.check(workflow, options));
    if (errors.length > 0) throw new InvalidWorkflowError(errors, context);
    return warnings;
  }

  /**
   * The workflow in the API format: a UI-format one converted with the definitions (fetched once),
   * and refused (naming `context`) when nothing of it runs. A node type the cached copy lacks may
   * have been installed since: the definitions are fetched once more before the conversion error
   * (a `WorkflowConversionError` naming the node, and how to fix it) is reported.
   */
  async convert(input: WorkflowInput, options: RequestOptions, context: string): Promise<Workflow> {
    // A builder's outputs taken by name are resolved by its own table, else by the catalog.
    if (isWorkflowBuilder(input)) return builtWorkflow(input, builderNeedsCatalog(input) ? await this.current(options) : undefined);
    if (!isUiWorkflow(input)) return input as Workflow;
    // Loaded on first use: an app that never passes a UI-format workflow ships no converter (a
    // bundler splits a dynamic import into its own chunk).
    const { toApiWorkflow } = await import('./workflow/to-api.js');
    const cached = this.#info;
    let workflow: Workflow;
    try {
      workflow = toApiWorkflow(input, cached ?? (await this.#load(options)));
    } catch (error) {
      if (!cached || !(error instanceof WorkflowConversionError) || error.code !== 'unknown_node_type') throw error;
      if (this.#info === cached) this.#info = undefined;
      workflow = toApiWorkflow(input, await this.current(options));
    }
    if (Object.keys(workflow).length > 0) return workflow;
    const rule = 'a workflow with at least one node that runs (every node of this UI-format workflow is muted, bypassed, a note or a primitive)';
    throw new ValidationError([{ path: 'workflow', rule, received: '(a UI-format workflow)' }], context);
  }

  /**
   * One shared fetch for every caller waiting for the first copy: it carries no caller's signal
   * (one caller's abort must not fail the others), and each caller stops waiting on its own.
   */
  #load(options: RequestOptions | undefined): Promise<ObjectInfo> {
    if (!this.#loading) {
      const { signal: _signal, ...shared } = options ?? {};
      const loading = this.refresh(shared).finally(() => {
        if (this.#loading === loading) this.#loading = undefined;
      });
      this.#loading = loading;
    }
    const signal = options?.signal;
    return signal ? raceSignal(this.#loading, signal) : this.#loading;
  }
}

/**
 * Submits workflows for one client: converts a UI-format workflow (the definitions are fetched
 * once per client), checks it (`validate`), and sends it once. Holds what the client learned of
 * the server's prompt ids. `cloud.jobs.submit()` and `cloud.runWorkflow()` both submit through it.
 *
 * @example
 * ```ts
 * const submitter = new Submitter({ http, clientId, reader, definitions, tokens });
 * const { promptId } = await submitter.submit(workflow, { partnerApiKey: true }, 'cloud.jobs.submit()');
 * ```
 */
export class Submitter {
  readonly #parts: ConstructorParameters<typeof Submitter>[0];
  /** Whether the server kept the last prompt id the client chose (an echoed id); unknown until one is answered. */
  #kept: boolean | undefined;

  constructor(parts: { http: HttpClient; clientId: string; reader: JobReader; definitions: DefinitionCache; tokens: RelayTokens; creditsPerUsd?: number | undefined }) {
    this.#parts = parts;
  }

  /**
   * What an API-format workflow will cost (cost/estimate.ts, loaded on first use), against the
   * client's definitions; with `budget.maxCost`, refused when over it (before anything is sent).
   */
  async estimate(workflow: Workflow, request: RequestOptions, budget?: Pick<SubmitJobOptions, 'maxCost' | 'allowUnpriced'>, context = ''): Promise<CostEstimate> {
    const { estimateWorkflowCost, checkBudget } = await import('./cost/estimate.js');
    const estimate = await estimateWorkflowCost(workflow, await this.#parts.definitions.current(request), { creditsPerUsd: this.#parts.creditsPerUsd });
    if (budget?.maxCost) checkBudget(estimate, budget.maxCost, budget.allowUnpriced === true, context);
    return estimate;
  }

  /**
   * The prompt id a submission asks for: `given`, else a new UUID unless the server is the cloud
   * (which assigns its own) or did not keep the last one chosen. `kept` is true when this server is
   * known to keep the ids the client chooses: the job may then exist under that id as soon as the
   * submission is sent, before its answer (`runWorkflow()` cancels it by that id on abort).
   */
  choosePromptId(given: string | undefined): { promptId: string | undefined; kept: boolean } {
    const promptId = given ?? (this.#kept === false || this.#parts.reader.runtime === 'cloud' ? undefined : globalThis.crypto.randomUUID());
    return { promptId, kept: this.#keeps(promptId) };
  }

  /**
   * Converts, checks (`validate`) and submits once. `warnings` are those of a check the caller
   * made before (`runWorkflow()`'s, with `validate: false` here), passed on in the result.
   */
  async submit(input: WorkflowInput, options: SubmitJobOptions | undefined, context: string, warnings: WorkflowIssue[] = []): Promise<SubmitResult> {
    const { http, clientId, definitions, tokens } = this.#parts;
    const { validate = true, partnerApiKey, extraData, promptId, maxCost, allowUnpriced, ...request } = options ?? {};
    const url = redactUrl(`${http.baseUrl}/api/prompt`);
    const workflow = await definitions.convert(input, request, context);
    const issues = validate ? await definitions.validate(workflow, request, context) : warnings;
    if (maxCost) await this.estimate(workflow, request, { maxCost, allowUnpriced }, context);
    const extra: Record<string, unknown> = { ...extraData };
    if (partnerApiKey === true) extra.api_key_platform_org = await clientKey(http, context);
    else if (typeof partnerApiKey === 'string') extra.api_key_platform_org = partnerApiKey;
    // A local runtime keeps the prompt id the client chooses, so a lost answer can be looked up; the
    // cloud assigns its own, so none is sent to it (the runtime is the reader's, or the last answer's).
    const chosen = this.choosePromptId(promptId).promptId;
    const json = { prompt: workflow, client_id: clientId, ...(chosen ? { prompt_id: chosen } : {}) };
    if (Object.keys(extra).length > 0) Object.assign(json, { extra_data: extra });
    // Every credential this request carries is scrubbed from whatever the server echoes.
    const secrets = [typeof extra.api_key_platform_org === 'string' ? extra.api_key_platform_org : '', (await http.credential()) ?? ''];
    // finishOnClose: once sent, a submission's answer names the job; close() must not lose it.
    const answer = await http.request({ method: 'POST', path: '/api/prompt', json, schema: PromptResponseSchema, secrets, finishOnClose: true, options: request }).catch((error: unknown) => {
      // A refused connection sent nothing: the ConnectionError says it is safe to submit again.
      if (error instanceof ConnectionError && error.notSent) throw error;
      // Otherwise the request may have reached the server: say so, since a blind retry would run (and bill) the job twice.
      const maybeSent = error instanceof ConnectionError || error instanceof TimeoutError;
      if (maybeSent) throw new SubmissionUnknownError(url, error, chosen, this.#keeps(chosen));
      // The server's own words, with each node's title from the workflow sent.
      if (error instanceof WorkflowValidationError) throw new WorkflowValidationError(initOf(error), error.nodeErrors, workflow);
      throw error;
    });
    const nodeErrors = toNodeErrors(answer.node_errors);
    if (answer.error || !answer.prompt_id) {
      const body = http.scrub(answer);
      const error = body.error;
      const message = typeof error === 'string' ? error : (error?.message ?? 'the server returned no prompt_id');
      throw new WorkflowError(message, typeof error === 'object' && error ? (error.type ?? undefined) : undefined, toNodeErrors(body.node_errors), body, body.prompt_id ?? undefined);
    }
    // Watching or looking the job up puts its id in a URL: one no URL can carry would fail there, or reach another route.
    checkAnsweredId(answer.prompt_id, { field: 'prompt_id', work: 'job', body: http.scrub(answer), method: 'POST', url });
    if (chosen !== undefined) this.#kept = chosen === answer.prompt_id;
    // Submitted through a relay (graphcloud/server): its token opens the job's routes and socket messages.
    tokens.set(answer.prompt_id, answer.relay_token);
    const relayToken = tokens.get(answer.prompt_id);
    return { promptId: answer.prompt_id, number: answer.number ?? undefined, nodeErrors, ...(relayToken === undefined ? {} : { relayToken }), ...(issues.length > 0 ? { warnings: issues } : {}) };
  }

  /** True when an id was chosen and this server is known to keep the ids the client chooses. */
  #keeps(chosen: string | undefined): chosen is string {
    return chosen !== undefined && (this.#kept ?? this.#parts.reader.runtime === 'local');
  }
}

async function clientKey(http: HttpClient, context: string): Promise<string> {
  const key = await http.credential();
  if (key) return key;
  throw new ValidationError([{ path: 'options.partnerApiKey', rule: "a key string: true reuses the client's apiKey, and this client has none", received: true }], context);
}
