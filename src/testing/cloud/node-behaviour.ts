import { colorFor } from '../files/png.js';
import type { FileStore } from '../files/store.js';
import { PARTNER_NODE } from './nodes.js';

/**
 * The value flowing along an IMAGE link: a size, or an `ExecutionBlocker` with a message.
 *
 * @example
 * const value: NodeValue = { kind: 'image', width: 512, height: 512 };
 */
export type NodeValue = { kind: 'image'; width: number; height: number } | { kind: 'blocked'; message: string };

/**
 * What executing (or fetching from cache) one node gives.
 *
 * @example
 * const result: NodeResult = { value: { kind: 'image', width: 8, height: 8 }, ui: undefined };
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

function imageOf(inputs: Record<string, unknown>, name: string): { width: number; height: number } {
  const value = inputs[name] as NodeValue | undefined;
  return value?.kind === 'image' ? value : { width: 64, height: 64 };
}

function splitPrefix(prefix: string): { subfolder: string; base: string } {
  const parts = prefix.split('/').filter((part) => part !== '' && part !== '..');
  const base = parts.pop() ?? 'ComfyUI';
  return { subfolder: parts.join('/'), base };
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
  switch (classType) {
    case 'LoadImage': {
      const name = String(inputs.image).replace(/ \[(input|output|temp)\]$/, '');
      const slash = name.lastIndexOf('/');
      const file = env.store.get('input', slash > 0 ? name.slice(0, slash) : '', slash > 0 ? name.slice(slash + 1) : name);
      if (!file) throw new NodeFailure(`[Errno 2] No such file or directory: 'input/${name}'`, 'FileNotFoundError');
      return { value: { kind: 'image', width: file.width, height: file.height }, ui: undefined };
    }
    case 'ImageScale': {
      const source = imageOf(inputs, 'image');
      let width = Number(inputs.width);
      let height = Number(inputs.height);
      if (width === 0 && height === 0) ({ width, height } = source);
      else if (width === 0) width = Math.max(1, Math.round((source.width * height) / source.height));
      else if (height === 0) height = Math.max(1, Math.round((source.height * width) / source.width));
      return { value: { kind: 'image', width, height }, ui: undefined };
    }
    case 'ImageScaleBy': {
      const source = imageOf(inputs, 'image');
      const scale = Number(inputs.scale_by);
      const width = Math.max(1, Math.round(source.width * scale));
      const height = Math.max(1, Math.round(source.height * scale));
      return { value: { kind: 'image', width, height }, ui: undefined };
    }
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
      env.store.output(type, subfolder, filename, source.width, source.height, colorFor(env.signature));
      return { value: { kind: 'image', ...source }, ui: { images: [{ filename, subfolder, type }] } };
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
      return { value: { kind: 'image', width: source.width * factor, height: source.height * factor }, ui: undefined };
    }
    case 'FailNode':
      throw new NodeFailure(String(inputs.message ?? 'Simulated failure'), 'RuntimeError');
    case 'BlockExecution':
      return { value: { kind: 'blocked', message: String(inputs.message ?? 'Blocked') }, ui: undefined };
    default:
      throw new NodeFailure(`Node type ${classType} has no behaviour in the simulator`, 'NotImplementedError');
  }
}
