// Size of what a browser app ships when it imports only RegistryClient: esbuild bundle of the
// built dist/, minified, gzip level 9. Target: at most 10 KB. Also checks that no `node:` module,
// `ws` or simulator code reaches the browser bundle of the main entry.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';

const TARGET_BYTES = 10 * 1024;
const cases = [
  { name: 'RegistryClient only', code: "import { RegistryClient } from './dist/index.js'; globalThis.r = new RegistryClient({ baseUrl: 'https://x.test' });", target: TARGET_BYTES },
  { name: 'everything in graphcloud', code: "export * from './dist/index.js';" },
  // The floor set by the two runtime dependencies the design requires, measured the same way.
  { name: 'ky alone (dependency floor)', code: "import ky from 'ky'; globalThis.k = ky.create({ retry: 0 });" },
  { name: 'zod/mini object schemas alone (dependency floor)', code: "import * as z from 'zod/mini'; globalThis.s = z.looseObject({ a: z.optional(z.nullable(z.string())), b: z.array(z.number()), c: z.record(z.string(), z.unknown()) });" },
];
let failed = false;
console.log('| bundle | minified | gzip | target | met |');
console.log('|---|---|---|---|---|');
for (const c of cases) {
  const result = await build({
    stdin: { contents: c.code, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'error',
    metafile: true,
  });
  const text = result.outputFiles[0].text;
  const gz = gzipSync(text, { level: 9 }).length;
  const inputs = Object.keys(result.metafile.inputs);
  const forbidden = inputs.filter((file) => /node_modules\/ws\/|src\/testing|dist\/testing/.test(file));
  if (/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["'`]node:/.test(text) || forbidden.length > 0) {
    failed = true;
    console.error(`${c.name}: the browser bundle contains node-only code: ${forbidden.join(', ') || 'a node: import'}`);
  }
  const met = c.target === undefined ? '' : gz <= c.target ? 'yes' : 'NO';
  console.log(`| ${c.name} | ${(text.length / 1024).toFixed(1)} KB | ${(gz / 1024).toFixed(2)} KB | ${c.target ? `<= ${c.target / 1024} KB` : ''} | ${met} |`);
}
if (failed) process.exit(1);
