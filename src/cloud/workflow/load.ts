// Loads a UI-format workflow the way the web UI does before it can make a prompt: links of both
// shapes, subgraph definitions (with duplicate inner node ids remapped), nodes created from their
// definitions and configured from the saved data. Follows LGraph.configure, LGraphNode.configure,
// the ComfyNode configure override of the frontend's litegraphService, migrateWidgetsValues and
// fixLinkInputSlots (utils/litegraphUtil), and the widget-input clean-up of widgetInputs.
import type { ObjectInfo } from './validate.js';
import { WorkflowConversionError } from './errors.js';
import { isRecord, own } from '../../core/index.js';
import type { Graph, GraphNode, InputSlot, Link, OutputSlot, SubgraphDefinition, SubgraphSlot } from './model.js';
import { GROUP_DEFINITION } from './group-nodes.js';
import { templateOf, type NodeTemplate } from './node-template.js';
import { setWidgetValues } from './widget-values.js';
import type { UiNodeId } from './types.js';

/** What loading one workflow shares: the definitions, the templates made of them, the subgraphs, the last node id. */
function loadContext(objectInfo: ObjectInfo, lastNodeId: unknown) {
  const state = { lastNodeId: typeof lastNodeId === 'number' ? lastNodeId : 0 };
  return { objectInfo, templates: new Map<string, NodeTemplate | null>(), subgraphs: new Map<string, SubgraphDefinition>(), state };
}
type LoadContext = ReturnType<typeof loadContext>;

// The web UI's own nodes, with the names of their sockets (all of type `*`).
const FRONTEND_NODES = new Map<string, { kind: GraphNode['kind']; title: string; inputs?: string[]; outputs?: string[] }>([
  ['Reroute', { kind: 'reroute', title: 'Reroute', inputs: [''], outputs: [''] }],
  ['Note', { kind: 'note', title: 'Note' }],
  ['MarkdownNote', { kind: 'note', title: 'Markdown Note' }],
  ['PrimitiveNode', { kind: 'primitive', title: 'Primitive', outputs: ['connect to widget input'] }],
]);

function fail(problem: string, fix: string, received?: unknown): never {
  throw new WorkflowConversionError('invalid_workflow', undefined, problem, fix, received);
}

function templateFor(context: LoadContext, type: string): NodeTemplate | null {
  let template = context.templates.get(type);
  if (template === undefined) context.templates.set(type, (template = templateOf(context.objectInfo, type)));
  return template;
}

/** A link in either saved shape; anything else is skipped, as litegraph would fail to use it. */
function parseLink(raw: unknown): Link | undefined {
  if (Array.isArray(raw)) {
    if (raw.length < 5) return undefined;
    return { id: raw[0], origin_id: raw[1] as UiNodeId, origin_slot: raw[2] as number, target_id: raw[3] as UiNodeId, target_slot: raw[4] as number, type: raw[5] };
  }
  if (!isRecord(raw)) return undefined;
  return { id: raw.id, origin_id: raw.origin_id as UiNodeId, origin_slot: raw.origin_slot as number, target_id: raw.target_id as UiNodeId, target_slot: raw.target_slot as number, type: raw.type };
}

const parseLinks = (links: unknown): Link[] => (Array.isArray(links) ? links : []).map(parseLink).filter((link) => link !== undefined);

function emptyGraph(): Graph {
  return { nodes: [], byId: new Map(), links: new Map() };
}

/** Builds the root graph of a UI-format workflow. */
export function loadWorkflow(data: Record<string, unknown>, objectInfo: ObjectInfo): Graph {
  const lastNodeId = data.version === 0.4 || data.version === undefined ? data.last_node_id : own(data.state, 'lastNodeId');
  const context = loadContext(objectInfo, lastNodeId);
  // toApiWorkflow() passes a UI-format workflow only (isUiWorkflow: `nodes` is an array).
  const rootNodes = (data.nodes as unknown[]).map((raw, index) => checkNodeData(raw, `nodes[${index}]`));

  const definitions = own(data.definitions, 'subgraphs');
  if (Array.isArray(definitions)) loadSubgraphs(context, definitions, rootNodes);

  const graph = emptyGraph();
  for (const link of parseLinks(data.links)) graph.links.set(link.id, link);
  addNodes(context, graph, rootNodes);
  return graph;
}

