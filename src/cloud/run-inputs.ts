// The inputs of one run: values and uploads keyed by input address ("<node>.<input>", the node by
// id, title or unique class type; docs/workflows.md#input-addresses). Every address is resolved,
// and checked against the node definitions, before anything is uploaded or submitted.
import { checkOptions, isPlainObject, rule, type Checker, type FileInput, type OptionRules } from '../core/index.js';
import { isFileInput, type UploadOptions } from './files.js';
import type { Workflow } from './model/types.js';
import type { ObjectInfo } from './model/validate-workflow.js';
import { WorkflowAddressError } from './workflow/address-error.js';
import { namesNode, resolveAddress, setInputs } from './workflow/addresses.js';
import type { UiWorkflow } from './workflow/types.js';

/**
 * One upload of `runWorkflow({ uploads })`: a file, or a file with upload options.
 *
 * @example
 * ```ts
 * const spec: UploadSpec = { file: './photo.png', filename: 'photo.png', overwrite: true };
 * ```
 */
export type UploadSpec =
  | FileInput
  | ({
      /** The file to upload: a path, bytes or a `Blob`. */
      file: FileInput;
    } & Pick<UploadOptions, 'filename' | 'type' | 'overwrite'>);

/**
 * One upload, as the run performs it.
 *
 * @example
 * ```ts
 * const upload: UploadTarget = { address: 'Load Image.image', file: './in.png', options: {} };
 * ```
 */
export interface UploadTarget {
  address: string;
  file: FileInput;
  options: Pick<UploadOptions, 'filename' | 'type' | 'overwrite'>;
}

const SPEC_RULES: OptionRules = { file: rule.any, filename: rule.string, type: rule.oneOf(['input', 'temp']), overwrite: rule.boolean };

/**
 * Reads `options.uploads`, recording bad specs on `check` (the addresses are resolved once the
 * workflow is in the API format: `placeInputs()`).
 *
 * @example
 * ```ts
 * const uploads = readUploads(check, options.uploads);
 * ```
 */
export function readUploads(check: Checker, uploads: unknown): UploadTarget[] {
  if (!isPlainObject(uploads)) return [];
  return Object.entries(uploads).map(([address, spec]): UploadTarget => {
    const path = `options.uploads["${address}"]`;
    if (isPlainObject(spec)) {
      checkOptions(check, path, spec, SPEC_RULES);
      if (!isFileInput(spec.file)) check.fail(`${path}.file`, 'a Blob, File, ArrayBuffer, Uint8Array, ReadableStream or file path', spec.file);
      const { file, ...options } = spec as { file: FileInput } & UploadTarget['options'];
      return { address, file, options };
    }
    if (!isFileInput(spec)) check.fail(path, 'a file: a Blob, File, ArrayBuffer, Uint8Array, ReadableStream, file path, or { file, filename?, type?, overwrite? }', spec);
    return { address, file: spec as FileInput, options: {} };
  });
}

/**
 * Where each input and upload goes, in the API-format workflow of the run. With node definitions,
 * an address must name an input the node type declares. Two addresses of the same input fail.
 *
 * @throws {@link WorkflowAddressError} for an unknown or ambiguous node, an unknown input, or an input set twice.
 * @example
 * ```ts
 * const { workflow, uploads } = placeInputs(api, { 'KSampler.seed': 7 }, targets, info);
 * ```
 */
export function placeInputs(api: Workflow, inputs: Record<string, unknown>, uploads: readonly UploadTarget[], info: ObjectInfo | undefined): { workflow: Workflow; uploads: { nodeId: string; input: string }[] } {
  const taken = new Map<string, string>();
  const claim = (address: string) => {
    const { nodeId, input } = resolveAddress(api, address, info);
    const key = `${nodeId}\u0000${input}`;
    const earlier = taken.get(key);
    if (earlier !== undefined) throw new WorkflowAddressError(address, `sets the same input as "${earlier}" (node ${nodeId}, input "${input}")`, 'Set each input once, in inputs or in uploads', [earlier]);
    taken.set(key, address);
    return { nodeId, input };
  };
  Object.keys(inputs).forEach(claim);
  const places = uploads.map((upload) => claim(upload.address));
  const workflow = Object.keys(inputs).length > 0 ? setInputs(api, inputs, info) : api;
  return { workflow, uploads: places };
}

