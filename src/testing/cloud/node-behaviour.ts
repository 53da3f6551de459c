import { encodeBitmapPng } from '../files/png.js';
import { PngDecodeError } from '../files/png-decode.js';
import type { FileStore, StoredFile } from '../files/store.js';
import { invertImage, loadImage, loadRefusal, placeholderImage, scaleImage, type ImageValue } from './images.js';
import { PARTNER_NODE } from './nodes.js';
import { PRICED_NODES, runPricedNode } from './priced-nodes.js';
import type { PromptNode } from './prompt-validation.js';

/**
 * The value flowing along an IMAGE link: an image (size and pixels), or an `ExecutionBlocker` with a message.
 *
 * @example
 * const value: NodeValue = { kind: 'blocked', message: 'nsfw' };
 */
export type NodeValue = ImageValue | { kind: 'blocked'; message: string };

/**
 * What executing (or fetching from cache) one node gives.
 *
 * @example
 * const result: NodeResult = { value: placeholderImage(8, 8, 'seed'), ui: undefined };
 */
export interface NodeResult {
  value: NodeValue;
  /** The `executed.output` of output nodes, e.g. `{images: [{filename, subfolder, type}]}`. */
  ui: Record<string, unknown> | undefined;
}

/**
 * A node failure that ends the run with `execution_error`.
 *
 * @example
 * throw new NodeFailure('Simulated failure', 'RuntimeError');
 */
export class NodeFailure extends Error {
  override readonly name = 'NodeFailure';
  readonly exceptionType: string;

  constructor(message: string, exceptionType: string) {
    super(message);
    this.exceptionType = exceptionType;
  }
}

/**
 * What the partner node needs from the simulator: a call to its own proxy upscaler.
 *
 * @example
 * const upscale: PartnerCall = async ({ apiKey, scale }) => ({ ok: true });
 */
export type PartnerCall = (request: {
  apiKey: string | undefined;
  scaleFactor: string;
  prompt: string;
  onText: (text: string) => Promise<void>;
}) => Promise<void>;

/**
 * Everything a node behaviour may use.
 *
 * @example
 * await executeNode(node, inputs, env);
 */
export interface NodeEnv {
  nodeId: string;
  signature: string;
  store: FileStore;
  extraData: Record<string, unknown>;
  partner: PartnerCall;
  nextCounter: (folder: string) => number;
  onText: (text: string) => Promise<void>;
}

function imageOf(inputs: Record<string, unknown>, name: string): ImageValue {
  const value = inputs[name] as NodeValue | undefined;
  return value?.kind === 'image' ? value : placeholderImage(64, 64, name);
}

/** `nearest-exact` picks pixels; the other methods of the node definitions interpolate bilinearly. */
function methodOf(inputs: Record<string, unknown>): 'nearest-exact' | 'bilinear' {
  return inputs.upscale_method === 'nearest-exact' ? 'nearest-exact' : 'bilinear';
}

function splitPrefix(prefix: string): { subfolder: string; base: string } {
  const parts = prefix.split('/').filter((part) => part !== '' && part !== '..');
  const base = parts.pop() ?? 'ComfyUI';
  return { subfolder: parts.join('/'), base };
}

function inputFile(store: FileStore, value: unknown): { name: string; file: StoredFile | undefined } {
  const name = String(value).replace(/ \[(input|output|temp)\]$/, '');
  const slash = name.lastIndexOf('/');
  return { name, file: store.get('input', slash > 0 ? name.slice(0, slash) : '', slash > 0 ? name.slice(slash + 1) : name) };
}

/**
 * The checks a node type makes of its literal inputs before the run is accepted (the runtime's
 * `VALIDATE_INPUTS`): `LoadImage` refuses a PNG it would not decode (over
 * `IMAGE_LIMITS.maxLoadPixels`, or a format the simulator does not read), so the submission
 * answers 400 with the node's error instead of running.
 *
 * @example
 * validatePrompt(prompt, defs, (node) => checkNode(node, store));
 */
