// Type cases of ComfyUI 0.33.0's V3 dynamic inputs (test/codegen/catalogs.test.ts): a partner
// node whose dynamic combo adds the chosen model's inputs, autogrow inputs, and match-type inputs.
import { workflow } from 'graphcloud';
import type { Nodes } from './nodes.js';

const wf = workflow<Nodes>();
const photo = wf.LoadImage({ image: 'cat.png' });
const claude = wf.ClaudeNode({
  prompt: 'Describe the picture',
  model: 'Opus 4.7',
  'model.max_tokens': 4096,
  'model.temperature': 0.5,
  'model.reasoning_effort': 'low',
  seed: 0,
  'images.image_1': photo.IMAGE,
  'images.image_2': photo.IMAGE,
});
wf.ClaudeNode({ prompt: 'Short', model: 'Haiku 4.5', 'model.max_tokens': 1024, 'model.temperature': 1, seed: 1, system_prompt: claude.STRING });
wf.PreviewAny({ source: claude.STRING });
const batch = wf.BatchImagesNode({ 'images.image0': photo.IMAGE, 'images.image1': photo.IMAGE });
const resized = wf.ResizeImageMaskNode({ input: batch.IMAGE, resize_type: 'scale by multiplier', 'resize_type.multiplier': 0.5, scale_method: 'area' });
// A match-type output is `*`: it goes into an IMAGE input, whatever its input was.
wf.SaveImage({ images: resized[0], filename_prefix: 'half' });
wf.ComfySwitchNode({ switch: true, on_true: photo.IMAGE, on_false: photo.MASK });
wf.StringFormat({ f_string: '{a} and {b}', 'values.a': claude.STRING, 'values.b': seed() });

function seed() {
  return wf.PrimitiveInt({ value: 1 }).INT;
}

// @ts-expect-error Haiku 4.5 has no reasoning_effort
wf.ClaudeNode({ prompt: 'x', model: 'Haiku 4.5', 'model.max_tokens': 1024, 'model.temperature': 1, 'model.reasoning_effort': 'low', seed: 1 });
// @ts-expect-error a model the server does not offer
wf.ClaudeNode({ prompt: 'x', model: 'Opus 9', seed: 1 });
// @ts-expect-error the chosen model's required inputs missing
wf.ClaudeNode({ prompt: 'x', model: 'Opus 4.7', seed: 1 });
// @ts-expect-error the first autogrow input is required (min 1)
wf.BatchImagesNode({});
// @ts-expect-error a MASK into a match type of IMAGE or MASK is fine, a MODEL is not
wf.ResizeImageMaskNode({ input: wf.CheckpointLoaderSimple({ ckpt_name: 'a' }).MODEL, resize_type: 'scale by multiplier', 'resize_type.multiplier': 0.5, scale_method: 'area' });
