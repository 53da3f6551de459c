import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as entry from '../../../src/index.js';
import { WorkflowConversionError } from '../../../src/cloud/workflow/index.js';
import { objectInfo } from './fixtures/object-info.js';
import { textToImage, textToImagePrompt } from './fixtures/text-to-image.js';

/** The modules a page loads up front for `import * from 'graphcloud'` (dynamic imports left out). */
async function upFront(): Promise<string[]> {
  const result = await build({
    stdin: { contents: "export * from './src/index.ts';", resolveDir: process.cwd(), loader: 'ts' },
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

describe("toApiWorkflow() of the main entry ('graphcloud')", () => {
  it('loads the converter on first use: the main entry holds none of it up front', async () => {
    const modules = await upFront();
    expect(modules).toContain('src/cloud/client.ts');
    expect(modules.filter((file) => /src\/cloud\/workflow\/(to-api|load|resolve|widget-values|subgraph-instance|primitives|order)\.ts$/.test(file))).toEqual([]);
  });

  it('resolves to the prompt the web UI makes, and rejects with the conversion error', async () => {
    const prompt = entry.toApiWorkflow(textToImage, objectInfo);
    expect(prompt).toBeInstanceOf(Promise);
    expect(JSON.stringify(await prompt)).toBe(JSON.stringify(textToImagePrompt));
    await expect(entry.toApiWorkflow({ nodes: [{ id: 1, type: 'NoSuchNode', mode: 0, inputs: [], outputs: [], widgets_values: [] }], links: [] }, objectInfo)).rejects.toBeInstanceOf(WorkflowConversionError);
  });
});
