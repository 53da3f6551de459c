// Legacy group nodes (`workflow>Name`, older `workflow/Name`; their definition in
// extra.groupNodes) as the web UI reads them: its groupNode extension builds one node type per
// definition (GroupNodeConfig: the inner nodes' widgets, then their unlinked inputs, become the
// group's; converted widgets come last; outputs linked inside the group are hidden) and, when it
// makes the prompt, gives the inner nodes the ids `<group node id>:<index in the definition>`
// (GroupNodeHandler.getInnerNodes), with the group node's widget values written into the inner
// widgets they stand for. Here each group node becomes a subgraph of its own whose inner node ids
// are those indexes, so the subgraph expansion yields the same prompt; see docs/workflows.md.
import type { ObjectInfo } from './validate.js';
import { WorkflowConversionError } from './errors.js';
import { isRecord, own } from '../../core/index.js';
import type { Widget } from './model.js';
import { createWidgets, hasWidget, templateOf, toSpecV2, type InputSpecV2 } from './node-template.js';
import { setWidgetValues } from './widget-values.js';

/** Marks a subgraph definition made from a group node: its inner ids are indexes and are kept. */
export const GROUP_DEFINITION: unique symbol = Symbol('group node definition');

type Link = [origin: number, originSlot: number, target: number, targetSlot: number];

/** An input or output of the group node: the inner node's index and slot it stands for. */
interface GroupSlot {
  name: string;
  type: unknown;
  node: number;
  slot: number;
}

/** What one group definition exposes, in the order the web UI builds it: `groupShape()`'s result. */
type GroupShape = ReturnType<typeof groupShape>;

/** More slots than any node has: a link beyond it is refused rather than allocated. */
const MAX_SLOTS = 1024;

/** A legacy group node's type: `workflow>Name`, in older files `workflow/Name`. */
export const isGroupType = (type: string) => type.startsWith('workflow>') || type.startsWith('workflow/');

/**
 * Rewrites every group node of a UI-format workflow as a subgraph instance with a definition of
 * its own (returned in `definitions.subgraphs`); a workflow without group nodes comes back as it is.
 *
 * @example
 * ```ts
 * const data = expandGroupNodes(uiWorkflow, objectInfo);
 * ```
 */
export function expandGroupNodes(data: Record<string, unknown>, objectInfo: ObjectInfo): Record<string, unknown> {
  const groups = own(own(data, 'extra'), 'groupNodes');
  if (!Array.isArray(data.nodes) || !isRecord(groups)) return data;
  const shapes = new Map<string, GroupShape>();
  const added: Record<string | symbol, unknown>[] = [];
  const nodes = data.nodes.map((raw: unknown) => {
    if (!isRecord(raw) || typeof raw.type !== 'string' || !isGroupType(raw.type)) return raw;
    const name = raw.type.slice('workflow>'.length);
    const definition = own(groups, name);
    if (!isRecord(definition)) return raw;
    let shape = shapes.get(name);
    if (!shape) shapes.set(name, (shape = groupShape(raw, definition, objectInfo, exposedInputs(data.nodes as unknown[], name))));
    const id = `${raw.type}#${String(raw.id)}`;
    added.push(instanceDefinition(id, raw, shape));
    const inputs = Array.isArray(raw.inputs) ? raw.inputs : [];
    inputs.slice(shape.inputs.length).forEach((input) => {
      if (own(input, 'link') != null) fail(raw, `an input of the group node beyond its definition's (${String(own(input, 'name'))}) is linked`, 'Convert the group node to nodes in the web UI and save the workflow again');
    });
    return { ...raw, type: id, inputs: shape.inputs.map((input, at) => ({ name: input.name, type: input.type, link: own(inputs[at], 'link') ?? null })) };
  });
  if (added.length === 0) return data;
  const existing = own(own(data, 'definitions'), 'subgraphs');
  return { ...data, nodes, definitions: { ...(isRecord(data.definitions) ? data.definitions : {}), subgraphs: [...(Array.isArray(existing) ? existing : []), ...added] } };
}

