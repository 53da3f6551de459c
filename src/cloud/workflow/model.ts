// The in-memory graph the conversion works on: a small mirror of what the web UI builds when it
// loads a UI-format workflow (nodes with their sockets and widgets, links by id). Every map keyed
// by data from the file is a Map or a prototype-free object.
import type { UiNodeId } from './types.js';

/** `mode` values the conversion reads (litegraph's LGraphEventMode). */
export const MODE_NEVER = 2;
export const MODE_BYPASS = 4;

/** Origin id of links that enter a subgraph from its input node, and target id of links leaving it. */
export const SUBGRAPH_INPUT_ID = -10;
export const SUBGRAPH_OUTPUT_ID = -20;

export interface Widget {
  name: string;
  value: unknown;
  /** Takes a slot of `widgets_values` (litegraph `widget.serialize !== false`). */
  persist: boolean;
  /** Goes into the prompt (`widget.options.serialize !== false`). */
  prompt: boolean;
  /** The widget kind, `curve` values are tagged in the prompt. */
  kind: string;
  /** How the value is rewritten when the prompt is made. */
  transform?: 'dynamic-prompt' | 'filename-prefix' | undefined;
  /** A combo whose value adds widgets after it (V3 dynamic combos, VideoHelperSuite formats). */
  dynamic?: ((value: unknown) => Widget[]) | undefined;
  /** What the widget's callback makes of a value set through it (a primitive's): rounding, clamping. */
  normalize?: ((value: unknown) => unknown) | undefined;
  /** The combo that added this widget, when its name does not say so (`combo.input` does). */
  owner?: string | undefined;
}

export interface InputSlot {
  name: string;
  type: unknown;
  link: unknown;
  /** Set when the socket belongs to a widget of that name. */
  widgetName?: string | undefined;
}

export interface OutputSlot {
  name: unknown;
  type: unknown;
  links: unknown[] | null;
}

export interface Link {
  id: unknown;
  origin_id: UiNodeId;
  origin_slot: number;
  target_id: UiNodeId;
  target_slot: number;
  type: unknown;
}

export interface GraphNode {
  id: UiNodeId;
  type: string;
  title: unknown;
  mode: number;
  kind: 'comfy' | 'reroute' | 'note' | 'primitive' | 'subgraph' | 'missing';
  /** `class_type` in the prompt (comfy nodes). */
  comfyClass?: string | undefined;
  inputs: InputSlot[];
  outputs: OutputSlot[];
  widgets: Widget[];
  properties: Record<string, unknown>;
  /** `widgets_values` as saved (primitives read it after load). */
  savedValues: unknown;
  graph: Graph;
  /** The definition a subgraph instance expands to. */
  subgraph?: SubgraphDefinition | undefined;
}

export interface Graph {
  nodes: GraphNode[];
  byId: Map<string, GraphNode>;
  links: Map<unknown, Link>;
}

export interface SubgraphSlot {
  name: string;
  type: unknown;
  linkIds: unknown[];
}

export interface SubgraphDefinition {
  id: string;
  name: string;
  inputs: SubgraphSlot[];
  outputs: SubgraphSlot[];
  graph: Graph;
}

/**
 * The node a link points to; ids are compared as strings, as litegraph's node table does.
 */
export function getNodeById(graph: Graph, id: unknown): GraphNode | undefined {
  if (typeof id !== 'number' && typeof id !== 'string') return undefined;
  return graph.byId.get(String(id));
}

export function isVirtual(node: GraphNode): boolean {
  return node.kind === 'reroute' || node.kind === 'note' || node.kind === 'primitive' || node.kind === 'subgraph';
}
