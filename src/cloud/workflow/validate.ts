// Checking a workflow before it is sent: which of the two formats it is in (a caller who passes a
// file saved from the web UI gets one clear hint instead of one validation issue per key), and its
// nodes against the server's definitions (the shape every submission needs is submit.ts's).
import { isRecord, own } from '../../core/index.js';
import { readNodeDefinition, type InputSpec, type ObjectInfo } from './node-definitions.js';
import type { Workflow, WorkflowIssue, WorkflowNode } from '../shared/types.js';
import type { UiWorkflow } from './types.js';
import { builtWorkflow, isWorkflowBuilder } from './builder.js';

// The definition types live beside the schemas that read them; re-exported for the modules that read definitions.
export type { InputOptions, InputSpec, NodeDefinition, ObjectInfo } from './node-definitions.js';

/**
 * What `describeWorkflowFormat()` found: `ui` (saved from the web UI, needs converting), `api`
 * (ready to submit), or `unknown`.
 *
 * @example
 * ```ts
 * const { format, hint } = describeWorkflowFormat(json);
 * if (format === 'ui') console.log(hint);
 * ```
 */
export interface WorkflowFormat {
  /** `ui` (saved from the web UI: convert it with `toApiWorkflow()`), `api` (ready to submit) or `unknown`. */
  format: 'ui' | 'api' | 'unknown';
  /** One sentence for the caller, set when the value is not an API-format workflow. */
  hint: string | undefined;
}

/** The sentence `submit` and `runWorkflow` give when handed a UI-format workflow. */
export const UI_FORMAT_HINT =
  'this is a workflow saved from the web UI (UI format); pass it through await toApiWorkflow(workflow, await cloud.nodes.list()) or let runWorkflow convert it';

/**
 * True for a workflow saved from the web UI (UI format): an object with a `nodes` array and a
 * `links` array.
 *
 * @example
 * ```ts
 * const workflow = isUiWorkflow(json) ? await toApiWorkflow(json, await cloud.nodes.list()) : json;
 * ```
 */
export function isUiWorkflow(value: unknown): value is UiWorkflow {
  return isRecord(value) && Array.isArray(value.nodes) && Array.isArray(value.links);
}

/**
 * Says which format a workflow is in, with a one-sentence hint when it is not the API format:
 * `submit` and `runWorkflow` report this as a single issue.
 *
 * @example
 * ```ts
 * describeWorkflowFormat({ nodes: [], links: [] });
 * // { format: 'ui', hint: 'this is a workflow saved from the web UI (UI format); pass it through await toApiWorkflow(...)...' }
 * ```
 */
export function describeWorkflowFormat(value: unknown): WorkflowFormat {
  if (isUiWorkflow(value)) return { format: 'ui', hint: UI_FORMAT_HINT };
  if (!isRecord(value)) return { format: 'unknown', hint: HINTS.notAWorkflow };
  if (Array.isArray(value.nodes) || ('nodes' in value && 'links' in value)) return { format: 'unknown', hint: HINTS.brokenUi };
  if (isRecord(value.prompt)) return { format: 'unknown', hint: HINTS.requestBody };
  const nodes = Object.values(value);
  const api = nodes.length > 0 && nodes.every((node) => typeof (node as Partial<WorkflowNode> | null)?.class_type === 'string');
  return api ? { format: 'api', hint: undefined } : { format: 'unknown', hint: HINTS.notAWorkflow };
}

const HINTS = {
  notAWorkflow: 'a workflow is an object mapping node ids to {class_type, inputs} (API format), or the JSON saved from the web UI',
  brokenUi: 'this looks like a workflow saved from the web UI but its "nodes" or "links" is not an array; save it again from the web UI',
  requestBody: 'this looks like a request body ({prompt: ...}); pass the value of "prompt" instead',
};

/**
 * Options of `validateWorkflow()`.
 *
 * @example
 * ```ts
 * validateWorkflow(workflow, info, { pending: new Set(['1.image']) });
 * ```
 */
export interface ValidateWorkflowOptions {
  /** `"<nodeId>.<inputName>"` entries whose value is filled in later (uploads): present, value not checked. */
  pending?: ReadonlySet<string> | undefined;
}

