// How the command line writes amounts: credits as the server prints them, dollars to the cent
// (a fraction of a cent as "<$0.01"). See docs/cli.md#what-it-costs.

const CREDITS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/**
 * An amount in USD: `$1,234.57`, `<$0.01` for a positive amount under a cent.
 *
 * @example
 * ```ts
 * formatUsd(0.2473); // '$0.25'
 * ```
 */
export function formatUsd(usd: number): string {
  if (usd > 0 && usd < 0.005) return '<$0.01';
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/**
 * What a run (or a batch) spent: `1,042.2 credits ($4.94)`.
 *
 * @example
 * ```ts
 * formatSpent({ credits: 1042.2, usd: 4.939 }); // '1,042.2 credits ($4.94)'
 * ```
 */
export function formatSpent(spent: { credits: number; usd: number }): string {
  return `${CREDITS.format(spent.credits)} credit${spent.credits === 1 ? '' : 's'} (${formatUsd(spent.usd)})`;
}

/**
 * A range in USD: `$1.21` when both ends round alike, else `$1.21 to $2.07`.
 *
 * @example
 * ```ts
 * formatUsdRange({ min: 1.21, max: 2.07 }); // '$1.21 to $2.07'
 * ```
 */
export function formatUsdRange(range: { min: number; max: number }): string {
  const [min, max] = [formatUsd(range.min), formatUsd(range.max)];
  return min === max ? min : `${min} to ${max}`;
}