export function checkNode(node: PromptNode, store: FileStore): { input: string; message: string } | undefined {
  if (node.class_type !== 'LoadImage') return undefined;
  const { name, file } = inputFile(store, node.inputs.image);
  const refusal = file ? loadRefusal(file) : undefined;
  return refusal ? { input: 'image', message: `Invalid image file: ${name}: ${refusal}` } : undefined;
}

/**
 * Runs one node of the simulator's node set on resolved inputs (links replaced by values).
 *
 * @throws `NodeFailure` when the node fails the run
 * @example
 * const result = await executeNode('ImageScale', { image, width: 64, height: 0 }, env);
 */
export async function executeNode(
  classType: string,
  inputs: Record<string, unknown>,
  env: NodeEnv,
): Promise<NodeResult> {
  if (Object.hasOwn(PRICED_NODES, classType)) return { value: await runPricedNode(classType, inputs, env.onText), ui: undefined };
  switch (classType) {
    case 'LoadImage': {
      const { name, file } = inputFile(env.store, inputs.image);
      if (!file) throw new NodeFailure(`[Errno 2] No such file or directory: 'input/${name}'`, 'FileNotFoundError');
      try {
        return { value: loadImage(file), ui: undefined };
      } catch (error) {
        if (error instanceof PngDecodeError) throw new NodeFailure(`cannot identify image file 'input/${name}': ${error.message}`, 'UnidentifiedImageError');
        throw error;
      }
    }
    case 'ImageScale': {
      const source = imageOf(inputs, 'image');
      let width = Number(inputs.width);
      let height = Number(inputs.height);
      if (width === 0 && height === 0) ({ width, height } = source);
      else if (width === 0) width = Math.max(1, Math.round((source.width * height) / source.height));
      else if (height === 0) height = Math.max(1, Math.round((source.height * width) / source.width));
      const crop = inputs.crop === 'center' ? 'center' : 'disabled';
      return { value: scaleImage(source, width, height, methodOf(inputs), crop), ui: undefined };
    }
    case 'ImageScaleBy': {
      const source = imageOf(inputs, 'image');
      const scale = Number(inputs.scale_by);
      const width = Math.max(1, Math.round(source.width * scale));
      const height = Math.max(1, Math.round(source.height * scale));
      return { value: scaleImage(source, width, height, methodOf(inputs), 'disabled'), ui: undefined };
    }
    case 'ImageInvert':
      return { value: invertImage(imageOf(inputs, 'image')), ui: undefined };
    case 'SaveImage':
    case 'PreviewImage': {
      const source = imageOf(inputs, 'images');
      const save = classType === 'SaveImage';
      const { subfolder, base } = save
        ? splitPrefix(String(inputs.filename_prefix ?? 'ComfyUI'))
        : { subfolder: '', base: `ComfyUI_temp_${env.signature.slice(0, 5)}` };
      const type = save ? 'output' : 'temp';
      const counter = env.nextCounter(`${type}/${subfolder}/${base}`);
      const filename = `${base}_${String(counter).padStart(5, '0')}_.png`;
      env.store.output(type, subfolder, filename, { width: source.width, height: source.height, hash: env.signature, render: () => encodeBitmapPng(source.pixels()) });
      return { value: source, ui: { images: [{ filename, subfolder, type }] } };
    }
    case PARTNER_NODE: {
      const source = imageOf(inputs, 'image');
      const scaleFactor = String(inputs.scale_factor);
      const apiKey = env.extraData.api_key_platform_org;
      await env.partner({
        apiKey: typeof apiKey === 'string' ? apiKey : undefined,
        scaleFactor,
        prompt: typeof inputs.prompt === 'string' ? inputs.prompt : '',
        onText: env.onText,
      });
      const factor = Number.parseInt(scaleFactor, 10) || 2;
      return { value: scaleImage(source, source.width * factor, source.height * factor, 'bilinear', 'disabled'), ui: undefined };
    }
    case 'FailNode':
      throw new NodeFailure(String(inputs.message ?? 'Simulated failure'), 'RuntimeError');
    case 'BlockExecution':
      return { value: { kind: 'blocked', message: String(inputs.message ?? 'Blocked') }, ui: undefined };
    default:
      throw new NodeFailure(`Node type ${classType} has no behaviour in the simulator`, 'NotImplementedError');
  }
}
