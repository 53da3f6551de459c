import { describe, expect, it } from 'vitest';
import { validateWorkflow, type Workflow } from '../../../src/index.js';
import { type ObjectInfo } from '../../../src/cloud/workflow/validate.js';
import { readObjectInfo } from '../../../src/cloud/workflow/node-definitions.js';
import { partnerCatalog } from './catalog.js';

const catalog = partnerCatalog();
const info = readObjectInfo(catalog) as ObjectInfo;

/** The names of every autogrow input of a node type, those inside dynamic combo options too (`model.images`). */
function autogrowNames(input: unknown, prefix = '', names = new Set<string>()): Set<string> {
  for (const group of ['required', 'optional']) {
    for (const [key, spec] of Object.entries(((input as Record<string, unknown>)?.[group] ?? {}) as Record<string, [unknown, { options?: Array<{ inputs?: unknown }> }?]>)) {
      if (spec[0] === 'COMFY_AUTOGROW_V3') names.add(`${prefix}${key}`);
      if (spec[0] === 'COMFY_DYNAMICCOMBO_V3') for (const option of spec[1]?.options ?? []) autogrowNames(option.inputs, `${prefix}${key}.`, names);
    }
  }
  return names;
}
const missing = (workflow: Workflow) => validateWorkflow(workflow, info).filter((issue) => issue.code === 'missing_required_input');

// The 17 partner nodes of the 0.33.0 catalog with a required autogrow input whose template's `min`
// is 0, at the top (ClaudeNode) or in the chosen option of a dynamic combo (`model.images`).
const MIN_ZERO = ['ClaudeNode', 'Flux2ImageNode', 'ByteDanceSeedreamNodeV2', 'ByteDance2ReferenceNode', 'ByteDanceSeedNode', 'GeminiNodeV2', 'GeminiNanoBanana2V2', 'GeminiVideoOmni', 'HeyGenCreateAvatarNode', 'MinimaxHailuo03ReferenceNode', 'MinimaxHailuo03ContextIRNode', 'MinimaxHailuo03RegenerateNode', 'OpenAIGPTImageNodeV2', 'OpenRouterLLMNode', 'Wan2VideoEditApi', 'Wan2ReferenceVideoApi', 'HappyHorseVideoEditApi'];

describe('validateWorkflow() autogrow inputs (COMFY_AUTOGROW_V3)', () => {
  it('accepts a required autogrow input left empty when its template allows none (min 0), as the server does', () => {
    for (const classType of MIN_ZERO) {
      const names = autogrowNames(catalog[classType]!.input);
      const autogrow = missing({ '1': { class_type: classType, inputs: {} } }).filter((issue) => names.has(issue.input ?? ''));
      expect(autogrow, classType).toEqual([]);
    }
    expect(missing({ '1': { class_type: 'ClaudeNode', inputs: { prompt: 'hi', model: 'claude-sonnet-4-6', seed: 0 } } }).map((issue) => issue.input)).not.toContain('images');
  });

  it('counts the sockets "<name>.<socket>" of an autogrow input against its min', () => {
    // MeshyMultiImageToModelNode: images, min 2.
    const image = ['9', 0];
    const refused = missing({ '1': { class_type: 'MeshyMultiImageToModelNode', inputs: { 'images.image0': image } }, '9': { class_type: 'ClaudeNode', inputs: {} } });
    expect(refused.find((issue) => issue.input === 'images')).toMatchObject({ message: expect.stringContaining('at least 2 inputs "images.<name>" of MeshyMultiImageToModelNode (1 set)') });
    const accepted = missing({ '1': { class_type: 'MeshyMultiImageToModelNode', inputs: { 'images.image0': image, 'images.image1': image } }, '9': { class_type: 'ClaudeNode', inputs: {} } });
    expect(accepted.find((issue) => issue.nodeId === '1' && issue.input === 'images')).toBeUndefined();
  });

  it("checks the inputs of a dynamic combo's chosen option, named combo.input", () => {
    // GrokVideoReferenceNode: model "grok-imagine-video" has reference_images (autogrow, min 1) and duration (INT 2-10).
    const node = { class_type: 'GrokVideoReferenceNode', inputs: { prompt: 'a boat', model: 'grok-imagine-video', 'model.duration': 11, seed: 0 } };
    const issues = validateWorkflow({ '1': node }, info);
    expect(issues).toEqual(expect.arrayContaining([expect.objectContaining({ input: 'model.reference_images', code: 'missing_required_input' }), expect.objectContaining({ input: 'model.duration', code: 'out_of_range' })]));
  });
});
