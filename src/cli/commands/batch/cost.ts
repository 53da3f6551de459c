import { setInputs, type CloudClient, type Workflow } from '../../../index.js';
import { CliError } from '../../base/errors.js';
import { EXIT } from '../../base/exit-codes.js';
import { formatUsd, formatUsdRange } from '../../base/money.js';
import type { BatchSet } from './sets.js';

type Estimate = Awaited<ReturnType<CloudClient['estimateCost']>>;
type Range = { min: number; max: number };

/**
 * What a batch would cost: the sum over its sets, and the partner nodes no set could price.
 *
 * @example
 * ```ts
 * const { usd, unpriced } = await estimateBatch(cloud, workflow, sets, signal);
 * ```
 */
export interface BatchEstimate {
  usd: Range;
  credits: Range;
  /** Each set's estimate, in the file's order. */
  sets: { set: BatchSet; estimate: Estimate }[];
  /** Partner nodes without a price, with the set they are in. */
  unpriced: (Estimate['unpriced'][number] & { set: number })[];
}

/**
 * Estimates every set of a batch (the workflow with the set's inputs), one after another (the
 * catalog is read once and each badge compiled once, by the client).
 *
 * @example
 * ```ts
 * const total = await estimateBatch(cloud, workflow, sets, signal);
 * if (total.usd.max > maxCost) refuse();
 * ```
 */
export async function estimateBatch(cloud: CloudClient, workflow: Workflow, sets: readonly BatchSet[], signal: AbortSignal): Promise<BatchEstimate> {
  const total: BatchEstimate = { usd: { min: 0, max: 0 }, credits: { min: 0, max: 0 }, sets: [], unpriced: [] };
  for (const set of sets) {
    const estimate = await cloud.estimateCost(setInputs(workflow, set.inputs), { validate: false, signal });
    add(total.usd, estimate.usd);
    add(total.credits, estimate.credits);
    total.sets.push({ set, estimate });
    for (const node of estimate.unpriced) total.unpriced.push({ ...node, set: set.index });
  }
  return total;
}

function add(to: Range, range: Range): void {
  to.min += range.min;
  to.max += range.max;
}

/**
 * A batch whose whole estimate is over `--max-cost` (or holds a partner node without a price):
 * nothing is added or sent.
 *
 * @example
 * ```ts
 * checkBatchCost(total, 25, false, 'graphcloud batch --help');
 * ```
 */
export function checkBatchCost(total: BatchEstimate, maxUsd: number, allowUnpriced: boolean, help: string): void {
  if (total.unpriced.length > 0 && !allowUnpriced) {
    const first = total.unpriced[0]!;
    throw new CliError(`${total.unpriced.length} partner node${total.unpriced.length === 1 ? '' : 's'} of the batch ha${total.unpriced.length === 1 ? 's' : 've'} no price (set ${first.set}, node ${first.id} ${first.classType}: ${first.reason}), so --max-cost cannot be checked; nothing was sent.`, `Pass --allow-unpriced to count them as free, or see \`${help}\`.`, EXIT.usage);
  }
  if (total.usd.max > maxUsd) {
    throw new CliError(`The batch would cost up to ${formatUsd(total.usd.max)} (${formatUsdRange(total.usd)} for ${total.sets.length} sets), over --max-cost $${maxUsd}; nothing was sent.`, 'Raise --max-cost, or run fewer sets (`graphcloud estimate` shows each set).', EXIT.usage);
  }
}