function checkNodeData(raw: unknown, where: string): Record<string, unknown> {
  if (!isRecord(raw)) fail(`${where} is not a node object`, 'Pass the JSON file saved from the web UI', raw);
  if (typeof raw.id !== 'number' && typeof raw.id !== 'string') fail(`${where} has no number or string "id"`, 'Give every node an id', raw.id);
  if (typeof raw.type !== 'string') fail(`${where} (id ${String(raw.id)}) has no string "type"`, 'Give every node its node type', raw.type);
  // A shallow copy: ids may be remapped and the caller's object must not change.
  return { ...raw };
}

// deduplicateSubgraphNodeIds: an inner node id already used by the root graph or an earlier
// definition gets the next free id, so `outer:inner` execution ids stay unique.
function loadSubgraphs(context: LoadContext, definitions: unknown[], rootNodes: Record<string, unknown>[]): void {
  const used = new Set<number>();
  for (const node of rootNodes) if (typeof node.id === 'number') used.add(node.id);
  const parsed: { id: string; nodes: Record<string, unknown>[]; links: Link[] }[] = [];
  for (const [index, raw] of definitions.entries()) {
    if (!isRecord(raw) || typeof raw.id !== 'string') fail(`definitions.subgraphs[${index}] has no string "id"`, 'Pass the JSON file saved from the web UI', raw);
    const nodes = (Array.isArray(raw.nodes) ? raw.nodes : []).map((node, at) => checkNodeData(node, `subgraph ${raw.id as string} nodes[${at}]`));
    const links = parseLinks(raw.links);
    const remap = new Map<UiNodeId, number>();
    // A group node's inner ids are their indexes in its definition, `outer:index` in the prompt.
    for (const node of (raw as Record<symbol, unknown>)[GROUP_DEFINITION] === true ? [] : nodes) {
      if (typeof node.id !== 'number') continue;
      let id = node.id;
      if (used.has(id)) {
        id = context.state.lastNodeId + 1;
        while (used.has(id)) id++;
        remap.set(node.id, id);
        node.id = id;
      }
      used.add(id);
      context.state.lastNodeId = Math.max(context.state.lastNodeId, id);
    }
    for (const link of links) {
      link.origin_id = remap.get(link.origin_id) ?? link.origin_id;
      link.target_id = remap.get(link.target_id) ?? link.target_id;
    }
    parsed.push({ id: raw.id, nodes, links });
    const name = typeof raw.name === 'string' ? raw.name : '';
    context.subgraphs.set(raw.id, { id: raw.id, name, inputs: slotsOf(raw.inputs), outputs: slotsOf(raw.outputs), graph: emptyGraph() });
  }
  // Every definition exists before any node is made: a subgraph's nodes may use a later one.
  for (const { id, nodes, links } of parsed) {
    const definition = context.subgraphs.get(id)!;
    for (const link of links) definition.graph.links.set(link.id, link);
    addNodes(context, definition.graph, nodes);
  }
}

function slotsOf(raw: unknown): SubgraphSlot[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isRecord).map((slot) => ({ name: String(slot.name ?? ''), type: slot.type, linkIds: Array.isArray(slot.linkIds) ? slot.linkIds : [] }));
}

