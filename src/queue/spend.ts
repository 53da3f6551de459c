// The worker's side of the queue's budget (budget.ts): reserve a run's estimate before it is sent,
// settle the reservation when it ends. See docs/cost.md#a-budget-across-workers.
import { ConnectionError, GraphcloudError, TimeoutError } from '../core/index.js';
import type { CloudClient } from '../cloud/client.js';
import type { Workflow } from '../cloud/shared/types.js';
import type { RunBudget } from './budget.js';
import type { PauseReason } from './option-types.js';

/**
 * What the budget needs from its worker.
 *
 * @example
 * ```ts
 * const deps: SpendDeps = { budget, pauseQueue, log: console.log, submitTimeoutMs: 30_000 };
 * ```
 */
export interface SpendDeps {
  budget?: RunBudget | undefined;
  pauseQueue(reason: PauseReason): Promise<void>;
  log(line: string): void;
  submitTimeoutMs: number;
}

/**
 * A run the budget cannot count: a partner node whose price no estimate knows.
 *
 * @example
 * ```ts
 * new UnpricedRunError('order-1234', ['7 (SomePartnerNode): no price badge']);
 * ```
 */
export class UnpricedRunError extends GraphcloudError {
  override name = 'UnpricedRunError';
  constructor(runId: string, nodes: readonly string[]) {
    super(`run ${runId} has partner nodes without a price (${nodes.join('; ')}): the queue's budget cannot count it, so it is not sent. Remove the budget (queue.setBudget(null)) to run it`);
  }
}

/**
 * Before a run is sent: without a budget, `go`; else its estimate's maximum is reserved, or, when
 * that would cross the budget, the queue is paused with the reason `budget` (`over`: the run goes
 * back in line, unsent). `retry` when the estimate could not be read (nothing was sent).
 *
 * @throws {@link UnpricedRunError} when the workflow holds a partner node without a price.
 * @example
 * ```ts
 * if ((await reserveRun(deps, cloud, runId, workflow)) !== 'go') return handBack(job, token, data, undefined);
 * ```
 */
export async function reserveRun(deps: SpendDeps, cloud: CloudClient, runId: string, workflow: Workflow): Promise<'go' | 'over' | 'retry'> {
  const budget = deps.budget;
  if (!budget || !(await budget.isSet())) return 'go';
  let estimate: Awaited<ReturnType<CloudClient['estimateCost']>>;
  try {
    estimate = await cloud.estimateCost(workflow, { validate: false, timeout: deps.submitTimeoutMs, totalTimeout: deps.submitTimeoutMs });
  } catch (error) {
    if (error instanceof ConnectionError || error instanceof TimeoutError) return 'retry';
    throw error;
  }
  if (estimate.unpriced.length > 0) throw new UnpricedRunError(runId, estimate.unpriced.map((node) => `${node.id} (${node.classType}): ${node.reason}`));
  const usd = estimate.usd.max;
  if ((await budget.reserve(runId, usd)) !== 'refused') return 'go';
  const status = await budget.status();
  const standing = status ? `$${round(status.spent)} spent and $${round(status.reserved)} reserved of $${round(status.limit)}` : 'the budget';
  const message = `run ${runId} would cost up to $${round(usd)}, over what is left of the queue's budget (${standing}): raise it with queue.setBudget() or wait for its window, then queue.resume()`;
  await deps.pauseQueue({ kind: 'budget', error: { name: 'BudgetExceededError', message, details: { estimateUsd: usd, ...status } }, runId, at: Date.now() });
  deps.log(`run ${runId}: over the budget; queue paused`);
  return 'over';
}

/**
 * When a run ends: its reservation is settled with what it spent (`result.cost.usd`), or with the
 * reservation itself when no price arrived, or released (`sent` false: certainly never sent). What
 * Redis refuses is logged: the reservation then stays counted (never under-counted).
 *
 * @example
 * ```ts
 * await settleRun(deps, runId, result, true);
 * ```
 */
export async function settleRun(deps: SpendDeps, runId: string, result: unknown, sent: boolean): Promise<void> {
  if (!deps.budget) return;
  const cost = (result as { cost?: { usd?: unknown } } | undefined)?.cost?.usd;
  const spent = !sent ? 0 : typeof cost === 'number' && Number.isFinite(cost) ? cost : 'reserved';
  await deps.budget.settle(runId, spent).catch((error: unknown) => deps.log(`run ${runId}: its budget reservation could not be settled: ${String(error)}`));
}

const round = (usd: number): string => usd.toFixed(2);
