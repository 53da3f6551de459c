// `graphcloud estimate`, `--max-cost` and what was spent, against the simulator's priced partner
// nodes (src/testing/cloud/priced-nodes.ts: SimPricedRange $0.10-0.30, charging $0.20; SimPricedVideo
// $0.10 a second at 720p; SimPricedText, a text badge: no price).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPiped, startTarget, type SimTarget } from './helpers.js';

let target: SimTarget;
let dir: string;
let counter = 0;

beforeAll(async () => {
  target = await startTarget();
  dir = mkdtempSync(join(tmpdir(), 'graphcloud-cli-cost-'));
});
afterAll(async () => {
  await target?.sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A workflow of a ranged node and a video node (each saved), and `more` nodes; a fresh prompt each call (no cache). */
function workflowFile(more: Record<string, unknown> = {}): string {
  const n = ++counter;
  const path = join(dir, `priced${n}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      '1': { class_type: 'SimPricedRange', inputs: { prompt: `a fox ${n}` } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: `range${n}` } },
      '3': { class_type: 'SimPricedVideo', inputs: { duration: 5, resolution: '720p', generate_audio: false } },
      '4': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: `video${n}` } },
      ...more,
    }),
  );
  return path;
}

const run = (args: string[]) => runPiped(args, { env: target.env, secrets: target.secrets });
const posts = () => target.sim.state.requests.filter((r) => r.method === 'POST' && r.path === '/api/prompt' && !r.internal).length;

describe('graphcloud estimate', () => {
  it('prints each priced node and the total, sending nothing', async () => {
    const before = posts();
    const { code, lines, stderr } = await run(['estimate', workflowFile(), '--set', '3.duration=10']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    const [estimate] = lines;
    expect(estimate).toMatchObject({ type: 'estimate', unpriced: [] });
    expect(estimate?.usd).toEqual({ min: expect.closeTo(1.1, 9), max: expect.closeTo(1.3, 9) });
    expect((estimate?.nodes as { id: string }[]).map((node) => node.id).sort()).toEqual(['1', '3']);
    expect(posts()).toBe(before);
  });

  it('says it in sentences with --human, the unpriced nodes apart', async () => {
    const path = workflowFile({ '5': { class_type: 'SimPricedText', inputs: { prompt: 'hi' } }, '6': { class_type: 'SaveImage', inputs: { images: ['5', 0], filename_prefix: 'text' } } });
    const { code, stdout } = await run(['estimate', path, '--human']);
    expect(code).toBe(0);
    expect(stdout).toContain('node 1 "Priced Image (range, simulator)" (SimPricedRange): $0.10 to $0.30');
    expect(stdout).toContain('node 3 "Priced Video (widgets, simulator)" (SimPricedVideo): $0.50');
    expect(stdout).toMatch(/node 5 \(SimPricedText\): no price, not counted: /);
    expect(stdout).toContain('Total: $0.60 to $0.80');
  });

  it('totals every set of a batch with --inputs', async () => {
    const sets = join(dir, 'durations.csv');
    writeFileSync(sets, '3.duration\n2\n4\n6\n');
    const { code, lines } = await run(['estimate', workflowFile(), '--inputs', sets]);
    expect(code).toBe(0);
    expect(lines.filter((line) => line.type === 'estimate').map((line) => [line.set, (line.usd as { max: number }).max])).toEqual([
      [1, expect.closeTo(0.5, 9)],
      [2, expect.closeTo(0.7, 9)],
      [3, expect.closeTo(0.9, 9)],
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'total', sets: 3, usd: { min: expect.closeTo(1.5, 9), max: expect.closeTo(2.1, 9) }, unpriced: [] });
  });
});

describe('graphcloud run and batch: --max-cost, and what was spent', () => {
  it('run refuses a workflow that may cost more than --max-cost, before sending anything', async () => {
    const before = posts();
    const { code, stderr, lines } = await run(['run', workflowFile(), '--max-cost', '0.75']);
    expect(code).toBe(2);
    expect(stderr).toContain('The run could cost up to $0.80 (estimate $0.60 to $0.80), over --max-cost $0.75; nothing was sent.');
    expect(lines.at(-1)).toMatchObject({ type: 'error', exitCode: 2 });
    expect(posts()).toBe(before);
  });

  it('run sends a workflow within --max-cost, and its last line says what it spent', async () => {
    const { code, lines } = await run(['run', workflowFile(), '--max-cost', '$1']);
    expect(code).toBe(0);
    // $0.20 and $0.50 at 211 credits a dollar: 42.2 and 105.5 credits.
    expect(lines.at(-1)).toMatchObject({ type: 'result', status: 'completed', cost: { credits: 147.7, usd: expect.closeTo(0.7, 9), byNode: { '1': 42.2, '3': 105.5 } } });
    // Another duration: a node run with the same inputs is served from the cache, and costs nothing.
    const human = await run(['run', workflowFile(), '--set', '3.duration=7', '--human']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Completed job \S+ in [\d.]+ s; spent 189\.9 credits \(\$0\.90\)/);
  });

  it('batch refuses the whole batch when the sum of its sets may cost more, before adding or sending anything', async () => {
    const sets = join(dir, 'three.csv');
    writeFileSync(sets, '3.duration\n2\n4\n6\n');
    const before = posts();
    const { code, stderr } = await run(['batch', workflowFile(), '--inputs', sets, '--max-cost', '2']);
    expect(code).toBe(2);
    expect(stderr).toContain('The batch would cost up to $2.10 ($1.50 to $2.10 for 3 sets), over --max-cost $2; nothing was sent.');
    expect(posts()).toBe(before);
  });

  it('batch runs within --max-cost, and its summary says what the sets spent', async () => {
    const sets = join(dir, 'two.csv');
    writeFileSync(sets, '3.duration,1.prompt\n2,set a\n4,set b\n');
    // One at a time: two runs of one workflow at once run the same node ids, and their price texts could not be told apart.
    const { code, lines } = await run(['batch', workflowFile(), '--inputs', sets, '--max-cost', '2', '--concurrency', '1']);
    expect(code).toBe(0);
    const results = lines.filter((line) => line.type === 'result');
    expect(results.map((line) => (line.cost as { credits: number } | undefined)?.credits)).toEqual([84.4, 126.6]);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', done: 2, spent: { credits: 211, usd: expect.closeTo(1, 9) } });
  });

  it('--allow-unpriced goes with --max-cost, and --max-cost takes dollars above 0', async () => {
    expect((await run(['run', workflowFile(), '--allow-unpriced'])).stderr).toContain('--allow-unpriced goes with --max-cost.');
    expect((await run(['run', workflowFile(), '--max-cost', 'ten'])).stderr).toContain('--max-cost takes an amount of US dollars above 0, such as 0.50 or 12, received "ten".');
    expect((await run(['batch', workflowFile(), '--inputs', 'x.csv', '--max-cost', '0'])).code).toBe(2);
  });
});
