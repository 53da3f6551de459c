/**
 * Policies of cost estimates, frozen; also `DEFAULTS.cost`.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from 'graphcloud';
 * console.log(DEFAULTS.cost.creditsPerUsd); // 211
 * ```
 */
export const COST_DEFAULTS = Object.freeze({
  /**
   * Credits per US dollar: the rate the web UI shows badges in and the server uses for a badge
   * price (change it with the `creditsPerUsd` client option).
   * @default 211
   */
  creditsPerUsd: 211,
  /**
   * Time one badge may take to evaluate, in ms; past it the node is unpriced.
   * @default 1_000
   */
  badgeTimeoutMs: 1_000,
  /**
   * Time one estimate's badges may take together, in ms; nodes left then are unpriced.
   * @default 5_000
   */
  timeoutMs: 5_000,
  /**
   * Most steps one badge may take.
   * @default 1_000_000
   */
  maxSteps: 1_000_000,
  /**
   * Deepest nesting of one badge's evaluation.
   * @default 500
   */
  maxDepth: 500,
  /**
   * Longest sequence a badge may build.
   * @default 10_000
   */
  maxSequence: 10_000,
  /**
   * Largest badge result, in characters of its JSON.
   * @default 65_536
   */
  maxResultChars: 65_536,
});
