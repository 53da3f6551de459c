// Type cases against the generated node types of a real catalog (test/codegen/catalogs.test.ts
// copies this file beside the module it generates, nodes.ts, and type-checks both). Shared by
// ComfyUI 0.3.77 and 0.33.0: the core nodes below are in both.
import { workflow } from 'graphcloud';
import type { Nodes } from './nodes.js';

// A text-to-image graph, with a PrimitiveInt's INT driving KSampler's seed widget.
const wf = workflow<Nodes>();
const ckpt = wf.CheckpointLoaderSimple({ ckpt_name: 'sd_xl_base_1.0.safetensors' });
const positive = wf.CLIPTextEncode({ clip: ckpt.CLIP, text: 'a paper boat at dawn' }, { title: 'Positive prompt' });
const negative = wf.CLIPTextEncode({ clip: ckpt[1], text: 'blurry' });
const latent = wf.EmptyLatentImage({ width: 1024, height: 1024, batch_size: 1 });
const seed = wf.PrimitiveInt({ value: 42 });
const sampled = wf.KSampler({
  model: ckpt.MODEL,
  positive: positive.CONDITIONING,
  negative: negative.CONDITIONING,
  latent_image: latent.LATENT,
  seed: seed.INT,
  steps: wf.PrimitiveInt({ value: 20 }).out('INT'),
  cfg: 7,
  sampler_name: 'euler',
  scheduler: 'normal',
  denoise: 1,
});
const image = wf.VAEDecode({ samples: sampled.LATENT, vae: ckpt.VAE });
wf.SaveImage({ images: image.IMAGE, filename_prefix: 'boat' });
wf.ImageScale({ image: image.IMAGE, upscale_method: 'bilinear', width: 512, height: 0, crop: 'disabled' });
// A widget given by a link of its type: the prefix from a PrimitiveString.
wf.SaveImage({ images: image.IMAGE, filename_prefix: wf.PrimitiveString({ value: 'boat' }).STRING });

// @ts-expect-error a MODEL into an IMAGE input
wf.SaveImage({ images: ckpt.MODEL });
// @ts-expect-error a combo value the server does not offer
wf.ImageScale({ image: image.IMAGE, upscale_method: 'cubic', width: 512, height: 0, crop: 'disabled' });
// @ts-expect-error a required input missing (steps)
wf.KSampler({ model: ckpt.MODEL, positive: positive.CONDITIONING, negative: negative.CONDITIONING, latent_image: latent.LATENT, seed: 1, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1 });
// @ts-expect-error an input the node does not have
wf.VAEDecode({ samples: sampled.LATENT, vae: ckpt.VAE, strength: 1 });
// @ts-expect-error a STRING output into an INT widget
wf.EmptyLatentImage({ width: wf.PrimitiveString({ value: '1' }).STRING, height: 1024, batch_size: 1 });
// @ts-expect-error an output the node does not have
wf.VAEDecode({ samples: sampled.IMAGE, vae: ckpt.VAE });
// @ts-expect-error a class the server does not have
wf.FancyUpscaler({});
