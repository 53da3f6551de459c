import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/index.js';
import { toApiWorkflow, WorkflowConversionError } from '../../../src/cloud/workflow/index.js';
import { objectInfo } from './fixtures/object-info.js';
import { subgraphWorkflow } from './fixtures/subgraph.js';
import { node, workflow } from './helpers.js';

function conversionError(ui: unknown): WorkflowConversionError {
  try {
    toApiWorkflow(ui, objectInfo);
  } catch (error) {
    expect(error).toBeInstanceOf(WorkflowConversionError);
    expect(error).toBeInstanceOf(ValidationError);
    return error as WorkflowConversionError;
  }
  throw new Error('expected a WorkflowConversionError');
}

describe('toApiWorkflow() errors', () => {
  it('names a node whose type the server lacks and says how to fix it', () => {
    const error = conversionError(workflow([node({ id: 7, type: 'FancyUpscaler', title: 'My upscaler' })], []));
    expect(error.code).toBe('unknown_node_type');
    expect([error.nodeId, error.nodeType, error.nodeTitle]).toEqual(['7', 'FancyUpscaler', 'My upscaler']);
    expect(error.message).toContain('node 7 (FancyUpscaler "My upscaler")');
    expect(error.message).toContain('Install the node pack');
  });

  it('accepts an unknown node type when the node is muted or bypassed', () => {
    expect(() => toApiWorkflow(workflow([node({ id: 7, type: 'FancyUpscaler', mode: 2 }), node({ id: 8, type: 'FancyUpscaler', mode: 4 })], []), objectInfo)).not.toThrow();
  });

  it('reports a link id missing from the links list', () => {
    const error = conversionError(workflow([node({ id: 3, type: 'ImageInvert', inputs: [['image', 'IMAGE', 99]] })], []));
    expect(error.code).toBe('dangling_link');
    expect(error.nodeId).toBe('3');
    expect(error.message).toContain('link 99');
  });

  it('reports a link from a node that is not in the workflow', () => {
    const error = conversionError(workflow([node({ id: 3, type: 'ImageInvert', inputs: [['image', 'IMAGE', 1]] })], [[1, 42, 0, 3, 0, 'IMAGE']]));
    expect(error.code).toBe('dangling_link');
    expect(error.message).toContain('node 42');
  });

  it('reports links that go round through reroutes', () => {
    const ui = workflow(
      [
        node({ id: 1, type: 'Reroute', inputs: [['', '*', 2]], outputs: [['IMAGE', [1, 3]]] }),
        node({ id: 2, type: 'Reroute', inputs: [['', '*', 1]], outputs: [['IMAGE', [2]]] }),
        node({ id: 3, type: 'ImageInvert', inputs: [['image', 'IMAGE', 3]] }),
      ],
      [
        [1, 1, 0, 2, 0, 'IMAGE'],
        [2, 2, 0, 1, 0, 'IMAGE'],
        [3, 1, 0, 3, 0, 'IMAGE'],
      ],
    );
    const error = conversionError(ui);
    expect(error.code).toBe('link_cycle');
    expect(error.message).toMatch(/node \d \(Reroute\)/);
  });

  it('reports links that go round through bypassed nodes', () => {
    const ui = workflow(
      [
        node({ id: 1, type: 'ImageInvert', mode: 4, inputs: [['image', 'IMAGE', 2]], outputs: [['IMAGE', [1, 3]]] }),
        node({ id: 2, type: 'ImageInvert', mode: 4, inputs: [['image', 'IMAGE', 1]], outputs: [['IMAGE', [2]]] }),
        node({ id: 3, type: 'ImageInvert', inputs: [['image', 'IMAGE', 3]] }),
      ],
      [
        [1, 1, 0, 2, 0, 'IMAGE'],
        [2, 2, 0, 1, 0, 'IMAGE'],
        [3, 1, 0, 3, 0, 'IMAGE'],
      ],
    );
    expect(conversionError(ui).code).toBe('link_cycle');
  });

  it('reports a subgraph that contains itself', () => {
    const ui = subgraphWorkflow();
    const definition = ui.definitions.subgraphs[0]!;
    definition.nodes.push(node({ id: 30, type: definition.id }));
    expect(conversionError(ui).code).toBe('subgraph_cycle');
  });

  it('says how to convert a legacy group node', () => {
    const error = conversionError(workflow([node({ id: 5, type: 'workflow>Upscale' })], []));
    expect(error.code).toBe('unsupported_node');
    expect(error.message).toContain('convert the group node to a subgraph');
  });

  it('refuses what is not a UI-format workflow, with the way out', () => {
    const error = conversionError({ '1': { class_type: 'LoadImage', inputs: {} } });
    expect(error.code).toBe('invalid_workflow');
    expect(error.message).toContain('API-format workflow needs no conversion');
    expect(conversionError({ nodes: [null], links: [] }).message).toContain('nodes[0]');
  });
});

describe('toApiWorkflow() and data keys', () => {
  it('keeps node ids and input names such as __proto__ as data, without touching Object.prototype', () => {
    const info = { ...objectInfo, __proto__: undefined } as Record<string, unknown>;
    Object.defineProperty(info, '__proto__', { value: { name: '__proto__', input: { required: { constructor: ['INT', { default: 1 }] } }, output: [] }, enumerable: true });
    const ui = JSON.parse('{"nodes":[{"id":"__proto__","type":"__proto__","widgets_values":[5]},{"id":"constructor","type":"LoadImage","widgets_values":["a.png","image"]}],"links":[]}');
    const prompt = toApiWorkflow(ui, info as never);
    expect(Object.keys(prompt)).toEqual(['__proto__', 'constructor']);
    expect(prompt['__proto__']!.inputs['constructor']).toBe(5);
    expect(({} as Record<string, unknown>).class_type).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('inputs');
  });
});
