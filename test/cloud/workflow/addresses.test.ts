import { describe, expect, it } from 'vitest';
import { describeWorkflowFormat, isUiWorkflow, resolveAddress, setInputs, WorkflowAddressError } from '../../../src/cloud/workflow/index.js';
import type { Workflow } from '../../../src/cloud/shared/types.js';
import { objectInfo } from './fixtures/object-info.js';
import { textToImage, textToImagePrompt } from './fixtures/text-to-image.js';

const api = (): Workflow => JSON.parse(JSON.stringify(textToImagePrompt)) as Workflow;

function addressError(run: () => unknown): WorkflowAddressError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WorkflowAddressError);
    return error as WorkflowAddressError;
  }
  throw new Error('expected a WorkflowAddressError');
}

describe('isUiWorkflow() and describeWorkflowFormat()', () => {
  it('tells a UI-format workflow from an API-format one in one hint', () => {
    expect(isUiWorkflow(textToImage)).toBe(true);
    expect(isUiWorkflow(textToImagePrompt)).toBe(false);
    expect(describeWorkflowFormat(textToImage)).toEqual({ format: 'ui', hint: expect.stringContaining('toApiWorkflow(workflow, await cloud.nodes.list())') });
    expect(describeWorkflowFormat(textToImagePrompt)).toEqual({ format: 'api', hint: undefined });
    expect(describeWorkflowFormat({ prompt: textToImagePrompt }).hint).toContain('pass the value of "prompt"');
    expect(describeWorkflowFormat([]).format).toBe('unknown');
  });
});

describe('resolveAddress()', () => {
  it('finds a node by id, by title, or by a class type only one node has', () => {
    expect(resolveAddress(api(), '3.seed')).toMatchObject({ nodeId: '3', input: 'seed' });
    expect(resolveAddress(api(), 'Positive.text')).toMatchObject({ nodeId: '6', input: 'text' });
    expect(resolveAddress(api(), 'KSampler.steps')).toMatchObject({ nodeId: '3', input: 'steps' });
  });

  it('takes the longest part before a dot that names a node, so titles may hold dots and spaces', () => {
    const workflow = api();
    workflow['6']!._meta = { title: 'v1.2 prompt' };
    expect(resolveAddress(workflow, 'v1.2 prompt.text')).toMatchObject({ nodeId: '6', input: 'text' });
  });

  it('splits at the first unescaped dot when the node part escapes its dots', () => {
    const workflow = api();
    workflow['6']!._meta = { title: 'a.b' };
    workflow['7']!._meta = { title: 'a.b.c' };
    expect(resolveAddress(workflow, 'a\\.b.c.text')).toMatchObject({ nodeId: '6', input: 'c.text' });
    expect(resolveAddress(workflow, 'a.b.c.text')).toMatchObject({ nodeId: '7', input: 'text' });
  });

  it('fails on an ambiguous class type, listing the candidates with their titles', () => {
    const error = addressError(() => resolveAddress(api(), 'CLIPTextEncode.text'));
    expect(error.candidates).toEqual([
      { nodeId: '6', classType: 'CLIPTextEncode', title: 'Positive' },
      { nodeId: '7', classType: 'CLIPTextEncode', title: 'CLIP Text Encode (Prompt)' },
    ]);
    expect(error.message).toContain('6 (CLIPTextEncode "Positive")');
  });

  it('fails on an unknown node, listing every node', () => {
    const error = addressError(() => resolveAddress(api(), 'Sampler.seed'));
    expect(error.candidates).toHaveLength(7);
    expect(error.message).toContain('names no node');
  });

  it('fails on an input the node type does not declare when node definitions are given', () => {
    const error = addressError(() => resolveAddress(api(), 'KSampler.seeed', objectInfo));
    expect(error.message).toContain('has no input "seeed"');
    expect(error.candidates).toContain('seed');
    expect(resolveAddress(api(), 'KSampler.seed', objectInfo).input).toBe('seed');
  });
});

describe('setInputs()', () => {
  it('returns a copy with the inputs set and leaves the workflow as it was', () => {
    const workflow = api();
    const changed = setInputs(workflow, { 'KSampler.seed': 7, 'Positive.text': 'a blue fox', '8.vae': ['4', 2] });
    expect(changed['3']!.inputs.seed).toBe(7);
    expect(changed['6']!.inputs.text).toBe('a blue fox');
    expect(workflow['3']!.inputs.seed).toBe(156680208700286);
    expect(workflow['6']!.inputs.text).toBe('a red fox');
  });

  it('refuses two addresses for the same input', () => {
    expect(addressError(() => setInputs(api(), { 'KSampler.seed': 1, '3.seed': 2 })).message).toContain('sets the same input');
  });

  it('keeps __proto__ as a node id or input name without touching Object.prototype', () => {
    const workflow = JSON.parse('{"__proto__":{"class_type":"X","inputs":{"a":1}}}') as Workflow;
    const changed = setInputs(workflow, { '__proto__.__proto__': 5 });
    expect(Object.keys(changed)).toEqual(['__proto__']);
    expect(Object.keys(changed['__proto__']!.inputs)).toEqual(['a', '__proto__']);
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });
});