/**
 * Checks an API-format workflow (or a `workflow()` builder) against the server's node definitions, before anything is sent:
 * unknown `class_type`, missing required inputs, numbers outside `min`/`max`, values outside an
 * option list (legacy `[[...values]]` and `COMBO` forms), literals of the wrong type, and links to
 * missing nodes. Returns every issue found (empty when the workflow looks valid). A node whose
 * definition cannot be read is not checked: its issue is a warning (`severity: 'warning'`,
 * `code: 'unchecked_node'`), which does not stop a run.
 *
 * @example
 * ```ts
 * const issues = validateWorkflow(workflow, await cloud.nodes.list());
 * for (const i of issues) console.log(`${i.nodeId}.${i.input ?? ''}: ${i.message}`);
 * ```
 */
export function validateWorkflow(given: Workflow | { toJSON(): Workflow }, objectInfo: ObjectInfo, options: ValidateWorkflowOptions = {}): WorkflowIssue[] {
  const issues: WorkflowIssue[] = [];
  // A builder (`workflow()`) is checked as the API workflow it writes, its outputs named by the catalog.
  const workflow = isWorkflowBuilder(given) ? builtWorkflow(given, objectInfo) : (given as Workflow);
  if (!isRecord(workflow)) {
    return [{ nodeId: '(workflow)', code: 'invalid_node', message: 'an object mapping node ids to nodes', received: workflow }];
  }
  // One issue for a file saved from the web UI, not one per top-level key.
  if (isUiWorkflow(workflow)) return [{ nodeId: '(workflow)', code: 'ui_format', message: UI_FORMAT_ISSUE, received: '(a UI-format workflow)' }];
  for (const [nodeId, node] of Object.entries(workflow)) {
    const pending = (name: string) => options.pending?.has(`${nodeId}.${name}`) === true;
    if (!node || typeof node !== 'object' || typeof node.class_type !== 'string' || !node.inputs || typeof node.inputs !== 'object') {
      issues.push({ nodeId, code: 'invalid_node', message: 'a node {class_type: string, inputs: object}', received: node });
      continue;
    }
    const raw = own(objectInfo, node.class_type);
    if (raw === undefined) {
      issues.push({ nodeId, code: 'unknown_class_type', message: `a node type the server knows (unknown class_type "${node.class_type}")`, received: node.class_type });
      continue;
    }
    // A definition the SDK cannot read costs its nodes their checks, never the run (docs/cloud.md).
    const { definition, unreadable } = readNodeDefinition(raw);
    if (unreadable !== undefined) {
      issues.push({ nodeId, code: 'unchecked_node', severity: 'warning', message: `inputs not checked: the server's definition of "${node.class_type}" could not be read (${unreadable})`, received: node.class_type });
      continue;
    }
    // The definition's inputs, and those of each dynamic combo's chosen option (`model.duration`).
    const specs = inputSpecs(definition.input, node.inputs);
    for (const [name, { spec, required }] of specs) {
      if (!required || pending(name)) continue;
      if (spec[0] === 'COMFY_AUTOGROW_V3') {
        // Its sockets are inputs named `<name>.<socket>`; the template's `min` (1 when absent) says how many must be set.
        const given = own(own(spec[1], 'template'), 'min');
        const min = typeof given === 'number' && given >= 0 ? given : 1;
        const set = Object.keys(node.inputs).filter((key) => key.startsWith(`${name}.`) && node.inputs[key] != null).length;
        if (set < min) issues.push({ nodeId, input: name, code: 'missing_required_input', message: `at least ${min} input${min === 1 ? '' : 's'} "${name}.<name>" of ${node.class_type} (${set} set)` });
      } else if (node.inputs[name] == null) {
        issues.push({ nodeId, input: name, code: 'missing_required_input', message: `required input "${name}" of ${node.class_type}` });
      }
    }
    for (const [name, value] of Object.entries(node.inputs)) {
      const spec = specs.get(name)?.spec;
      if (value === undefined || value === null) continue;
      if (isLink(value)) {
        const source = String(value[0]);
        if (!Object.hasOwn(workflow, source)) issues.push({ nodeId, input: name, code: 'missing_link_target', message: `a link to an existing node (node "${source}" is not in the workflow)`, received: value });
        continue;
      }
      if (!spec || pending(name)) continue;
      const issue = checkLiteral(spec, value);
      if (issue) issues.push({ nodeId, input: name, received: value, ...issue });
    }
  }
  return issues;
}