function fail(node: Record<string, unknown>, problem: string, fix: string): never {
  throw new WorkflowConversionError('unsupported_node', { nodeId: String(node.id), nodeType: String(node.type), nodeTitle: typeof node.title === 'string' ? node.title : undefined }, problem, fix);
}

/** The names of the saved inputs of every instance of the group `name`. */
function exposedInputs(nodes: unknown[], name: string): Set<string> {
  const names = new Set<string>();
  for (const node of nodes) {
    if (!isRecord(node) || typeof node.type !== 'string' || !isGroupType(node.type) || node.type.slice('workflow>'.length) !== name) continue;
    for (const input of Array.isArray(node.inputs) ? node.inputs : []) if (typeof own(input, 'name') === 'string') names.add(own(input, 'name') as string);
  }
  return names;
}

/** GroupNodeConfig.registerType: the group's widgets, inputs and outputs. */
function groupShape(instance: Record<string, unknown>, definition: Record<string, unknown>, objectInfo: ObjectInfo, exposed: Set<string>) {
  const nodes = (Array.isArray(definition.nodes) ? definition.nodes : []).map((node: unknown) => (isRecord(node) ? node : {}));
  // Links whose origin is outside the group (null) are left out, as GroupNodeConfig.getLinks does;
  // so are links naming no node of the group or an absurd slot (a hostile file).
  const below = (end: number) => (value: unknown) => Number.isInteger(value) && (value as number) >= 0 && (value as number) < end;
  const [nodeOk, slotOk] = [below(nodes.length), below(MAX_SLOTS)];
  const links = (Array.isArray(definition.links) ? definition.links : []).filter((l: unknown): l is Link => Array.isArray(l) && nodeOk(l[0]) && slotOk(l[1]) && nodeOk(l[2]) && slotOk(l[3])) as Link[];
  const linkTo = (node: number, slot: number) => links.find((l) => l[2] === node && l[3] === slot);
  const linkedFrom = (node: number, slot: number) => links.some((l) => l[0] === node && l[1] === slot);
  const external = new Set((Array.isArray(definition.external) ? definition.external : []).map((e: unknown) => (Array.isArray(e) ? `${String(e[0])}:${String(e[1])}` : '')));
  const config = (index: number) => own(definition.config, String(index));
  const inputConfig = (index: number, input: string) => own(own(config(index), 'input'), input);
  // Each inner node's saved widget values by widget name (LGraphNode.configure); the group node's
  // widgets, and the inner widget each stands for; its inputs and outputs.
  const savedValues = nodes.map((node) => savedByName(objectInfo, node));
  const groupWidgets: { widget: Widget; node: number; input: string }[] = [];
  const shape = { nodes, saved: savedValues, links, widgets: groupWidgets, inputs: [] as GroupSlot[], outputs: [] as GroupSlot[] };
  const seenInputs = new Map<string, number>();
  const seenOutputs = new Set<string>();
  const afterAll: (() => void)[] = [];

  // getInputConfig: the label or the configured name, prefixed by the node's title when taken.
  const nameOf = (node: Record<string, unknown>, index: number, input: string) => {
    const custom = own(inputConfig(index, input), 'name');
    const label = own((Array.isArray(node.inputs) ? node.inputs : []).find((slot) => own(slot, 'name') === input), 'label');
    let name = typeof custom === 'string' ? custom : typeof label === 'string' ? label : input;
    let key = name;
    if (seenInputs.has(name)) {
      const prefix = `${typeof node.title === 'string' ? node.title : String(node.type)} `;
      key = name = `${prefix}${input}`;
      if (seenInputs.has(name)) name = `${prefix}${seenInputs.get(name)} ${input}`;
    }
    seenInputs.set(key, (seenInputs.get(key) ?? 1) + 1);
    return name;
  };
  const hidden = (index: number, input: string) => own(inputConfig(index, input), 'visible') === false;
  // A widget renamed by the group's config (cfg_conds shown as cfg_text) still stands for its inner
  // widget, and a seed keeps its control_after_generate (getInputConfig goes by the inner name).
  const addWidgets = (spec: InputSpecV2, name: string, index: number) => {
    const seed = (spec.name === 'seed' || spec.name === 'noise_seed') && spec.options.control_after_generate === undefined;
    const options = seed ? { ...spec.options, control_after_generate: true } : spec.options;
    for (const widget of createWidgets({ ...spec, name, options })) shape.widgets.push({ widget, node: index, input: widget.name === name ? spec.name : '' });
  };
  // A socket saved for a widget is a widget converted to an input (GroupNodeConfig.processWidgetInputs)
  // when a link of the group reaches it or an instance shows it as an input. Otherwise it is a socket
  // the web UI (frontend 1.16 and later) gives every widget, written into the definition when the
  // workflow was saved: the group made with it showed the widget, and its instances saved its value.
  const converted = (index: number, spec: InputSpecV2, at: number) => {
    if (links.some((l) => l[2] === index && l[3] === at)) return true;
    const custom = own(inputConfig(index, spec.name), 'name');
    return exposed.has(typeof custom === 'string' ? custom : spec.name) || [...exposed].some((input) => input.endsWith(` ${spec.name}`));
  };

  nodes.forEach((node, index) => {
    const type = String(node.type);
    if (type === 'PrimitiveNode' || isGroupType(type)) fail(instance, `its group "${String(instance.type)}" holds a ${type === 'PrimitiveNode' ? 'PrimitiveNode' : 'group node'}, which is not converted`, 'Convert the group node to nodes in the web UI and save the workflow again');
    const specs = type === 'Reroute' ? rerouteSpecs(nodes, links, index) : specsOf(objectInfo, type);
    if (!specs) return;
    const saved = Array.isArray(node.inputs) ? node.inputs : [];
    const slots: InputSpecV2[] = [];
    const widgets: [number, InputSpecV2][] = [];
    for (const spec of specs.inputs) {
      // A widget converted to an input: its saved slot names the widget.
      const at = saved.findIndex((slot) => own(slot, 'name') === spec.name && own(own(slot, 'widget'), 'name') === spec.name);
      if (!hasWidget(spec.type) || spec.options.forceInput) slots.push(spec);
      else if (at > -1 && converted(index, spec, at)) widgets.push([at, spec]);
      else addWidgets(spec, nameOf(node, index, spec.name), index);
    }
    slots.forEach((spec, slot) => {
      if (linkTo(index, slot)) return;
      const name = nameOf(node, index, spec.name);
      if (!hidden(index, spec.name)) shape.inputs.push({ name, type: spec.type, node: index, slot });
    });
    // Widgets converted to inputs come after every other input, in the order they were converted.
    afterAll.push(() => {
      widgets.sort((a, b) => a[0] - b[0]).forEach(([, spec], at) => {
        if (linkTo(index, slots.length + at)) return;
        shape.inputs.push({ name: nameOf(node, index, spec.name), type: spec.type, node: index, slot: slots.length + at });
      });
    });
    specs.outputs.forEach(({ name: outputName, type }, slot) => {
      const visible = own(own(own(config(index), 'output'), String(slot)), 'visible');
      if (!(typeof visible === 'boolean' ? visible : !linkedFrom(index, slot) || external.has(`${index}:${slot}`))) return;
      let name = outputName;
      if (seenOutputs.has(name)) name = `${typeof node.title === 'string' ? node.title : type} ${name}`;
      seenOutputs.add(name);
      shape.outputs.push({ node: index, slot, type, name });
    });
  });
  for (const step of afterAll) step();
  return shape;
}

