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
  /** The link's id, as nodes' `inputs[].link` and `outputs[].links` name it. */
  id: number;
  /** The node the link comes from. */
  origin_id: UiNodeId;
  /** The output slot of that node, from 0. */
  origin_slot: number;
  /** The node the link goes to. */
  target_id: UiNodeId;
  /** The input slot of that node, from 0. */
  target_slot: number;
  /** The type of the value carried (`MODEL`, `IMAGE`...). */
  type?: unknown;
  /** Any other field the file has, kept as it is. */
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
  /** The node's id in the graph (the API-format node id after conversion). */
  id: UiNodeId;
  /** The node type (`KSampler`), a subgraph id, or a virtual node (`Note`, `Reroute`, `PrimitiveNode`...). */
  type: string;
  /** 0 always, 2 muted (never), 4 bypassed. */
  mode?: number;
  /** The title the person gave the node; becomes `_meta.title`. */
  title?: string;
  /** The node's input slots, linked or not. */
  inputs?: {
    /** The input's name. */
    name: string;
    /** The type it takes (`MODEL`, `INT`...). */
    type?: unknown;
    /** The id of the link plugged into it; `null` or absent when none. */
    link?: number | null;
    /** Set when the input is a widget converted to an input: the widget's name. */
    widget?: {
      /** The widget's name. */
      name: string;
    };
    /** Any other field the file has, kept as it is. */
    [key: string]: unknown;
  }[];
  /** The node's output slots. */
  outputs?: {
    /** The output's name. */
    name?: string;
    /** The type it gives (`IMAGE`...). */
    type?: unknown;
    /** The ids of the links leaving this output. */
    links?: number[] | null;
    /** Any other field the file has, kept as it is. */
    [key: string]: unknown;
  }[];
  /** The widget values in widget order (or, for some node packs, by name). */
  widgets_values?: unknown[] | Record<string, unknown>;
  /** The node's editor properties (`Node name for S&R`...). */
  properties?: Record<string, unknown>;
  /** Any other field the file has, kept as it is. */
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
  /** Every node of the graph. */
  nodes: UiNode[];
  /** Every link between nodes, in the array form (older files) or the object form. */
  links: (UiLinkArray | UiLinkObject)[];
  /** The file format's version (`0.4`, `1`). */
  version?: number;
  /** The highest node id used (older files). */
  last_node_id?: number;
  /** The highest link id used (older files). */
  last_link_id?: number;
  /** The editor's counters (newer files). */
  state?: {
    /** The highest node id used. */
    lastNodeId?: number;
    /** Any other counter, kept as it is. */
    [key: string]: unknown;
  };
  /** Editor extras: `groupNodes` holds the group nodes' definitions in older files. */
  extra?: Record<string, unknown>;
  /** Reusable parts of the graph (newer files). */
  definitions?: {
    /** The subgraphs: a node whose `type` is a subgraph's id uses it. */
    subgraphs?: unknown[];
    /** Any other definition, kept as it is. */
    [key: string]: unknown;
  };
  /** Any other field the file has, kept as it is. */
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
