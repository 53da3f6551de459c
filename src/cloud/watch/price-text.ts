// What a partner node was charged, read from the text it sends while it runs (a binary frame of
// type 3; docs/wire-protocol.md#cloud-binary-frames and docs/cost.md#what-a-run-spent).

// One line `Price: N credits`: N with thousands separators (`1,234`) and up to two decimals.
// Anchored to a whole line, so a status that merely quotes a price elsewhere in a sentence is not read.
const PRICE_LINE = /^[ \t]*price:[ \t]*(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?[ \t]+credits?[ \t]*\.?[ \t]*$/gim;
// A text longer than this is no node status: it is not scanned (a frame is at most a few MiB).
const MAX_SCANNED_CHARS = 64 * 1024;

/**
 * The credits of the last `Price: N credits` line of a node's text (the server repeats the line
 * while the node runs; the last one is what it spent), or `undefined` when the text has none.
 * A pure function: never throws, whatever the text.
 *
 * @example
 * ```ts
 * parsePriceText('Status: COMPLETED\nPrice: 1,234.56 credits'); // 1234.56
 * parsePriceText('Status: running'); // undefined
 * ```
 */
export function parsePriceText(text: string): number | undefined {
  if (typeof text !== 'string' || text.length > MAX_SCANNED_CHARS) return undefined;
  let credits: number | undefined;
  for (const match of text.matchAll(PRICE_LINE)) {
    const value = Number(`${(match[1] as string).replaceAll(',', '')}${match[2] ?? ''}`);
    if (Number.isFinite(value)) credits = value;
  }
  return credits;
}

/**
 * What a run spent, from the credits of each of its priced nodes: the total, rounded to the
 * hundredth of a credit the server prints, and that total in USD at `creditsPerUsd`; `undefined`
 * when no node reported a price.
 *
 * @example
 * ```ts
 * runCost({ '4': 42.2, '7': 10 }, 211); // { credits: 52.2, usd: 0.2473..., byNode: { '4': 42.2, '7': 10 } }
 * ```
 */
export function runCost(byNode: Readonly<Record<string, number>> | undefined, creditsPerUsd: number): { credits: number; usd: number; byNode: Record<string, number> } | undefined {
  if (byNode === undefined) return undefined;
  const copy: Record<string, number> = Object.create(null) as Record<string, number>;
  let total = 0;
  for (const [node, credits] of Object.entries(byNode)) {
    copy[node] = credits;
    total += credits;
  }
  const credits = Math.round(total * 100) / 100;
  return { credits, usd: credits / creditsPerUsd, byNode: copy };
}
