// What a browser app ships: an esbuild bundle of the BUILT dist/ (run `npm run build` first),
// minified, gzip level 9, per entry point an app may use. "Up front" is what the page loads:
// dynamic imports are kept out, as an app's bundler splits them into chunks loaded on first use;
// "lazy" is those chunks (e.g. the converter of UI-format workflows), bundled on their own.
// Budgets apply up front, and to the lazy chunks of the cloud entries. Fails when a bundle is over
// a budget, or when a browser bundle holds node-only code (a `node:` import, `ws`, the
// simulator), up front or lazy.
// Prints a markdown table. The budgets are a ratchet: the figures measured now, lowered whenever
// a change makes a bundle smaller, raised only by a fix or feature that CHANGELOG ("Bundle size")
// names with its cost. The targets (issue 21: 46 / 34 / 19 / 22 KB) are shown beside them; ky
// and zod/mini alone are 14.6 KB of each figure.
//
//   node scripts/size.mjs
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { gzipSync } from 'node:zlib';

/**
 * Budgets and targets in KB (1024 bytes) of gzip, compared at their precision (0.1 KB); a bundle
 * without a budget is measured only.
 */
const BUNDLES = [
  { name: 'whole main entry', budget: 64.2, lazyBudget: 13.2, target: 46, code: "export * from './dist/index.js';" },
  { name: 'CloudClient alone', budget: 51.3, lazyBudget: 13.2, target: 34, code: "import { CloudClient } from './dist/index.js'; globalThis.c = new CloudClient({ baseUrl: 'https://x.test', apiKey: 'k' });" },
  { name: 'RegistryClient alone', budget: 27.1, target: 19, code: "import { RegistryClient } from './dist/index.js'; globalThis.r = new RegistryClient({ baseUrl: 'https://x.test' });" },
  { name: 'ProxyClient alone', budget: 31.3, target: 22, code: "import { ProxyClient } from './dist/index.js'; globalThis.p = new ProxyClient({ baseUrl: 'https://x.test', token: 't' });" },
  // graphcloud/codegen runs in a browser too (a build tool's page): measured, and checked for
  // node-only code like every bundle.
  { name: 'graphcloud/codegen alone', code: "import { generateNodeTypes } from './dist/codegen/index.js'; globalThis.g = generateNodeTypes;" },
  // The floors set by the runtime dependencies, measured the same way.
  { name: 'ky alone (dependency floor)', code: "import ky from 'ky'; globalThis.k = ky.create({ retry: 0 });" },
  {
    name: 'zod/mini alone (dependency floor)',
    code: "import * as z from 'zod/mini'; globalThis.s = z.looseObject({ a: z.optional(z.nullable(z.string())), b: z.array(z.number()), c: z.record(z.string(), z.unknown()) });",
  },
];

/**
 * Lazy chunks with a budget of their own, kept out of the "gzip, lazy" column: a feature that
 * loads a large engine on first use (cost estimates load JSONata only for a workflow with a priced
 * partner node; docs/cost.md). Measured once, from the targets of every bundle above.
 */
const OWN_CHUNKS = [{ name: 'price estimates (lazy: the estimator and JSONata)', test: /\/cloud\/cost\//, budget: 29.5 }];

/**
 * Inputs no browser bundle may contain: the ws package, the simulator, and graphcloud/queue with
 * BullMQ and ioredis.
 */
const NODE_ONLY_INPUT = /(?:^|\/)node_modules\/(?:ws|bullmq|ioredis)\/|(?:^|\/)src\/testing\/|(?:^|\/)dist\/testing|(?:^|\/)dist\/queue\//;
const NODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'`]node:[\w/]+/g;

if (!existsSync('dist/index.js')) {
  console.error('size: dist/index.js is missing; run `npm run build` first');
  process.exit(2);
}

const kb = (bytes) => bytes / 1024;
const tenths = (value) => Math.round(value * 10) / 10;
const problems = [];
const rows = [];

/** esbuild keeps a dynamic import's target as an import, and tells which targets it met. */
function lazyImports(targets) {
  return {
    name: 'lazy-imports',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        targets.add({ target: join(args.resolveDir, args.path), importer: args.importer });
        return { path: args.path, external: true };
      });
    },
  };
}

