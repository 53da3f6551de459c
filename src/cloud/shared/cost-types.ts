// The public shapes of a cost estimate (types only: nothing here reaches a bundle).

/**
 * A price in US dollars or credits, as a range: `min` equals `max` for a fixed price.
 *
 * @example
 * ```ts
 * const range: CostRange = { min: 0.35, max: 0.7 };
 * ```
 */
export interface CostRange {
  /** The least the run (or node) can cost. */
  min: number;
  /** The most the run (or node) can cost; a budget is checked against this. */
  max: number;
}

/**
 * One priced partner node of an estimate.
 *
 * @example
 * ```ts
 * for (const node of estimate.nodes) console.log(node.id, node.title, node.usd.max);
 * ```
 */
export interface PricedNode {
  /** The node's id in the API-format workflow (`outer:inner` inside an expanded subgraph). */
  id: string;
  /** The node type (`class_type`). */
  classType: string;
  /** The node's title (`_meta.title`), else the type's display name, else its type. */
  title: string;
  /**
   * The badge's result as the server defines it (`{type: 'usd', usd}`, `{type: 'range_usd',
   * min_usd, max_usd}`, `{type: 'list_usd', usd: [...]}`, each with an optional `format`), a plain
   * JSON copy.
   */
  price: Record<string, unknown>;
  /** What the node counts for in the total, in US dollars. */
  usd: CostRange;
}

/**
 * A partner node the total could not count, and why.
 *
 * @example
 * ```ts
 * for (const node of estimate.unpriced) console.log(`${node.id} (${node.classType}): ${node.reason}`);
 * ```
 */
export interface UnpricedNode {
  /** The node's id in the API-format workflow. */
  id: string;
  /** The node type (`class_type`). */
  classType: string;
  /** Why it has no price: no badge, a text badge, a rate (`/second`), a failing or over-long expression... */
  reason: string;
}

/**
 * What a workflow will cost before it is sent, from the price badges of its partner-API nodes
 * (docs/cost.md). Nodes that are not partner nodes cost nothing here.
 *
 * @example
 * ```ts
 * const estimate = await cloud.estimateCost(workflow);
 * console.log(`$${estimate.usd.min}-${estimate.usd.max}`, estimate.unpriced.length ? 'incomplete' : '');
 * ```
 */
export interface CostEstimate {
  /** The run's total in US dollars: the sum of the priced nodes' ranges. */
  usd: CostRange;
  /** The same in credits (`usd` times the client's `creditsPerUsd`). */
  credits: CostRange;
  /** The priced partner nodes, in workflow order. */
  nodes: PricedNode[];
  /** The partner nodes the total does not count: when any, the total is a lower bound. */
  unpriced: UnpricedNode[];
}

/**
 * A budget: the most a run may cost, in US dollars.
 *
 * @example
 * ```ts
 * await cloud.runWorkflow(workflow, { maxCost: { usd: 0.5 } });
 * ```
 */
export interface CostLimit {
  /** The most the run may cost, in US dollars; an estimate's `usd.max` is compared with it. */
  usd: number;
}