/**
 * A copy of the workflow with the uploaded names written in; the given workflow is untouched.
 *
 * @example
 * ```ts
 * const prepared = withUploads(workflow, [{ nodeId: '1', input: 'image' }], ['cat (1).png']);
 * ```
 */
export function withUploads(workflow: Workflow, places: readonly { nodeId: string; input: string }[], names: readonly string[]): Workflow {
  const copy: Workflow = { ...workflow };
  places.forEach(({ nodeId, input }, index) => {
    const node = copy[nodeId];
    if (node) copy[nodeId] = { ...node, inputs: { ...node.inputs, [input]: names[index] } };
  });
  return copy;
}

// Nodes of the web UI that never reach the server (docs/workflows.md).
const FRONTEND_ONLY = new Set(['Reroute', 'Note', 'MarkdownNote', 'PrimitiveNode']);
// Muted (2) and bypassed (4) nodes are left out of the prompt.
const LEFT_OUT = new Set([2, 4]);

/**
 * Refuses, before a UI-format workflow is converted (which reads the node definitions), an address
 * whose node part certainly names no node: none of the file's node ids, titles and types, when
 * every node the conversion can emit has a title of its own. (An untitled node is titled by its
 * definition's display name, which only the definitions give: then the check waits for them.)
 * Ids of expanded subgraphs (`outer:inner`) and every other ambiguity are left to `placeInputs()`.
 *
 * @throws {@link WorkflowAddressError} listing the nodes of the workflow.
 * @example
 * ```ts
 * checkUiAddresses(ui, ['Photo.image', 'Resize.width']);
 * ```
 */
export function checkUiAddresses(ui: UiWorkflow, addresses: readonly string[]): void {
  const subgraphs = ui.definitions?.subgraphs ?? [];
  const groups = ui.extra?.groupNodes ?? {};
  // The file's nodes: its own first (`top`), then those inside subgraphs and group nodes.
  const nodes = [ui, ...(Array.isArray(subgraphs) ? subgraphs : []), ...(isPlainObject(groups) ? Object.values(groups) : [])].flatMap((graph, index) =>
    isPlainObject(graph) && Array.isArray(graph.nodes) ? graph.nodes.filter(isPlainObject).map((node) => ({ node, top: index === 0 })) : [],
  );
  const inner = new Set(subgraphs.map((graph) => (isPlainObject(graph) ? graph.id : undefined)));
  const runs = ({ type, mode }: Record<string, unknown>) => typeof type === 'string' && !FRONTEND_ONLY.has(type) && !inner.has(type) && !/^workflow[>/]/.test(type) && !LEFT_OUT.has(mode as number);
  if (nodes.some(({ node }) => runs(node) && !(typeof node.title === 'string' && node.title))) return;
  // Every node under a key; one inside another graph under a key no address names (its id will be composite).
  const all: Workflow = Object.create(null);
  const shown: Workflow = Object.create(null);
  nodes.forEach(({ node, top }, index) => {
    const skeleton = { class_type: String(node.type), inputs: {}, _meta: { title: node.title as string } };
    all[top ? String(node.id) : `:${index}`] = skeleton;
    if (top && runs(node)) shown[String(node.id)] = skeleton;
  });
  for (const address of addresses) {
    // Throws the error of an address naming no node (or a malformed one), listing the nodes.
    if (!address.includes(':') && !namesNode(all, address)) resolveAddress(shown, address);
  }
}
