import type { Workflow } from '../shared/types.js';
import type { ObjectInfo } from './validate.js';

/**
 * The ids of a workflow's output nodes: those whose definition says `output_node`, or, without
 * the definitions (or for a type they lack), the nodes whose outputs no other node takes (the
 * server runs only what leads to an output node, so an output node is almost always such a sink).
 *
 * @example
 * ```ts
 * outputNodesOf({ '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } }); // ['2']
 * ```
 */
export function outputNodesOf(workflow: Workflow, info?: ObjectInfo): string[] {
  const consumed = new Set<string>();
  for (const node of Object.values(workflow)) {
    for (const value of Object.values(node.inputs)) {
      // A link is [source id, output slot] (docs/workflows.md).
      if (Array.isArray(value) && value.length === 2 && (typeof value[0] === 'string' || typeof value[0] === 'number') && typeof value[1] === 'number') consumed.add(String(value[0]));
    }
  }
  return Object.entries(workflow)
    .filter(([id, node]) => {
      const definition = info && Object.hasOwn(info, node.class_type) ? info[node.class_type] : undefined;
      return definition ? definition.output_node === true : !consumed.has(id);
    })
    .map(([id]) => id);
}
