import { describe, expect, it, vi } from 'vitest';
import { estimateWorkflowCost } from '../../../src/cloud/cost/estimate.js';

// A page whose JSONata chunk fails to load (offline, a deploy that removed it): jsonata is not our
// module, so its import is made to fail here.
vi.mock('jsonata', () => {
  throw new Error('Failed to fetch dynamically imported module');
});

describe('estimateWorkflowCost() without its engine', () => {
  it('lists the priced nodes as unpriced, with the reason, and throws nothing', async () => {
    const info = { P: { api_node: true, input: {}, price_badge: { engine: 'jsonata', expr: '{"type":"usd","usd":1}' } }, N: { api_node: true, input: {} } };
    const estimate = await estimateWorkflowCost({ p: { class_type: 'P', inputs: {} }, n: { class_type: 'N', inputs: {} } }, info);
    expect(estimate.usd).toEqual({ min: 0, max: 0 });
    expect(estimate.unpriced).toEqual([
      { id: 'p', classType: 'P', reason: expect.stringMatching(/^the JSONata engine could not be loaded \(.+\)$/) },
      { id: 'n', classType: 'N', reason: 'the node type has no price badge' },
    ]);
  });
});