/**
 * Every input a node has by its definition: the required and optional inputs, and, for a dynamic
 * combo (`COMFY_DYNAMICCOMBO_V3`), the inputs of the option the node chose (its first when unset),
 * named `<combo>.<input>` and required as that option says. An option's inputs are the server's
 * own (not read by the definition schema): those that are not `[type, options?]` are left out.
 */
function inputSpecs(input: unknown, values: Record<string, unknown>, prefix = '', specs = new Map<string, { spec: InputSpec; required: boolean }>()) {
  for (const group of ['required', 'optional']) {
    const entries = own(input, group);
    for (const [key, spec] of Object.entries(isRecord(entries) ? entries : {})) {
      if (!Array.isArray(spec) || !(spec[1] === undefined || isRecord(spec[1]))) continue;
      const name = prefix + key;
      specs.set(name, { spec: spec as InputSpec, required: group === 'required' });
      const options = spec[0] === 'COMFY_DYNAMICCOMBO_V3' ? own(spec[1], 'options') : undefined;
      if (!Array.isArray(options)) continue;
      const chosen = own(values, name) ?? own(options[0], 'key');
      inputSpecs(own(options.find((option) => own(option, 'key') === chosen), 'inputs'), values, `${name}.`, specs);
    }
  }
  return specs;
}

const UI_FORMAT_ISSUE =
  'an API-format workflow ({"<nodeId>": {class_type, inputs}}); this one was saved from the web UI (UI format): cloud.runWorkflow() and cloud.jobs.submit() convert it, or convert it yourself with toApiWorkflow(workflow, await cloud.nodes.list())';

function isLink(value: unknown): value is [string | number, number] {
  return Array.isArray(value) && value.length === 2 && (typeof value[0] === 'string' || typeof value[0] === 'number') && Number.isInteger(value[1]);
}

// Literal types checked by their JavaScript type: [typeof, what the message asks for].
const LITERALS: Readonly<Record<string, [string, string]>> = { BOOLEAN: ['boolean', 'true or false'], STRING: ['string', 'a string'] };

function checkLiteral(spec: InputSpec, value: unknown): Pick<WorkflowIssue, 'code' | 'message'> | undefined {
  const [type, options] = spec;
  const list = Array.isArray(type) ? type : type === 'COMBO' ? options?.options : undefined;
  if (list) {
    return list.includes(value as never) ? undefined : { code: 'not_in_options', message: `one of: ${preview(list)}` };
  }
  const kind = typeof type === 'string' ? own(LITERALS, type) : undefined;
  if (kind) return typeof value === kind[0] ? undefined : { code: 'wrong_type', message: kind[1] };
  // Connection types (IMAGE, MODEL...) and node-pack types: the server decides.
  if (type !== 'INT' && type !== 'FLOAT') return undefined;
  const integer = type === 'INT';
  const what = integer ? 'an integer' : 'a number';
  if (typeof value !== 'number' || Number.isNaN(value) || (integer && !Number.isInteger(value))) return { code: 'wrong_type', message: what };
  const min = options?.min ?? undefined;
  const max = options?.max ?? undefined;
  if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
    return { code: 'out_of_range', message: `${what} from ${min ?? '-∞'} to ${max ?? '∞'}` };
  }
  return undefined;
}

function preview(list: readonly unknown[]): string {
  const shown = list.slice(0, 10).map((v) => JSON.stringify(v)).join(', ');
  return list.length > 10 ? `${shown}, … (${list.length} values)` : shown;
}

/**
 * Splits the issues of a check into those that stop a run and the warnings that do not.
 *
 * @example
 * ```ts
 * const { errors, warnings } = splitIssues(validateWorkflow(workflow, info));
 * ```
 */
export function splitIssues(issues: readonly WorkflowIssue[]): { errors: WorkflowIssue[]; warnings: WorkflowIssue[] } {
  return { errors: issues.filter((issue) => issue.severity !== 'warning'), warnings: issues.filter((issue) => issue.severity === 'warning') };
}
