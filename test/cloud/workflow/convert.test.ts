import { describe, expect, it } from 'vitest';
import { toApiWorkflow } from '../../../src/cloud/workflow/index.js';
import { objectInfo } from './fixtures/object-info.js';
import { textToImage, textToImagePrompt } from './fixtures/text-to-image.js';

const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('toApiWorkflow()', () => {
  it('converts the default text-to-image workflow into the prompt the web UI makes', () => {
    const prompt = toApiWorkflow(textToImage, objectInfo);
    expect(plain(prompt)).toEqual(textToImagePrompt);
    expect(JSON.stringify(prompt)).toBe(JSON.stringify(textToImagePrompt));
  });
});
