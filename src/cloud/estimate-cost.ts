// `cloud.estimateCost()`: a workflow made ready as `runWorkflow()` makes it (converted from the UI
// format, inputs placed by address, checked), then priced by its partner nodes' badges
// (cost/estimate.ts, loaded on first use; docs/cost.md).
import { Checker, checkOptions, isPlainObject, REQUEST_RULES, rule, type RequestOptions } from '../core/index.js';
import type { CostEstimate } from './shared/cost-types.js';
import type { Workflow } from './shared/types.js';
import { checkUiAddresses, placeInputs, type RunParts } from './run-workflow.js';
import { checkWorkflowArgument } from './submit.js';
import { isUiWorkflow } from './workflow/validate.js';
import type { UiWorkflow } from './workflow/types.js';

/**
 * Options of `cloud.estimateCost()`: the run's `inputs` and `validate`, as `runWorkflow()` takes them.
 *
 * @example
 * ```ts
 * await cloud.estimateCost(workflow, { inputs: { 'Video.duration': 10 }, validate: false });
 * ```
 */
export interface EstimateCostOptions extends RequestOptions {
  /** Input values keyed by address (`"<node>.<input>"`), as `runWorkflow({ inputs })` sets them. */
  inputs?: Record<string, unknown> | undefined;
  /**
   * Check the workflow and the addresses against the node definitions first, as `runWorkflow()` does.
   * @default true
   */
  validate?: boolean | undefined;
}

const RULES = Object.freeze({ ...REQUEST_RULES, inputs: rule.record(rule.any, 'an object of "<node>.<input>" addresses to values'), validate: rule.boolean });

/**
 * The `cloud.estimateCost()` flow over the client's parts.
 *
 * @example
 * ```ts
 * const estimate = await estimateCost(parts, workflow, { inputs: { 'Video.duration': 10 } });
 * ```
 */
export async function estimateCost(parts: RunParts, input: Workflow | UiWorkflow, options?: EstimateCostOptions): Promise<CostEstimate> {
  const context = 'cloud.estimateCost()';
  const check = new Checker();
  checkWorkflowArgument(check, input);
  checkOptions(check, 'options', options, RULES);
  check.throwIfInvalid(context);
  const { inputs = {}, validate = true, ...request } = options ?? {};
  if (!isUiWorkflow(input)) placeInputs(input, inputs, [], undefined);
  else checkUiAddresses(input, Object.keys(inputs));
  parts.http.throwIfClosed();
  const api = await parts.definitions.convert(input, request, context);
  const info = validate ? await parts.definitions.current(request) : undefined;
  const { workflow } = placeInputs(api, isPlainObject(inputs) ? inputs : {}, [], info);
  if (validate) await parts.definitions.validate(workflow, request, context);
  return parts.submitter.estimate(workflow, request);
}
