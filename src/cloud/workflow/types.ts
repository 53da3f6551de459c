/**
 * A link of a UI-format workflow in the array form of version 0.4 files:
 * `[id, originNodeId, originSlot, targetNodeId, targetSlot, type]`.
 *
 * @example
 * ```ts
 * const link: UiLinkArray = [7, 4, 0, 3, 0, 'MODEL'];
 * ```
 */
export type UiLinkArray = [id: number, originId: UiNodeId, originSlot: number, targetId: UiNodeId, targetSlot: number, type?: unknown, ...rest: unknown[]];

/**
 * A link of a UI-format workflow in the object form (newer files and subgraph definitions).
 *
 * @example
 * ```ts
 * const link: UiLinkObject = { id: 7, origin_id: 4, origin_slot: 0, target_id: 3, target_slot: 0, type: 'MODEL' };
 * ```
 */
export interface UiLinkObject {
  id: number;
  origin_id: UiNodeId;
  origin_slot: number;
  target_id: UiNodeId;
  target_slot: number;
  type?: unknown;
  [key: string]: unknown;
}

/**
 * A node id of a UI-format workflow (a number in files the web UI writes).
 *
 * @example
 * ```ts
 * const id: UiNodeId = 3;
 * ```
 */
export type UiNodeId = number | string;

/**
 * One node of a UI-format workflow, as the web UI saves it (only the fields the conversion reads
 * are typed; the rest is kept as it is).
 *
 * @example
 * ```ts
 * const node: UiNode = { id: 3, type: 'KSampler', mode: 0, widgets_values: [42, 'fixed', 20, 8, 'euler', 'normal', 1] };
 * ```
 */
export interface UiNode {
  id: UiNodeId;
  type: string;
  /** 0 always, 2 muted (never), 4 bypassed. */
  mode?: number;
  title?: string;
  inputs?: { name: string; type?: unknown; link?: number | null; widget?: { name: string }; [key: string]: unknown }[];
  outputs?: { name?: string; type?: unknown; links?: number[] | null; [key: string]: unknown }[];
  widgets_values?: unknown[] | Record<string, unknown>;
  properties?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * A workflow as a person saves it from the web UI (the "UI format", a litegraph graph).
 *
 * @example
 * ```ts
 * const ui = JSON.parse(await readFile('workflow.json', 'utf8')) as UiWorkflow;
 * const workflow = toApiWorkflow(ui, await cloud.nodes.list());
 * ```
 */
export interface UiWorkflow {
  nodes: UiNode[];
  links: (UiLinkArray | UiLinkObject)[];
  version?: number;
  last_node_id?: number;
  last_link_id?: number;
  state?: { lastNodeId?: number; [key: string]: unknown };
  extra?: Record<string, unknown>;
  definitions?: { subgraphs?: unknown[]; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * Options of `toApiWorkflow()`.
 *
 * @example
 * ```ts
 * toApiWorkflow(ui, info, { random: () => 0 }); // always the first choice of `{a|b}` prompts
 * ```
 */
export interface ToApiWorkflowOptions {
  /**
   * Draws the choice of each `{a|b|c}` group in text inputs that allow dynamic prompts, as the
   * web UI does when it queues a prompt.
   * @default Math.random
   */
  random?: (() => number) | undefined;
  /**
   * The time used for `%date:...%` in the file name prefixes of save nodes.
   * @default new Date()
   */
  now?: Date | undefined;
}
