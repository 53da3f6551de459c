import { build } from 'esbuild';

/**
 * The modules a browser bundle of `code` holds up front (dynamic imports left out), as paths
 * relative to the repository: what a page loads before any lazy chunk.
 */
export async function upFront(code: string): Promise<string[]> {
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