function addNodes(context: LoadContext, graph: Graph, nodesData: Record<string, unknown>[]): void {
  const created: [GraphNode, Record<string, unknown>][] = [];
  for (const data of nodesData) {
    const node = createNode(context, graph, data);
    // LGraph.add: a duplicate id (or -1) gets the next free id.
    if (node.id === -1 || graph.byId.has(String(node.id))) node.id = ++context.state.lastNodeId;
    else if (typeof node.id === 'number' && node.id > context.state.lastNodeId) context.state.lastNodeId = node.id;
    graph.nodes.push(node);
    graph.byId.set(String(node.id), node);
    created.push([node, data]);
  }
  for (const [node, data] of created) configureNode(context, node, data);
  fixLinkInputSlots(graph);
  for (const node of graph.nodes) dropOrphanWidgetInputs(node);
}

function createNode(context: LoadContext, graph: Graph, data: Record<string, unknown>): GraphNode {
  const type = data.type as string;
  const node: GraphNode = { id: data.id as UiNodeId, type, title: '', mode: 0, kind: 'missing', inputs: [], outputs: [], widgets: [], properties: Object.create(null), savedValues: undefined, graph };
  const subgraph = context.subgraphs.get(type);
  const frontend = FRONTEND_NODES.get(type);
  const template = subgraph || frontend ? null : templateFor(context, type);
  if (subgraph) {
    node.kind = 'subgraph';
    node.subgraph = subgraph;
    node.title = subgraph.name;
    node.inputs = subgraph.inputs.map((slot) => ({ name: slot.name, type: slot.type, link: null }));
    node.outputs = subgraph.outputs.map((slot) => ({ name: slot.name, type: slot.type, links: null }));
  } else if (frontend) {
    node.kind = frontend.kind;
    node.title = frontend.title;
    node.inputs = (frontend.inputs ?? []).map((name) => ({ name, type: '*', link: null }));
    node.outputs = (frontend.outputs ?? []).map((name) => ({ name, type: '*', links: null }));
  } else if (template) {
    node.kind = 'comfy';
    node.comfyClass = template.className;
    node.title = template.title;
    node.inputs = template.sockets.map((socket) => ({ name: socket.name, type: socket.type, link: null, widgetName: socket.widgetName }));
    node.outputs = template.outputs.map((output) => ({ name: output.name, type: output.type, links: null }));
    node.widgets = template.widgets.map((widget) => ({ ...widget }));
    // Comfy.SaveImageExtraOutput names every other node for `%name.widget%` replacements.
    node.properties['Node name for S&R'] = type;
  }
  return node;
}

function inputOf(raw: unknown): InputSlot | undefined {
  if (!isRecord(raw)) return undefined;
  const widgetName = own(raw.widget, 'name');
  return { name: String(raw.name ?? ''), type: raw.type, link: raw.link ?? null, widgetName: typeof widgetName === 'string' ? widgetName : undefined };
}

function outputOf(raw: unknown): OutputSlot | undefined {
  if (!isRecord(raw)) return undefined;
  return { name: raw.name, type: raw.type, links: Array.isArray(raw.links) ? [...(raw.links as unknown[])] : null };
}

function configureNode(context: LoadContext, node: GraphNode, data: Record<string, unknown>): void {
  if (typeof data.mode === 'number') node.mode = data.mode;
  if (data.title) node.title = data.title;
  if (isRecord(data.properties)) for (const key of Object.keys(data.properties)) node.properties[key] = data.properties[key];
  node.savedValues = data.widgets_values;
  const savedInputs = Array.isArray(data.inputs) ? data.inputs.map(inputOf).filter((slot) => slot !== undefined) : undefined;
  const savedOutputs = Array.isArray(data.outputs) ? data.outputs.map(outputOf) : undefined;

  if (node.kind === 'comfy') {
    if (savedInputs) {
      const byName = new Map(savedInputs.map((slot) => [slot.name, slot]));
      const defined = new Set(node.inputs.map((slot) => slot.name));
      node.inputs = [
        ...node.inputs.map((slot) => {
          const saved = byName.get(slot.name);
          return saved ? { ...saved, name: slot.name, type: slot.type, widgetName: slot.widgetName ?? saved.widgetName } : slot;
        }),
        ...savedInputs.filter((slot) => !defined.has(slot.name)),
      ];
    }
    const length = Math.max(node.outputs.length, savedOutputs?.length ?? 0);
    node.outputs = Array.from({ length }, (_, index) => {
      const defined = node.outputs[index];
      const saved = savedOutputs?.[index];
      if (!defined) return saved ?? { name: undefined, type: undefined, links: null };
      return saved ? { ...saved, name: defined.name, type: defined.type } : defined;
    });
    setWidgetValues(node.widgets, templateFor(context, node.type), data.widgets_values);
    return;
  }
  if (savedInputs) node.inputs = savedInputs;
  if (savedOutputs) node.outputs = savedOutputs.map((slot) => slot ?? { name: undefined, type: undefined, links: null });
  if (node.kind === 'subgraph' && node.subgraph) bindSubgraphInputs(node, node.subgraph, savedInputs);
}

