// `cloud.estimateCost()`: a workflow made ready as `runWorkflow()` makes it (a builder's written,
// a UI-format one converted, inputs placed by address, checked), then priced by its partner nodes' badges
// (cost/estimate.ts, loaded on first use; docs/cost.md).
import { Checker, checkOptions, REQUEST_RULES, rule, type RequestOptions } from '../core/index.js';
import type { CostEstimate } from './shared/cost-types.js';
import { prepareRun, type RunParts } from './run-workflow.js';
import { checkWorkflowArgument } from './submit.js';
import type { WorkflowInput } from './workflow/builder-types.js';

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
export async function estimateCost(parts: RunParts, given: WorkflowInput, options?: EstimateCostOptions): Promise<CostEstimate> {
  const context = 'cloud.estimateCost()';
  const check = new Checker();
  checkWorkflowArgument(check, given);
  checkOptions(check, 'options', options, RULES);
  check.throwIfInvalid(context);
  const { inputs, validate, ...request } = options ?? {};
  // Made ready as runWorkflow() makes it (no uploads, no guard): converted, inputs placed, checked.
  const { workflow } = await prepareRun(parts, given, [], { inputs, validate }, request, context);
  return parts.submitter.estimate(workflow, request);
}