function specsOf(objectInfo: ObjectInfo, type: string): { inputs: InputSpecV2[]; outputs: { name: string; type: unknown }[] } | undefined {
  // A type the server lacks, or a note: no inputs or outputs of the group (the web UI skips it).
  const template = templateOf(objectInfo, type);
  return template ? { inputs: [...template.specs.values()], outputs: template.outputs } : undefined;
}

/** GroupNodeConfig.getNodeDef for a reroute: none when used inside the group only, else one input of the type it carries. */
function rerouteSpecs(nodes: Record<string, unknown>[], links: Link[], index: number) {
  const from = links.filter((l) => l[0] === index);
  const to = links.find((l) => l[2] === index);
  if (from.length > 0 && to) return undefined;
  let type: unknown = '*';
  for (const [, , target, slot] of from) if (type === '*') type = own(own(own(nodes[target], 'inputs'), slot), 'type') ?? '*';
  const name = String(type);
  return { inputs: [toSpecV2(name, [name, { forceInput: true }], false)], outputs: [{ name: '', type }] };
}

/** The subgraph definition one group node expands to, with its widget values in the inner nodes. */
function instanceDefinition(id: string, instance: Record<string, unknown>, shape: GroupShape): Record<string | symbol, unknown> {
  // The group node's own widgets take its saved values, in order (LGraphNode.configure).
  const widgets = shape.widgets.map(({ widget }) => ({ ...widget }));
  setWidgetValues(widgets, null, instance.widgets_values);
  const values = new Map<number, Record<string, unknown>>();
  shape.widgets.forEach(({ node, input }, at) => {
    if (!input) return;
    const own = values.get(node) ?? {};
    own[input] = widgets[at]!.value;
    values.set(node, own);
  });
  let nextLink = 0;
  const links: Record<string, unknown>[] = [];
  const nodes = shape.nodes.map((node, index) => ({
    ...node,
    id: index,
    inputs: (Array.isArray(node.inputs) ? node.inputs : []).map((slot: unknown) => ({ ...(isRecord(slot) ? slot : {}), link: null })),
    outputs: (Array.isArray(node.outputs) ? node.outputs : []).map((slot: unknown) => ({ ...(isRecord(slot) ? slot : {}), links: [] })),
    // updateInnerWidgets: every inner widget the group shows takes the group node's value.
    ...(values.has(index) || Object.keys(shape.saved[index]!).length > 0 ? { widgets_values: { ...shape.saved[index], ...values.get(index) } } : {}),
  }));
  const link = (origin: number, originSlot: number, target: number, targetSlot: number) => {
    const linkId = ++nextLink;
    links.push({ id: linkId, origin_id: origin, origin_slot: originSlot, target_id: target, target_slot: targetSlot });
    if (target >= 0) {
      const inputs = nodes[target]!.inputs as Record<string, unknown>[];
      inputs[targetSlot] = { ...(inputs[targetSlot] ?? { name: '', type: '*' }), link: linkId };
    }
    if (origin >= 0) ((nodes[origin]!.outputs as Record<string, unknown>[])[originSlot] ??= { links: [] }).links = [...((own(nodes[origin]!.outputs, originSlot) as { links: unknown[] }).links ?? []), linkId];
    return linkId;
  };
  for (const [origin, originSlot, target, targetSlot] of shape.links) link(origin, originSlot, target, targetSlot);
  const inputs = shape.inputs.map((input, at) => ({ name: input.name, type: input.type, linkIds: [link(-10, at, input.node, input.slot)] }));
  const outputs = shape.outputs.map((output, at) => ({ name: output.name, type: output.type, linkIds: [link(output.node, output.slot, -20, at)] }));
  return { id, name: String(instance.type).slice('workflow>'.length), nodes, links, inputs, outputs, [GROUP_DEFINITION]: true };
}

/** The saved widget values of an inner node by widget name. */
function savedByName(objectInfo: ObjectInfo, node: Record<string, unknown>): Record<string, unknown> {
  const template = node.widgets_values === undefined ? null : templateOf(objectInfo, String(node.type));
  if (!template) return {};
  const widgets = template.widgets.map((widget) => ({ ...widget }));
  setWidgetValues(widgets, template, node.widgets_values);
  const byName: Record<string, unknown> = {};
  for (const widget of widgets) if (widget.persist && widget.name) byName[widget.name] = widget.value;
  return byName;
}
