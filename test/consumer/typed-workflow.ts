// A typed workflow over generated node types, as a user writes it: scripts/check-consumer.mjs
// compiles a copy per real catalog, `./nodes.js` becoming that catalog's generated module. Every
// node below is in both ComfyUI 0.3.77 and 0.33.0.
import { workflow, type NodeRef } from 'graphcloud';
import { nodeOutputs, type Nodes } from './nodes.js';

export function textToImage(prompt: string): NodeRef<Nodes['SaveImage']> {
  const wf = workflow<Nodes>({ outputs: nodeOutputs });
  const ckpt = wf.CheckpointLoaderSimple({ ckpt_name: 'sd_xl_base_1.0.safetensors' });
  const positive = wf.CLIPTextEncode({ clip: ckpt.CLIP, text: prompt }, { title: 'Positive prompt' });
  const negative = wf.CLIPTextEncode({ clip: ckpt[1], text: 'blurry' });
  const latent = wf.EmptyLatentImage({ width: 1024, height: 1024, batch_size: 1 });
  const sampled = wf.KSampler({
    model: ckpt.MODEL,
    positive: positive.CONDITIONING,
    negative: negative.CONDITIONING,
    latent_image: latent.LATENT,
    seed: wf.PrimitiveInt({ value: 42 }).INT,
    steps: 20,
    cfg: 7,
    sampler_name: 'euler',
    scheduler: 'normal',
    denoise: 1,
  });
  const image = wf.VAEDecode({ samples: sampled.LATENT, vae: ckpt.VAE });
  // @ts-expect-error a MODEL is no IMAGE
  wf.PreviewImage({ images: ckpt.MODEL });
  return wf.SaveImage({ images: image.IMAGE, filename_prefix: 'boat' });
}

// Untyped use compiles too, without casts.
export const untyped = workflow().node('Anything', { x: 1 }).out('OUT').node;