/** A minified browser bundle of `code`, or the reason it cannot be built. */
async function bundleOf(code, plugins = []) {
  return build({
    stdin: { contents: code, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    metafile: true,
    plugins,
    // Kept as imports, so the check below can tell which bundle still holds one after tree-shaking.
    external: ['node:*'],
  });
}

/** Records node-only code in a built bundle. */
function checkPurity(name, result) {
  const text = result.outputFiles[0].text;
  // The inputs that put bytes in the bundle (esbuild also lists files it read and then shook out).
  const [output] = Object.values(result.metafile.outputs);
  const nodeOnly = Object.entries(output.inputs).filter(([file, use]) => use.bytesInOutput > 0 && NODE_ONLY_INPUT.test(file)).map(([file]) => file);
  if (nodeOnly.length > 0) problems.push(`${name}: the browser bundle contains node-only code: ${nodeOnly.join(', ')}`);
  const nodeImports = [...new Set(text.match(NODE_IMPORT) ?? [])].map((m) => m.replace(/^.*["'`]/, ''));
  if (nodeImports.length > 0) problems.push(`${name}: the browser bundle imports ${nodeImports.join(', ')}, which browsers do not have`);
}

// The main entry never loads BullMQ or ioredis (optional peers of graphcloud/queue), in Node either:
// every module dist/index.js reaches, followed statically and dynamically, imports neither.
{
  const reached = await build({ entryPoints: ['dist/index.js'], bundle: true, write: false, platform: 'node', format: 'esm', logLevel: 'silent', metafile: true, external: ['bullmq', 'ioredis', 'ky', 'zod', 'zod/*', 'ws'] });
  const engines = Object.entries(reached.metafile.inputs).flatMap(([file, input]) => input.imports.filter((i) => /^(bullmq|ioredis)(\/|$)/.test(i.path)).map((i) => `${file} imports ${i.path}`));
  if (engines.length > 0) problems.push(`dist/index.js reaches BullMQ or ioredis: ${engines.join('; ')}`);
}

for (const bundle of BUNDLES) {
  let result;
  const targets = new Set();
  try {
    result = await bundleOf(bundle.code, [lazyImports(targets)]);
  } catch (error) {
    // A node built-in without `node:` (or a missing file) cannot resolve for the browser.
    problems.push(`${bundle.name}: does not bundle for the browser: ${error.errors?.map((e) => e.text).join('; ') ?? error.message}`);
    rows.push(`| ${bundle.name} | — | — | — | ${bundle.budget ?? ''} | ${bundle.target ?? ''} | fails to bundle |`);
    continue;
  }
  const text = result.outputFiles[0].text;
  const gzip = gzipSync(text, { level: 9 }).length;
  checkPurity(bundle.name, result);
  // The lazy chunks, on their own (an upper bound: a splitting bundler shares what the page has),
  // counting only the dynamic imports of code that stayed in the bundle.
  const [built] = Object.values(result.metafile.outputs);
  const reached = [...targets].filter(({ importer }) => Object.entries(built.inputs).some(([file, use]) => use.bytesInOutput > 0 && importer.endsWith(file.replace(/^(\.\.\/)+/, ''))));
  for (const chunk of OWN_CHUNKS) for (const { target } of reached) if (chunk.test.test(target)) (chunk.targets ??= new Set()).add(target);
  const live = reached.filter(({ target }) => !OWN_CHUNKS.some((chunk) => chunk.test.test(target)));
  let lazy = '—';
  if (live.length > 0) {
    const lazyResult = await bundleOf([...new Set(live.map((l) => l.target))].map((target, i) => `export * as m${i} from '${target}';`).join('\n'));
    checkPurity(`${bundle.name} (lazy)`, lazyResult);
    const lazyGzip = kb(gzipSync(lazyResult.outputFiles[0].text, { level: 9 }).length);
    lazy = `${lazyGzip.toFixed(2)} KB`;
    // A lazy chunk that imports a module with top-level tables (the option rules, zod schemas) keeps
    // them whole: the budget catches such an import before it ships.
    if (bundle.lazyBudget !== undefined && tenths(lazyGzip) > bundle.lazyBudget) {
      problems.push(`${bundle.name} (lazy): ${lazy} gzip is over its budget of ${bundle.lazyBudget} KB; see which module a lazy chunk newly imports`);
    }
  }
  const over = bundle.budget !== undefined && tenths(kb(gzip)) > bundle.budget;
  if (over) problems.push(`${bundle.name}: ${kb(gzip).toFixed(2)} KB gzip is over its budget of ${bundle.budget} KB (target ${bundle.target} KB)`);
  const status = bundle.budget === undefined ? '' : over ? 'OVER BUDGET' : tenths(kb(gzip)) <= bundle.target ? 'within target' : 'within budget';
  rows.push(`| ${bundle.name} | ${kb(text.length).toFixed(1)} KB | ${kb(gzip).toFixed(2)} KB | ${lazy} | ${bundle.budget ?? ''} | ${bundle.target ?? ''} | ${status} |`);
}

for (const chunk of OWN_CHUNKS) {
  if (!chunk.targets) continue;
  const result = await bundleOf([...chunk.targets].map((target, i) => `export * as m${i} from '${target}';`).join('\n'));
  checkPurity(chunk.name, result);
  const gzip = kb(gzipSync(result.outputFiles[0].text, { level: 9 }).length);
  const over = tenths(gzip) > chunk.budget;
  if (over) problems.push(`${chunk.name}: ${gzip.toFixed(2)} KB gzip is over its budget of ${chunk.budget} KB`);
  rows.push(`| ${chunk.name} | — | — | ${gzip.toFixed(2)} KB | ${chunk.budget} |  | ${over ? 'OVER BUDGET' : 'within budget'} |`);
}

console.log('| browser bundle | minified, up front | gzip, up front | gzip, lazy | budget (KB gzip) | target (KB gzip) | status |');
console.log('|---|---|---|---|---|---|---|');
console.log(rows.join('\n'));
if (problems.length > 0) {
  console.error(`\n${problems.map((p) => `✖ ${p}`).join('\n')}`);
  process.exit(1);
}
