import { describe, expect, it } from 'vitest';
import { estimateWorkflowCost } from '../../../src/cloud/cost/estimate.js';
import type { Workflow } from '../../../src/index.js';

// A hostile or broken catalog must end each bad badge as unpriced within the bound, never hang
// or crash the process (docs/cost.md#bounds). Small bounds keep these tests short; the defaults
// (DEFAULTS.cost) are the same mechanism with larger figures.
const badge = (expr: string, extra: Record<string, unknown> = {}) => ({ api_node: true, input: { required: { n: ['INT', { default: 1 }] } }, price_badge: { engine: 'jsonata', expr, ...extra } });
const run = (expr: string, extra?: Record<string, unknown>, options?: Parameters<typeof estimateWorkflowCost>[2]) =>
  estimateWorkflowCost({ h: { class_type: 'H', inputs: {} }, g: { class_type: 'G', inputs: {} } } satisfies Workflow, { H: badge(expr, extra), G: badge('{"type":"usd","usd":0.5}') }, options);

describe('estimateWorkflowCost() and hostile badges', () => {
  it('stops an endless loop at the step bound, and prices the other nodes', async () => {
    const estimate = await run('($f := function($n) { $f($n + 1) }; $f(0))', undefined, { maxSteps: 10_000 });
    expect(estimate.unpriced).toEqual([{ id: 'h', classType: 'H', reason: 'the expression took more than 10000 steps' }]);
    expect(estimate.nodes.map((node) => node.id)).toEqual(['g']);
    expect(estimate.usd).toEqual({ min: 0.5, max: 0.5 });
  });

  it('stops an endless loop at the time bound', async () => {
    const estimate = await run('($f := function($n) { $f($n + 1) }; $f(0))', undefined, { badgeTimeoutMs: 20 });
    expect(estimate.unpriced[0]?.reason).toBe('the expression ran past the time bound');
  });

  it('stops an endless loop under the default bounds', async () => {
    const estimate = await run('($f := function($n) { $f($n + 1) }; $f(0))');
    expect(estimate.unpriced[0]?.reason).toMatch(/^the expression (ran past the time bound|took more than 1000000 steps)$/);
    expect(estimate.nodes.map((node) => node.id)).toEqual(['g']);
  });

  it("bounds the whole estimate: nodes left when its time runs out are unpriced, never evaluated", async () => {
    const loop = badge('($f := function($n) { $f($n + 1) }; $f(0))');
    const workflow: Workflow = Object.fromEntries(['a', 'b', 'c', 'd'].map((id) => [id, { class_type: 'H', inputs: {} }]));
    const estimate = await estimateWorkflowCost(workflow, { H: loop }, { badgeTimeoutMs: 20, timeoutMs: 30 });
    expect(estimate.unpriced.map((node) => node.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(estimate.unpriced[0]?.reason).toBe('the expression ran past the time bound');
    expect(estimate.unpriced.at(-1)?.reason).toBe("the estimate's time bound (30 ms) ran out before this node");
  });

  it('stops a deep recursion at the depth bound', async () => {
    const estimate = await run('($f := function($n) { 1 + $f($n + 1) }; $f(0))', undefined, { maxDepth: 100 });
    expect(estimate.unpriced[0]?.reason).toBe('its expression failed (nested too deeply)');
  });

  it('refuses a huge result and a huge sequence', async () => {
    const padded = await run('{"type":"usd","usd":0.1,"note":$pad("", 100000, "x")}', undefined, { maxResultChars: 10_000 });
    expect(padded.unpriced[0]?.reason).toBe("the badge's result is larger than 10000 characters");
    const sequence = await run('{"type":"list_usd","usd":[1..100000]}');
    expect(sequence.unpriced[0]?.reason).toBe('its expression failed (a sequence grew too long)');
  });

  it('refuses another engine, a syntax error, a regular expression and a missing widget', async () => {
    expect((await run('1', { engine: 'python' })).unpriced[0]?.reason).toBe('its badge needs the engine "python"; estimates evaluate JSONata only');
    expect((await run('{"type": ')).unpriced[0]?.reason).toMatch(/^its expression does not compile/);
    expect((await run('$contains("abc", /b/) ? {"type":"usd","usd":1} : {"type":"usd","usd":2}')).unpriced[0]?.reason).toBe('the expression uses a regular expression, which estimates do not run');
    expect((await run('{"type":"usd","usd":widgets.nope}', { depends_on: { widgets: [{ name: 'nope', type: 'INT' }] } })).unpriced[0]?.reason).toBe('the badge reads widget "nope", which the node type does not have');
  });

  it('refuses what is not a price: a negative one, a string, a broken depends_on, a missing expression', async () => {
    expect((await run('{"type":"usd","usd":-1}')).unpriced[0]?.reason).toBe('the badge gave a negative price');
    expect((await run('"cheap"')).unpriced[0]?.reason).toBe('the badge gave no price');
    expect((await run('{"type":"usd","usd":"lots"}')).unpriced[0]?.reason).toBe('the badge gave no finite price');
    expect((await run('1', { depends_on: { widgets: 'n' } })).unpriced[0]?.reason).toBe('its price badge cannot be read: its depends_on.widgets is not a list');
    expect((await run('')).unpriced[0]?.reason).toBe('its price badge has no expression');
  });

  it('keeps keys from the badge off Object.prototype', async () => {
    const estimate = await run('{"type":"usd","usd":0.2,"__proto__":{"polluted":true},"format":{"constructor":1}}');
    expect(estimate.nodes[0]?.price).toMatchObject({ type: 'usd', usd: 0.2 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const price = estimate.nodes[0]!.price;
    expect(Object.getPrototypeOf(price)).toBe(Object.prototype);
    expect(Object.keys(price)).toEqual(['type', 'usd', '__proto__', 'format']);
    expect(price.polluted).toBeUndefined();
  });
});
