/**
 * Time to estimate a 40-node workflow with 10 priced partner nodes (ten badges of ComfyUI 0.33.0's
 * catalog, test/cloud/cost/fixtures), against the catalog: the import of JSONata, the first call (it
 * compiles the ten expressions) and later calls (compiled, evaluated again).
 */
import { readFileSync } from 'node:fs';
import { loadEngine } from '../src/cloud/cost/badge.js';
import { estimateWorkflowCost } from '../src/cloud/cost/estimate.js';
import type { Workflow } from '../src/index.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const catalog = JSON.parse(readFileSync(new URL('../test/cloud/cost/fixtures/partner-nodes-0.33.0.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown>>;
// Ten badges of every shape: fixed, widget-dependent, dotted widgets, input groups, long expressions.
const PRICED = ['FluxProUltraImageNode', 'GrokVideoReferenceNode', 'Flux2ImageNode', 'ByteDance2ReferenceNode', 'KlingVideoNode', 'OpenAIGPTImageNodeV2', 'LumaVideoNode', 'MinimaxHailuo03ReferenceNode', 'Veo3VideoGenerationNode', 'ViduMultiFrameVideoNode'];
const info: Record<string, unknown> = { ...catalog, SaveImage: { input: { required: {} } }, ImageScale: { input: { required: {} } } };

const workflow: Workflow = {};
PRICED.forEach((classType, i) => (workflow[`p${i}`] = { class_type: classType, inputs: {} }));
for (let i = 0; i < 30; i++) workflow[`n${i}`] = { class_type: i % 2 ? 'SaveImage' : 'ImageScale', inputs: { image: ['p0', 0] } };

const importing = performance.now();
await loadEngine();
const importMs = performance.now() - importing;
const started = performance.now();
const first = await estimateWorkflowCost(workflow, info);
const firstMs = performance.now() - started;
const later: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  await estimateWorkflowCost(workflow, info);
  later.push(performance.now() - t);
}
later.sort((a, b) => a - b);
const at = (q: number) => later[Math.min(later.length - 1, Math.floor(q * later.length))]!;

if (first.unpriced.length > 0) console.log(first.unpriced);
console.log(`40 nodes, ${first.nodes.length} priced and ${first.unpriced.length} unpriced of 10 partner nodes; total $${first.usd.min}-${first.usd.max}\n`);
console.log('| call | time (ms) |');
console.log('|---|---|');
console.log(`| importing JSONata (once per process) | ${importMs.toFixed(1)} |`);
console.log(`| first estimate (compiles 10 badges) | ${firstMs.toFixed(1)} |`);
console.log(`| later, median of ${RUNS} | ${at(0.5).toFixed(2)} |`);
console.log(`| later, p95 | ${at(0.95).toFixed(2)} |`);
