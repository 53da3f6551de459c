import { isUiWorkflow, resolveAddress, setInputs, toApiWorkflow, type CloudClient, type Workflow } from '../../index.js';
import type { CommandContext } from './command.js';
import { usageError } from './errors.js';
import { checkReadable, readJsonFile } from './files.js';
import { parseAssignment, parseDuration, parseMaxCost, typedValue, type Assignment } from './values.js';

/**
 * The flags `run` and `batch` share, checked in this order (`--set`, `--upload`, `--timeout`,
 * `--max-cost`, `--allow-unpriced`), every `--upload` file found readable, and the workflow file
 * read as JSON: all before a client is made.
 *
 * @throws {CliError} a flag is malformed, a file cannot be read.
 * @example
 * ```ts
 * const { raw, sets, uploads, waitTimeout, maxCost } = await readWorkflowFlags(ctx, 'portrait.json', help);
 * ```
 */
export async function readWorkflowFlags(ctx: CommandContext, file: string, help: string): Promise<{ raw: unknown; sets: Assignment[]; uploads: Assignment[]; waitTimeout: number | false | undefined; maxCost: number | undefined }> {
  const { options } = ctx;
  const sets = ((options.set as string[] | undefined) ?? []).map((text) => parseAssignment(text, '--set', help));
  const uploads = ((options.upload as string[] | undefined) ?? []).map((text) => parseAssignment(text, '--upload', help));
  const waitTimeout = typeof options.timeout === 'string' ? parseDuration(options.timeout, '--timeout', help) : undefined;
  const maxCost = options['max-cost'] === undefined ? undefined : parseMaxCost(options['max-cost'], help);
  if (options['allow-unpriced'] && maxCost === undefined) throw usageError('--allow-unpriced goes with --max-cost.', help);
  for (const upload of uploads) await checkReadable(upload.value, help);
  return { raw: await readJsonFile(file, help), sets, uploads, waitTimeout, maxCost };
}

/**
 * The workflow of a file as the API format: a UI-format file (what the web UI saves) is converted
 * with the server's node definitions, as the SDK's `toApiWorkflow` does.
 *
 * @throws {CliError} the file holds no workflow; {WorkflowConversionError} a node cannot be converted.
 * @example
 * ```ts
 * const workflow = await loadWorkflow(raw, 'portrait.json', () => cloud.nodes.list(), help);
 * ```
 */
export async function loadWorkflow(raw: unknown, file: string, definitions: () => Promise<CloudClient.ObjectInfo>, help: string): Promise<Workflow> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw usageError(`${file} holds no workflow (a JSON object).`, help);
  if (isUiWorkflow(raw)) return await toApiWorkflow(raw, await definitions());
  const record = raw as Record<string, unknown>;
  const broken = Object.entries(record).find(([, node]) => !node || typeof node !== 'object' || typeof (node as { class_type?: unknown }).class_type !== 'string');
  if (broken || Object.keys(record).length === 0) {
    throw usageError(`${file} is not a workflow: ${broken ? `node "${broken[0]}" has no class_type` : 'it has no nodes'} (the API format maps node ids to { class_type, inputs }; the UI format has "nodes" and "links").`, help);
  }
  return raw as Workflow;
}

/**
 * A copy of the workflow with the `--set` values written in. An address is `<node>.<input>`
 * (a node id, a title, or a class type only one node has); a value takes the type of the value
 * it replaces (a number stays a number), else the type the node definition declares.
 *
 * @throws {WorkflowAddressError} an address naming no node, several, or no input of the node (with candidates).
 * @throws {CliError} a value of the wrong type.
 * @example
 * ```ts
 * applySets(workflow, [{ key: 'KSampler.seed', value: '42', json: false }], info, help);
 * ```
 */
export function applySets(workflow: Workflow, sets: readonly Assignment[], info: CloudClient.ObjectInfo | undefined, help: string): Workflow {
  if (sets.length === 0) return workflow;
  const values: Record<string, unknown> = {};
  for (const set of sets) {
    const { nodeId, input } = locate(workflow, set.key, info);
    const current = workflow[nodeId]!.inputs[input];
    const like = current === undefined || Array.isArray(current) ? declaredExample(info, workflow[nodeId]!.class_type, input) : current;
    values[set.key] = typedValue(set, like, '--set', help);
  }
  return setInputs(workflow, values, info);
}

/**
 * The inputs the addresses name, as `<nodeId>.<input>`.
 *
 * @throws {WorkflowAddressError} an address naming no node, several, or no input of the node.
 * @example
 * ```ts
 * inputsOf(workflow, ['Load Image.image'], info); // Set { '10.image' }
 * ```
 */
export function inputsOf(workflow: Workflow, addresses: readonly string[], info: CloudClient.ObjectInfo | undefined): Set<string> {
  return new Set(addresses.map((address) => {
    const { nodeId, input } = locate(workflow, address, info);
    return `${nodeId}.${input}`;
  }));
}

/**
 * Where an address points: the SDK's `resolveAddress()`, without the node.
 *
 * @throws {WorkflowAddressError} an address naming no node, several, or no input of the node.
 * @example
 * ```ts
 * locate(workflow, 'KSampler.seed', info); // { nodeId: '3', input: 'seed' }
 * ```
 */
export function locate(workflow: Workflow, address: string, info: CloudClient.ObjectInfo | undefined): { nodeId: string; input: string } {
  const { nodeId, input } = resolveAddress(workflow, address, info);
  return { nodeId, input };
}

/**
 * A value of the type the node definition declares for an input (a number for INT), or undefined.
 *
 * @example
 * ```ts
 * declaredExample(info, 'KSampler', 'seed'); // 0
 * ```
 */
export function declaredExample(info: CloudClient.ObjectInfo | undefined, classType: string, input: string): unknown {
  const definition = info && Object.hasOwn(info, classType) ? info[classType] : undefined;
  const spec = definition?.input?.required?.[input] ?? definition?.input?.optional?.[input];
  const type = Array.isArray(spec) ? spec[0] : undefined;
  if (type === 'INT' || type === 'FLOAT') return 0;
  if (type === 'BOOLEAN') return false;
  if (type === 'STRING' || type === 'COMBO' || Array.isArray(type)) return '';
  return undefined;
}
