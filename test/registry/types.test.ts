import { describe, expectTypeOf, it } from 'vitest';
import type { GraphNodeParams, NodeParams, PublisherParams } from '../../src/registry/types.js';

describe('registry request types keep their named fields', () => {
  it('types each field of NodeParams, PublisherParams and GraphNodeParams (0.1.0 accepted anything)', () => {
    expectTypeOf<NodeParams['name']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NodeParams['tags']>().toEqualTypeOf<string[] | null | undefined>();
    expectTypeOf<PublisherParams['id']>().toEqualTypeOf<string>();
    expectTypeOf<GraphNodeParams['deprecated']>().toEqualTypeOf<boolean | undefined>();
    // @ts-expect-error a node's name is a string
    const badNode: NodeParams = { name: 5 };
    // @ts-expect-error a graph node's output_is_list is a list of booleans
    const badGraph: GraphNodeParams = { output_is_list: 'yes' };
    void badNode;
    void badGraph;
  });
});
