// A workflow's cost before it is sent: each partner node's price badge evaluated over the node's
// values (docs/cost.md). Loaded on first use by `cloud.estimateCost()` and the budget guard; the
// JSONata engine only when a workflow has a priced node. Usable without a client (the queue, the
// command line): `estimateWorkflowCost(workflow, objectInfo)`.
import { isRecord, own } from '../../core/index.js';
import { BudgetExceededError } from '../shared/errors.js';
import type { Workflow } from '../shared/types.js';
import { boundedCopy, compile, evaluate, loadEngine, priceOf, type BadgeBounds, type Compiled } from './badge.js';
import { buildContext, readDependencies } from './context.js';
import { COST_DEFAULTS } from './defaults.js';
import type { CostEstimate, CostLimit, CostRange, PricedNode, UnpricedNode } from '../shared/cost-types.js';

/**
 * Options of `estimateWorkflowCost()`: the credit rate and the bounds of the badges' evaluation
 * (each a `DEFAULTS.cost` policy).
 *
 * @example
 * ```ts
 * await estimateWorkflowCost(workflow, info, { creditsPerUsd: 211, badgeTimeoutMs: 500 });
 * ```
 */
export interface EstimateWorkflowCostOptions {
  /** Credits per US dollar, for `credits`. @default DEFAULTS.cost.creditsPerUsd */
  creditsPerUsd?: number | undefined;
  /** Time one badge may take, in ms. @default DEFAULTS.cost.badgeTimeoutMs */
  badgeTimeoutMs?: number | undefined;
  /** Time the whole estimate's badges may take, in ms. @default DEFAULTS.cost.timeoutMs */
  timeoutMs?: number | undefined;
  /** Most steps of one badge. @default DEFAULTS.cost.maxSteps */
  maxSteps?: number | undefined;
  /** Deepest nesting of one badge's evaluation. @default DEFAULTS.cost.maxDepth */
  maxDepth?: number | undefined;
  /** Longest sequence a badge may build. @default DEFAULTS.cost.maxSequence */
  maxSequence?: number | undefined;
  /** Largest badge result, in characters of its JSON. @default DEFAULTS.cost.maxResultChars */
  maxResultChars?: number | undefined;
}

// Compiled badges by bounds and expression: a node type's badge compiles once per process.
const compiled = new Map<string, Compiled>();
const MAX_COMPILED = 4_096;

interface Badge {
  id: string;
  classType: string;
  title: string;
  expr: string;
  context: Exclude<ReturnType<typeof buildContext>, string>;
}

/**
 * Estimates what an API-format workflow will cost from the price badges of its partner-API nodes
 * (`api_node: true` in `objectInfo`). Never throws for what a badge does: a node whose price cannot
 * be counted is listed in `unpriced` with the reason. A node type `objectInfo` lacks is not a
 * partner node as far as it knows.
 *
 * @example
 * ```ts
 * const estimate = await estimateWorkflowCost(workflow, await cloud.nodes.list());
 * if (estimate.unpriced.length === 0 && estimate.usd.max <= 1) console.log('within a dollar');
 * ```
 */