// A subgraph instance on load (litegraph SubgraphNode.configure and _rebindInputSubgraphSlots).
// The instance gets one input per definition input, in the definition's order: the saved input
// bound to it (by name and type, else by name, first come first served), or an unlinked one.
// Saved inputs that bind to nothing are dropped. Files exported from the web UI leave out
// unlinked widget inputs, and saved inputs need not follow the definition's order: links from
// inside the subgraph name a definition input, so the order must be the definition's.
//
// The instance's own widgets_values are not applied: its promoted widgets are views of the inner
// widgets and are not saved (web UI 1.45 PromotedWidgetView.serialize is false), so the inner
// nodes' saved values are what the prompt gets.
function bindSubgraphInputs(node: GraphNode, definition: SubgraphDefinition, saved: InputSlot[] | undefined): void {
  const bound = new Map<number, InputSlot>();
  const take = (input: InputSlot, match: (index: number) => boolean) => {
    const at = definition.inputs.findIndex((_, index) => !bound.has(index) && match(index));
    if (at !== -1) bound.set(at, input);
    return at !== -1;
  };
  for (const input of saved ?? []) {
    const sameType = (index: number) => definition.inputs[index]!.name === input.name && String(definition.inputs[index]!.type) === String(input.type);
    if (!take(input, sameType)) take(input, (index) => definition.inputs[index]!.name === input.name);
  }
  node.inputs = definition.inputs.map((slot, index) => {
    const input = bound.get(index);
    return input ? { ...input, name: slot.name } : { name: slot.name, type: slot.type, link: null };
  });
}

// fixLinkInputSlots: a link's target slot is the index of the input that holds it.
function fixLinkInputSlots(graph: Graph): void {
  for (const node of graph.nodes) {
    for (const [index, input] of node.inputs.entries()) {
      if (!input.link) continue;
      const link = graph.links.get(input.link);
      if (link) link.target_slot = index;
    }
  }
}

// Comfy.WidgetInputs onGraphConfigured: an input bound to a widget the node no longer has is removed.
function dropOrphanWidgetInputs(node: GraphNode): void {
  if (node.kind !== 'comfy') return;
  const widgets = new Set(node.widgets.map((widget) => widget.name));
  const orphans = node.inputs.filter((input) => input.widgetName !== undefined && !widgets.has(input.widgetName));
  if (orphans.length === 0) return;
  const { links, byId } = node.graph;
  for (const { link: id } of orphans) {
    const link = id != null ? links.get(id) : undefined;
    if (!link) continue;
    links.delete(id);
    const fed = byId.get(String(link.origin_id))?.outputs[link.origin_slot]?.links;
    const at = fed?.indexOf(id) ?? -1;
    if (at !== -1) fed!.splice(at, 1);
  }
  node.inputs = node.inputs.filter((input) => !orphans.includes(input));
  for (const [at, slot] of node.inputs.entries()) {
    const link = slot.link != null ? links.get(slot.link) : undefined;
    if (link) link.target_slot = at;
  }
}
