/**
 * What the generated node types cost (issue 31; docs/workflows.md#generating-node-types):
 *
 * - the editor's and the build's price: `tsc --noEmit` of a consumer project that builds a 40-node
 *   workflow over the generated types of ComfyUI 0.33.0 (848 node classes), against the same
 *   project building the same 40 nodes untyped (`wf.node()`, no import of the types); strict with
 *   exactOptionalPropertyTypes and noUncheckedIndexedAccess, the median of BENCH_ROUNDS interleaved
 *   runs (target: at most 2 s more on 2 cores): the wall time of `tsc` (TypeScript 6 and 7), which
 *   grows with the machine's load, and the CPU time of TypeScript 6's checker, which does not;
 * - the generated modules' size, and what `nodeOutputs` adds to a browser bundle that imports it
 *   (`import type { Nodes }` adds nothing: measured too);
 * - what the builder adds to the main entry (target: at most 1 KB gzip): the main entry bundled as
 *   scripts/size.mjs bundles it, with builder.ts as it is and with builder.ts stubbed out.
 *
 * Reads the BUILT package (run `npm run build` first): the consumer project resolves `graphcloud`
 * to this repository's dist/ as an installed copy would.
 *
 *   npx tsx bench/codegen.ts            (BENCH_ROUNDS=3 by default)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import ts6 from 'typescript';
import { generateNodeTypes } from '../src/codegen/index.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TYPESCRIPTS = [
  { name: 'TypeScript 6', tsc: 'node_modules/typescript/bin/tsc' },
  { name: 'TypeScript 7', tsc: path.join('node_modules/typescript7', (JSON.parse(readFileSync(path.join(repo, 'node_modules/typescript7/package.json'), 'utf8')) as { bin: Record<string, string> }).bin.tsc!) },
];
if (!existsSync(path.join(repo, 'dist/index.js'))) {
  console.error('bench/codegen: dist/index.js is missing; run `npm run build` first');
  process.exit(2);
}

const catalog = (version: string): Record<string, unknown> => JSON.parse(gunzipSync(readFileSync(path.join(repo, `test/codegen/fixtures/comfyui-${version}.json.gz`))).toString('utf8')) as Record<string, unknown>;
const gzip = (text: string): number => gzipSync(text, { level: 9 }).length;
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
const rows: string[][] = [];

// 1. The generated modules.
const modules = new Map<string, string>();
for (const version of ['0.3.77', '0.33.0']) {
  const started = performance.now();
  const text = await generateNodeTypes(catalog(version), { server: `ComfyUI ${version}`, version });
  const ms = performance.now() - started;
  modules.set(version, text);
  rows.push([`generated module, ComfyUI ${version}`, `${kb(Buffer.byteLength(text))} (${kb(gzip(text))} gzip), written in ${ms.toFixed(0)} ms`, '']);
}

// 2. tsc --noEmit of a consumer project, typed against untyped.
const project = mkdtempSync(path.join(os.tmpdir(), 'graphcloud-bench-codegen-'));
process.on('exit', () => rmSync(project, { recursive: true, force: true }));
mkdirSync(path.join(project, 'node_modules'));
symlinkSync(repo, path.join(project, 'node_modules/graphcloud'), 'junction');
writeFileSync(path.join(project, 'package.json'), '{ "type": "module" }');
writeFileSync(path.join(project, 'nodes.ts'), modules.get('0.33.0')!);
writeFileSync(path.join(project, 'typed.ts'), workflowSource(true));
writeFileSync(path.join(project, 'untyped.ts'), workflowSource(false));
const compilerOptions = { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023'], types: [], strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: true, noEmit: true };
for (const variant of ['typed', 'untyped']) writeFileSync(path.join(project, `tsconfig.${variant}.json`), JSON.stringify({ compilerOptions, files: [`${variant}.ts`] }));

// CPU time of TypeScript 6's checker run in this process (the compiler API, a fresh program each
// time): unlike wall time, it does not grow with what else the machine runs.
const cpu: Record<string, number[]> = { typed: [], untyped: [] };
for (let round = 0; round < ROUNDS + 1; round++) {
  for (const variant of ['untyped', 'typed']) {
    const config = ts6.getParsedCommandLineOfConfigFile(path.join(project, `tsconfig.${variant}.json`), {}, { ...ts6.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    const started = process.cpuUsage();
    const program = ts6.createProgram(config!.fileNames, config!.options);
    const errors = ts6.getPreEmitDiagnostics(program).length;
    const used = process.cpuUsage(started);
    if (errors > 0) throw new Error(`bench/codegen: the ${variant} project has ${errors} errors`);
    // The first round warms the compiler up (its code is compiled on first use).
    if (round > 0) cpu[variant]!.push((used.user + used.system) / 1000);
  }
}
const cpuMore = (median(cpu.typed!) - median(cpu.untyped!)) / 1000;
rows.push([
  'tsc CPU time, TypeScript 6 in process: 40 nodes untyped / typed (0.33.0)',
  `${(median(cpu.untyped!) / 1000).toFixed(2)} s / ${(median(cpu.typed!) / 1000).toFixed(2)} s: +${cpuMore.toFixed(2)} s`,
  cpuMore <= 2 ? 'within 2 s' : 'OVER 2 s',
]);

for (const ts of TYPESCRIPTS) {
  const times: Record<string, number[]> = { typed: [], untyped: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of ['untyped', 'typed']) {
      const started = performance.now();
      const run = spawnSync(process.execPath, [path.join(repo, ts.tsc), '-p', path.join(project, `tsconfig.${variant}.json`)], { cwd: project, encoding: 'utf8' });
      if (run.status !== 0) {
        console.error(`bench/codegen: ${ts.name} failed on the ${variant} project:\n${run.stdout}${run.stderr}`);
        process.exit(1);
      }
      times[variant]!.push(performance.now() - started);
    }
  }
  const untyped = median(times.untyped!);
  const typed = median(times.typed!);
  const more = (typed - untyped) / 1000;
  rows.push([`tsc --noEmit wall time, ${ts.name}: 40 nodes untyped / typed (0.33.0)`, `${(untyped / 1000).toFixed(2)} s / ${(typed / 1000).toFixed(2)} s: +${more.toFixed(2)} s`, more <= 2 ? 'within 2 s' : 'OVER 2 s']);
}

// 3. What a browser bundle pays: nodeOutputs when imported, the types never.
// Up front, as scripts/size.mjs measures it: a dynamic import is a chunk of its own, loaded later.
const lazy: Plugin = { name: 'lazy', setup: (builder) => builder.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined)) };
const bundle = async (code: string, plugins: Plugin[] = []): Promise<number> => {
  const result = await build({ stdin: { contents: code, resolveDir: project, loader: 'ts' }, bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent', plugins: [lazy, ...plugins], external: ['node:*'] });
  return gzip(result.outputFiles[0]!.text);
};
const table = await bundle("import { nodeOutputs } from './nodes.ts'; globalThis.t = nodeOutputs;");
rows.push(['nodeOutputs (0.33.0) in a bundle that imports it', `${kb(table)} gzip`, '']);
const usage = "const wf = workflow<Nodes>(); wf.LoadImage({ image: 'a.png' }); globalThis.w = wf;";
const withTypes = await bundle(`import { workflow } from 'graphcloud'; import type { Nodes } from './nodes.ts'; ${usage}`);
const withoutTypes = await bundle(`import { workflow } from 'graphcloud'; type Nodes = any; ${usage}`);
rows.push(['`import type { Nodes }` in a bundle', `${withTypes - withoutTypes} bytes`, withTypes === withoutTypes ? 'zero' : 'NOT ZERO']);

// 4. What the builder adds to the main entry: builder.ts stubbed out (its exports kept, empty).
const stub: Plugin = {
  name: 'stub-builder',
  setup(builder) {
    builder.onLoad({ filter: /dist\/cloud\/workflow\/builder\.js$/ }, () => ({
      contents: 'export const workflow = undefined, spellOutputNames = undefined, builtWorkflow = undefined; export const isWorkflowBuilder = () => false, builderNeedsCatalog = () => false;',
      loader: 'js',
    }));
  },
};
const entry = "export * from 'graphcloud';";
const whole = await bundle(entry);
const stubbed = await bundle(entry, [stub]);
rows.push(['main entry with / without the builder (builder.ts stubbed)', `${kb(whole)} / ${kb(stubbed)} gzip: +${whole - stubbed} bytes`, whole - stubbed <= 1024 ? 'within 1 KB' : 'OVER 1 KB']);

console.log(`bench/codegen: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; tsc times are medians of ${ROUNDS} runs\n`);
console.log('| measure | figure | target |');
console.log('|---|---|---|');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * A 40-node workflow: a checkpoint, two prompts, a latent and a seed, then seven branches of
 * sampler, decode, invert, scale and save. Typed: methods and outputs by name over `Nodes`;
 * untyped: `wf.node()` and `.out()`, the same graph.
 */
