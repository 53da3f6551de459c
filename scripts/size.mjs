// What a browser app ships: an esbuild bundle of the BUILT dist/ (run `npm run build` first),
// minified, gzip level 9, per entry point an app may use. Fails when a bundle is over its budget,
// or when a browser bundle holds node-only code (a `node:` import, `ws`, the simulator).
// Prints a markdown table. The budgets are today's figures: they may shrink, never grow; the
// aims are where the architecture redesign should take them.
//
//   node scripts/size.mjs
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import process from 'node:process';
import { gzipSync } from 'node:zlib';

/**
 * Budgets and aims in KB (1024 bytes) of gzip, compared at their precision (0.1 KB); a bundle
 * without a budget is measured only.
 */
const BUNDLES = [
  { name: 'whole main entry', budget: 40.7, aim: 30, code: "export * from './dist/index.js';" },
  { name: 'CloudClient alone', budget: 32.3, aim: 20, code: "import { CloudClient } from './dist/index.js'; globalThis.c = new CloudClient({ baseUrl: 'https://x.test', apiKey: 'k' });" },
  { name: 'RegistryClient alone', budget: 20.3, aim: 12, code: "import { RegistryClient } from './dist/index.js'; globalThis.r = new RegistryClient({ baseUrl: 'https://x.test' });" },
  { name: 'ProxyClient alone', budget: 25.6, aim: 14, code: "import { ProxyClient } from './dist/index.js'; globalThis.p = new ProxyClient({ baseUrl: 'https://x.test', token: 't' });" },
  // The floors set by the runtime dependencies, measured the same way.
  { name: 'ky alone (dependency floor)', code: "import ky from 'ky'; globalThis.k = ky.create({ retry: 0 });" },
  {
    name: 'zod/mini alone (dependency floor)',
    code: "import * as z from 'zod/mini'; globalThis.s = z.looseObject({ a: z.optional(z.nullable(z.string())), b: z.array(z.number()), c: z.record(z.string(), z.unknown()) });",
  },
];

/** Inputs no browser bundle may contain: the ws package and the simulator. */
const NODE_ONLY_INPUT = /(?:^|\/)node_modules\/ws\/|(?:^|\/)src\/testing\/|(?:^|\/)dist\/testing/;
const NODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'`]node:[\w/]+/g;

if (!existsSync('dist/index.js')) {
  console.error('size: dist/index.js is missing; run `npm run build` first');
  process.exit(2);
}

const kb = (bytes) => bytes / 1024;
const tenths = (value) => Math.round(value * 10) / 10;
const problems = [];
const rows = [];
for (const bundle of BUNDLES) {
  let result;
  try {
    result = await build({
      stdin: { contents: bundle.code, resolveDir: process.cwd(), loader: 'js' },
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
      metafile: true,
      // Kept as imports, so the check below can tell which bundle still holds one after tree-shaking.
      external: ['node:*'],
    });
  } catch (error) {
    // A node built-in without `node:` (or a missing file) cannot resolve for the browser.
    problems.push(`${bundle.name}: does not bundle for the browser: ${error.errors?.map((e) => e.text).join('; ') ?? error.message}`);
    rows.push(`| ${bundle.name} | — | — | ${bundle.budget ?? ''} | ${bundle.aim ?? ''} | fails to bundle |`);
    continue;
  }
  const text = result.outputFiles[0].text;
  const gzip = gzipSync(text, { level: 9 }).length;
  // The inputs that put bytes in the bundle (esbuild also lists files it read and then shook out).
  const [output] = Object.values(result.metafile.outputs);
  const nodeOnly = Object.entries(output.inputs).filter(([file, use]) => use.bytesInOutput > 0 && NODE_ONLY_INPUT.test(file)).map(([file]) => file);
  if (nodeOnly.length > 0) problems.push(`${bundle.name}: the browser bundle contains node-only code: ${nodeOnly.join(', ')}`);
  const nodeImports = [...new Set(text.match(NODE_IMPORT) ?? [])].map((m) => m.replace(/^.*["'`]/, ''));
  if (nodeImports.length > 0) problems.push(`${bundle.name}: the browser bundle imports ${nodeImports.join(', ')}, which browsers do not have`);
  const over = bundle.budget !== undefined && tenths(kb(gzip)) > bundle.budget;
  if (over) problems.push(`${bundle.name}: ${kb(gzip).toFixed(2)} KB gzip is over its budget of ${bundle.budget} KB (aim ${bundle.aim} KB)`);
  const status = bundle.budget === undefined ? '' : over ? 'OVER BUDGET' : tenths(kb(gzip)) <= bundle.aim ? 'within aim' : 'within budget';
  rows.push(`| ${bundle.name} | ${kb(text.length).toFixed(1)} KB | ${kb(gzip).toFixed(2)} KB | ${bundle.budget ?? ''} | ${bundle.aim ?? ''} | ${status} |`);
}

console.log('| browser bundle | minified | gzip | budget (KB gzip) | aim (KB gzip) | status |');
console.log('|---|---|---|---|---|---|');
console.log(rows.join('\n'));
if (problems.length > 0) {
  console.error(`\n${problems.map((p) => `✖ ${p}`).join('\n')}`);
  process.exit(1);
}
