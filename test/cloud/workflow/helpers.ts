import type { UiWorkflow } from '../../../src/cloud/workflow/index.js';

type NodeSpec = { id: number; type: string; mode?: number; title?: string; inputs?: [name: string, type: string, link: number | null, widget?: string][]; outputs?: [type: string, links: number[]][]; values?: unknown; properties?: Record<string, unknown> };

/** A UI-format node, written short: inputs as [name, type, link, widget?], outputs as [type, links]. */
export function node(spec: NodeSpec): UiWorkflow['nodes'][number] {
  return {
    id: spec.id,
    type: spec.type,
    mode: spec.mode ?? 0,
    ...(spec.title === undefined ? {} : { title: spec.title }),
    inputs: (spec.inputs ?? []).map(([name, type, link, widget]) => ({ name, type, link, ...(widget ? { widget: { name: widget } } : {}) })),
    outputs: (spec.outputs ?? []).map(([type, links]) => ({ name: type, type, links })),
    properties: spec.properties ?? {},
    ...(spec.values === undefined ? {} : { widgets_values: spec.values as unknown[] }),
  };
}

/** A version 0.4 UI workflow with array links `[id, from, fromSlot, to, toSlot, type]`. */
export function workflow(nodes: UiWorkflow['nodes'], links: [number, number, number, number, number, string][], extra: Partial<UiWorkflow> = {}): UiWorkflow {
  return { last_node_id: Math.max(0, ...nodes.map((n) => Number(n.id))), last_link_id: links.length, nodes, links, groups: [], config: {}, extra: {}, version: 0.4, ...extra };
}