function workflowSource(typed: boolean): string {
  const node = (classType: string, inputs: string): string => (typed ? `wf.${classType}({ ${inputs} })` : `wf.node('${classType}', { ${inputs} })`);
  const out = (handle: string, name: string): string => (typed ? `${handle}.${name}` : `${handle}.out('${name}')`);
  const lines = [
    "import { workflow } from 'graphcloud';",
    ...(typed ? ["import type { Nodes } from './nodes.js';"] : []),
    `export function build() {`,
    `  const wf = workflow${typed ? '<Nodes>' : ''}();`,
    `  const ckpt = ${node('CheckpointLoaderSimple', "ckpt_name: 'sd_xl_base_1.0.safetensors'")};`,
    `  const positive = ${node('CLIPTextEncode', `clip: ${out('ckpt', 'CLIP')}, text: 'a paper boat'`)};`,
    `  const negative = ${node('CLIPTextEncode', `clip: ${out('ckpt', 'CLIP')}, text: 'blurry'`)};`,
    `  const latent = ${node('EmptyLatentImage', 'width: 1024, height: 1024, batch_size: 1')};`,
    `  const seed = ${node('PrimitiveInt', 'value: 42')};`,
  ];
  for (let i = 0; i < 7; i++) {
    lines.push(
      `  const sampled${i} = ${node('KSampler', `model: ${out('ckpt', 'MODEL')}, positive: ${out('positive', 'CONDITIONING')}, negative: ${out('negative', 'CONDITIONING')}, latent_image: ${out('latent', 'LATENT')}, seed: ${out('seed', 'INT')}, steps: ${20 + i}, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1`)};`,
      `  const image${i} = ${node('VAEDecode', `samples: ${out(`sampled${i}`, 'LATENT')}, vae: ${out('ckpt', 'VAE')}`)};`,
      `  const inverted${i} = ${node('ImageInvert', `image: ${out(`image${i}`, 'IMAGE')}`)};`,
      `  const scaled${i} = ${node('ImageScale', `image: ${out(`inverted${i}`, 'IMAGE')}, upscale_method: 'bilinear', width: 512, height: 0, crop: 'disabled'`)};`,
      `  ${node('SaveImage', `images: ${out(`scaled${i}`, 'IMAGE')}, filename_prefix: 'branch${i}'`)};`,
    );
  }
  lines.push('  return wf;', '}', '');
  return lines.join('\n');
}