export async function estimateWorkflowCost(workflow: Workflow, objectInfo: Readonly<Record<string, unknown>>, options: EstimateWorkflowCostOptions = {}): Promise<CostEstimate> {
  const policy = { ...COST_DEFAULTS, ...definedOnly(options) };
  const started = performance.now();
  const nodes: PricedNode[] = [];
  const unpriced: UnpricedNode[] = [];
  const badges: Badge[] = [];
  for (const [id, node] of Object.entries(workflow)) {
    const classType = isRecord(node) ? own(node, 'class_type') : undefined;
    const definition = typeof classType === 'string' ? own(objectInfo, classType) : undefined;
    if (typeof classType !== 'string' || !isRecord(definition) || own(definition, 'api_node') !== true) continue;
    const skip = (reason: string) => void unpriced.push({ id, classType, reason });
    const badge = own(definition, 'price_badge');
    if (badge === undefined || badge === null) {
      skip('the node type has no price badge');
      continue;
    }
    const engine = isRecord(badge) ? (own(badge, 'engine') ?? 'jsonata') : undefined;
    const expr = isRecord(badge) ? own(badge, 'expr') : undefined;
    if (engine !== 'jsonata') {
      skip(isRecord(badge) ? `its badge needs the engine ${JSON.stringify(engine)}; estimates evaluate JSONata only` : 'its price badge is not an object');
      continue;
    }
    if (typeof expr !== 'string' || expr.trim() === '') {
      skip('its price badge has no expression');
      continue;
    }
    const deps = readDependencies(own(badge, 'depends_on'));
    const inputs = isRecord(node) ? own(node, 'inputs') : undefined;
    const context = typeof deps === 'string' ? deps : buildContext(isRecord(inputs) ? inputs : {}, definition, deps);
    if (typeof context === 'string') {
      skip(typeof deps === 'string' ? `its price badge cannot be read: ${deps}` : context);
      continue;
    }
    const meta = own(node, '_meta');
    const title = (isRecord(meta) && typeof meta.title === 'string' && meta.title) || (typeof definition.display_name === 'string' && definition.display_name) || classType;
    badges.push({ id, classType, title, expr, context });
  }
  const engine = badges.length > 0 ? await loadEngine().catch((error: unknown) => (error instanceof Error ? error.message : String(error))) : undefined;
  if (typeof engine === 'string') for (const badge of badges) unpriced.push({ id: badge.id, classType: badge.classType, reason: `the JSONata engine could not be loaded (${engine})` });
  else if (engine) {
    for (const badge of badges) {
      const skip = (reason: string) => void unpriced.push({ id: badge.id, classType: badge.classType, reason });
      const key = `${policy.maxDepth}/${policy.maxSequence}\n${badge.expr}`;
      let program = compiled.get(key);
      if (!program) {
        if (compiled.size >= MAX_COMPILED) compiled.clear();
        program = compile(engine, badge.expr, policy);
        compiled.set(key, program);
      }
      if ('error' in program) {
        skip(program.error);
        continue;
      }
      const now = performance.now();
      const end = started + policy.timeoutMs;
      if (now >= end) {
        skip(`the estimate's time bound (${policy.timeoutMs} ms) ran out before this node`);
        continue;
      }
      const bounds: BadgeBounds = { ...policy, deadline: Math.min(now + policy.badgeTimeoutMs, end) };
      const outcome = await evaluate(program.expression, badge.context, bounds);
      if ('error' in outcome) {
        skip(outcome.error);
        continue;
      }
      const price = boundedCopy(outcome.result, policy.maxResultChars);
      if (outcome.result !== undefined && price === undefined) {
        skip(`the badge's result is larger than ${policy.maxResultChars} characters`);
        continue;
      }
      const usd = priceOf(price);
      if (typeof usd === 'string') skip(usd);
      else nodes.push({ id: badge.id, classType: badge.classType, title: badge.title, price: price as Record<string, unknown>, usd: { min: round(usd.min, 9), max: round(usd.max, 9) } });
    }
  }
  // Listed in workflow order, whichever step found them.
  const position = new Map(Object.keys(workflow).map((id, index) => [id, index]));
  const byPosition = (a: { id: string }, b: { id: string }) => (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0);
  nodes.sort(byPosition);
  unpriced.sort(byPosition);
  const usd = total(nodes.map((node) => node.usd));
  return { usd, credits: { min: round(usd.min * policy.creditsPerUsd, 4), max: round(usd.max * policy.creditsPerUsd, 4) }, nodes, unpriced };
}

/**
 * Refuses an estimate over `limit` (its maximum is compared), or with an unpriced partner node
 * unless `allowUnpriced`.
 *
 * @throws {@link BudgetExceededError} naming the estimate and the limit.
 * @example
 * ```ts
 * checkBudget(await estimateWorkflowCost(workflow, info), { usd: 0.5 }, false, 'cloud.runWorkflow()');
 * ```
 */
export function checkBudget(estimate: CostEstimate, limit: CostLimit, allowUnpriced: boolean, context: string): void {
  const nodes = estimate.nodes.map((node) => `${node.title} (${node.id}) $${node.usd.max}`).join(', ');
  if (estimate.usd.max > limit.usd) {
    throw new BudgetExceededError(`${context}: the run may cost up to $${estimate.usd.max}, over maxCost.usd $${limit.usd}${nodes ? ` (${nodes})` : ''}; nothing was sent. Raise maxCost or change the priced nodes`, estimate, limit, 'over_budget');
  }
  if (estimate.unpriced.length > 0 && !allowUnpriced) {
    const list = estimate.unpriced.map((node) => `${node.classType} (${node.id}): ${node.reason}`).join('; ');
    throw new BudgetExceededError(`${context}: the price of ${estimate.unpriced.length === 1 ? 'a partner node is' : 'partner nodes is'} unknown (${list}); nothing was sent. Pass allowUnpriced: true to run it anyway`, estimate, limit, 'unpriced');
  }
}

function total(ranges: readonly CostRange[]): CostRange {
  const sum = (pick: (range: CostRange) => number) => round(ranges.reduce((acc, range) => acc + pick(range), 0), 9);
  return { min: sum((range) => range.min), max: sum((range) => range.max) };
}

// Sums of dollar amounts in binary floating point (0.1 + 0.2) are rounded back to what was meant.
function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
