import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** The modules a bundle of `code` holds up front (dynamic imports left out). */
async function upFront(code: string): Promise<string[]> {
  const result = await build({
    stdin: { contents: code, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    metafile: true,
    logLevel: 'silent',
    external: ['node:*'],
    plugins: [{ name: 'lazy', setup: (b) => b.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined)) }],
  });
  const [output] = Object.values(result.metafile.outputs);
  return Object.entries(output!.inputs).filter(([, use]) => use.bytesInOutput > 0).map(([file]) => file);
}

describe('cost estimates in a browser bundle', () => {
  it('load on first use: the main entry holds neither the estimator nor JSONata up front', async () => {
    const modules = await upFront("export * from './src/index.ts';");
    expect(modules).toContain('src/cloud/client.ts');
    expect(modules.filter((file) => /src\/cloud\/cost\/(estimate|badge|context)\.ts$|node_modules\/jsonata\//.test(file))).toEqual([]);
  });

  it('load JSONata only when a workflow has a priced node: the estimator holds none of it up front', async () => {
    const modules = await upFront("export * from './src/cloud/cost/estimate.ts';");
    expect(modules).toContain('src/cloud/cost/badge.ts');
    expect(modules.filter((file) => file.includes('node_modules/jsonata/'))).toEqual([]);
  });
});
