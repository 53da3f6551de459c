// The server's node definitions, the public resource (`cloud.nodes`), and the one copy of them a
// client keeps to convert and check workflows before sending them: fetched once and reused by
// every check. Concurrent first checks share one request. A check that finds an unknown
// `class_type` or a value outside an option list with a cached copy fetches the definitions again
// once before reporting it.
import { assertOptions, Checker, checkOptions, path, raceSignal, REQUEST_RULES, ValidationError } from '../core/index.js';
import type { HttpClient, RequestOptions } from '../core/index.js';
import { readObjectInfo } from './workflow/node-definitions.js';
import { InvalidWorkflowError } from './shared/errors.js';
import { AnyObjectSchema } from './shared/wire.js';
import type { Workflow, WorkflowIssue } from './shared/types.js';
import { WorkflowConversionError } from './workflow/errors.js';
import type { UiWorkflow } from './workflow/types.js';
import { isUiWorkflow, splitIssues, validateWorkflow, type NodeDefinition, type ObjectInfo } from './workflow/validate.js';

// Issues a stale copy can cause: a node pack installed, a file uploaded or a model added since
// the copy was fetched (a local runtime changes while it runs).
const STALE: ReadonlySet<WorkflowIssue['code']> = new Set(['unknown_class_type', 'not_in_options']);

/**
 * The server's node definitions: `cloud.nodes`. The client keeps the last list it fetched to
 * check workflows before sending them (`validate`); `list()` refreshes it.
 *
 * @example
 * ```ts
 * const info = await cloud.nodes.list();
 * const sampler = await cloud.nodes.get('KSampler');
 * ```
 */
export class NodeDefinitionsResource {
  readonly #http: HttpClient;
  #info: ObjectInfo | undefined;
  #loading: Promise<ObjectInfo> | undefined;

  /** @internal Built by `CloudClient` (use `cloud.nodes`). */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Every node definition (`GET /api/object_info`), by node type name. Refreshes the copy the
   * client checks workflows against.
   *
   * @example
   * ```ts
   * const info = await cloud.nodes.list();
   * console.log(Object.keys(info).length, info.KSampler?.input.required?.steps);
   * ```
   */
  async list(options?: RequestOptions): Promise<ObjectInfo> {
    assertOptions('cloud.nodes.list()', options, REQUEST_RULES);
    const info = readObjectInfo(await this.#http.request({ method: 'GET', path: '/api/object_info', schema: AnyObjectSchema, options }));
    this.#info = info;
    return info;
  }

  /**
   * One node type's definition (`GET /api/object_info/{classType}`), or `undefined` when the
   * server has no such node type.
   *
   * @example
   * ```ts
   * const def = await cloud.nodes.get('KSampler');
   * if (!def) console.log('KSampler is not installed');
   * ```
   */
  async get(classType: string, options?: RequestOptions): Promise<NodeDefinition | undefined> {
    const check = new Checker();
    check.id('classType', classType);
    checkOptions(check, 'options', options, REQUEST_RULES);
    check.throwIfInvalid('cloud.nodes.get()');
    const info = readObjectInfo(await this.#http.request({ method: 'GET', path: path`/api/object_info/${classType}`, schema: AnyObjectSchema, options }));
    return Object.hasOwn(info, classType) ? info[classType] : undefined;
  }

  /** @internal The kept definitions, fetching them once when there are none. */
  async current(options?: RequestOptions): Promise<ObjectInfo> {
    return this.#info ?? this.#load(options);
  }

  /**
   * @internal Checks a workflow against the kept definitions; `pending` names `"<nodeId>.<input>"`
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
   * @internal Checks a workflow (`check()`): its errors throw an `InvalidWorkflowError` naming
   * `context`; its warnings (nodes left unchecked) are returned.
   */
  async validate(workflow: Workflow, options: Parameters<NodeDefinitionsResource['check']>[1], context: string): Promise<WorkflowIssue[]> {
    const { errors, warnings } = splitIssues(await this.check(workflow, options));
    if (errors.length > 0) throw new InvalidWorkflowError(errors, context);
    return warnings;
  }

  /**
   * @internal The workflow in the API format: a UI-format one converted with the kept definitions,
   * and refused (naming `context`) when nothing of it runs. A node type the cached copy lacks may
   * have been installed since: the definitions are fetched once more before the conversion error
   * (a `WorkflowConversionError` naming the node, and how to fix it) is reported.
   */
  async convert(input: Workflow | UiWorkflow, options: RequestOptions, context: string): Promise<Workflow> {
    if (!isUiWorkflow(input)) return input;
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
      const loading = this.list(shared).finally(() => {
        if (this.#loading === loading) this.#loading = undefined;
      });
      this.#loading = loading;
    }
    const signal = options?.signal;
    return signal ? raceSignal(this.#loading, signal) : this.#loading;
  }
}
