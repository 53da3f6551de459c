import { describe, expect, it } from 'vitest';
import { upFront } from '../../helpers/bundle.js';
import * as entry from '../../../src/index.js';
import { WorkflowConversionError } from '../../../src/cloud/workflow/index.js';
import { objectInfo } from './fixtures/object-info.js';
import { textToImage, textToImagePrompt } from './fixtures/text-to-image.js';

describe("toApiWorkflow() of the main entry ('graphcloud')", () => {
  it('loads the converter on first use: the main entry holds none of it up front', async () => {
    const modules = await upFront("export * from './src/index.ts';");
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
