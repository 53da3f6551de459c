import { isPlainObject, type Checker } from '../../core/index.js';
import type { WorkflowIssue } from './errors.js';
import type { Workflow } from './types.js';

/**
 * `GET /api/object_info`: node type name to its definition.
 *
 * @example
 * ```ts
 * const info: ObjectInfo = await cloud.nodes.list();
 * info.KSampler?.input.required?.steps; // ['INT', { default: 20, min: 1, max: 10000 }]
 * ```
 */
export type ObjectInfo = Record<string, NodeDefinition>;

/**
 * One node type's definition (`input.required` / `optional` / `hidden`, outputs, category...),
 * as the server sends it. Fields the server adds beyond these are kept.
 *
 * @example
 * ```ts
 * const def: NodeDefinition | undefined = info.LoadImage;
 * ```
 */
export interface NodeDefinition {
  /** The node's inputs, by input name, in three groups. */
  input: {
    /** Inputs a workflow must set on a node of this type. */
    required?: Record<string, InputSpec> | undefined;
    /** Inputs a workflow may leave out (the node then uses its own default). */
    optional?: Record<string, InputSpec> | undefined;
    /** Inputs the server fills in itself (`"PROMPT"`, `"UNIQUE_ID"`...), never set by a workflow; any shape. */
    hidden?: Record<string, unknown> | undefined;
    /** Any other group the server sends, kept as it is. */
    [key: string]: unknown;
  };
  /** Input names in the order the web UI shows them, per group (`required`, `optional`); absent on older servers. */
  input_order?: Record<string, string[]> | undefined;
  /** The type of each output slot, in slot order (`"IMAGE"`, `"LATENT"`, or a list of values for a combo output). */
  output?: unknown[] | null | undefined;
  /** The display name of each output slot, in slot order. */
  output_name?: string[] | null | undefined;
  /** For each output slot, whether it yields a list rather than one value. */
  output_is_list?: boolean[] | null | undefined;
  /** `true` for a node that produces a result of the run (`SaveImage`, `PreviewImage`...); a workflow needs at least one. */
  output_node?: boolean | null | undefined;
  /** The node type name, the key it has in {@link ObjectInfo} and the `class_type` of a workflow node. */
  name?: string | null | undefined;
  /** The name the web UI shows. */
  display_name?: string | null | undefined;
  /** The menu path the web UI files the node under (`"sampling"`, `"image/upscaling"`). */
  category?: string | null | undefined;
  /** What the node does, in the node author's words. */
  description?: string | null | undefined;
  /** `true` when the node type is kept only for old workflows and should not be used in new ones. */
  deprecated?: boolean | null | undefined;
  /** `true` when the node type is a preview whose inputs or behaviour may still change. */
  experimental?: boolean | null | undefined;
  /** Any other field the server sends, kept as it is. */
  [key: string]: unknown;
}

/**
 * An input definition: `[type]` or `[type, options]`, where `type` is a name (`INT`, `FLOAT`,
 * `STRING`, `BOOLEAN`, `COMBO`, `IMAGE`...) or, in the legacy combo form, the list of values.
 *
 * @example
 * ```ts
 * const spec: InputSpec = ['INT', { min: 1, max: 100 }];
 * ```
 */
export type InputSpec = [type: string | Array<string | number | boolean>, options?: InputOptions | undefined];

/**
 * Options of an input definition (`min`, `max`, `step`, `default`, `options`...). Fields the
 * server adds beyond these (`control_after_generate`, `image_upload`...) are kept.
 *
 * @example
 * ```ts
 * const options: InputOptions = { min: 0, max: 1, step: 0.01 };
 * ```
 */
export interface InputOptions {
  /** The value the node uses when the input is not set; any JSON value. */
  default?: unknown;
  /** The smallest value a number input accepts (inclusive); absent when unbounded. */
  min?: number | null | undefined;
  /** The largest value a number input accepts (inclusive); absent when unbounded. */
  max?: number | null | undefined;
  /** The increment the web UI's number widget moves by (the SDK does not check it). */
  step?: number | null | undefined;
  /** The allowed values of a `COMBO` input (files, models, sampler names...). */
  options?: Array<string | number | boolean> | null | undefined;
  /** `true` when a `STRING` input is edited as a multi-line text box. */
  multiline?: boolean | null | undefined;
  /** The help text the web UI shows beside the input. */
  tooltip?: string | null | undefined;
  /** Any other option the server sends, kept as it is. */
  [key: string]: unknown;
}

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
 * Checks an API-format workflow against the server's node definitions, before anything is sent:
 * unknown `class_type`, missing required inputs, numbers outside `min`/`max`, values outside an
 * option list (legacy `[[...values]]` and `COMBO` forms), literals of the wrong type, and links to
 * missing nodes. Returns every issue found (empty when the workflow looks valid).
 *
 * @example
 * ```ts
 * const issues = validateWorkflow(workflow, await cloud.nodes.list());
 * for (const i of issues) console.log(`${i.nodeId}.${i.input ?? ''}: ${i.message}`);
 * ```
 */
export function validateWorkflow(workflow: Workflow, objectInfo: ObjectInfo, options: ValidateWorkflowOptions = {}): WorkflowIssue[] {
  const issues: WorkflowIssue[] = [];
  if (!workflow || typeof workflow !== 'object' || Array.isArray(workflow)) {
    return [{ nodeId: '(workflow)', code: 'invalid_node', message: 'an object mapping node ids to nodes', received: workflow }];
  }
  // One issue for a file saved from the web UI, not one per top-level key.
  if (looksLikeUiWorkflow(workflow)) return [{ nodeId: '(workflow)', code: 'ui_format', message: UI_FORMAT_ISSUE, received: '(a UI-format workflow)' }];
  for (const [nodeId, node] of Object.entries(workflow)) {
    if (!node || typeof node !== 'object' || typeof node.class_type !== 'string' || !node.inputs || typeof node.inputs !== 'object') {
      issues.push({ nodeId, code: 'invalid_node', message: 'a node {class_type: string, inputs: object}', received: node });
      continue;
    }
    const definition = own(objectInfo, node.class_type);
    if (!definition) {
      issues.push({ nodeId, code: 'unknown_class_type', message: `a node type the server knows (unknown class_type "${node.class_type}")`, received: node.class_type });
      continue;
    }
    const required = definition.input.required ?? {};
    const optional = definition.input.optional ?? {};
    for (const name of Object.keys(required)) {
      if ((node.inputs[name] === undefined || node.inputs[name] === null) && !options.pending?.has(`${nodeId}.${name}`)) {
        issues.push({ nodeId, input: name, code: 'missing_required_input', message: `required input "${name}" of ${node.class_type}` });
      }
    }
    for (const [name, value] of Object.entries(node.inputs)) {
      const spec = own(required, name) ?? own(optional, name);
      if (value === undefined || value === null) continue;
      if (isLink(value)) {
        const source = String(value[0]);
        if (!Object.hasOwn(workflow, source)) issues.push({ nodeId, input: name, code: 'missing_link_target', message: `a link to an existing node (node "${source}" is not in the workflow)`, received: value });
        continue;
      }
      if (!spec || options.pending?.has(`${nodeId}.${name}`)) continue;
      const issue = checkLiteral(spec, value);
      if (issue) issues.push({ nodeId, input: name, received: value, ...issue });
    }
  }
  return issues;
}

/** A record's own entry: a node type or input named `constructor` is not `Object`'s. */
function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Records on `check` when `workflow` is not an API-format workflow with at least one node: the
 * shape every call that sends one needs (the node-level checks are `validateWorkflow`'s).
 *
 * @example
 * ```ts
 * const check = new Checker();
 * checkWorkflowShape(check, workflow);
 * check.throwIfInvalid('cloud.jobs.submit()');
 * ```
 */
export function checkWorkflowShape(check: Checker, workflow: unknown): void {
  if (looksLikeUiWorkflow(workflow)) {
    check.fail('workflow', UI_FORMAT_ISSUE, '(a UI-format workflow)');
  } else if (!isPlainObject(workflow) || Object.keys(workflow).length === 0) {
    check.fail('workflow', 'an API-format workflow with at least one node ({"<nodeId>": {class_type, inputs}})', workflow);
  } else {
    // Every node has the shape the server needs, whether or not `validate` checks it further:
    // a node of `null` must never be sent (and paid for).
    for (const [nodeId, node] of Object.entries(workflow)) {
      if (!isPlainObject(node) || typeof node.class_type !== 'string' || node.class_type === '' || !isPlainObject(node.inputs)) {
        check.fail(`workflow["${nodeId}"]`, 'a node {class_type: string, inputs: object}', node);
      }
    }
  }
}

const UI_FORMAT_ISSUE =
  'an API-format workflow ({"<nodeId>": {class_type, inputs}}); this one was saved from the web UI (UI format): cloud.runWorkflow() and cloud.jobs.submit() convert it, or convert it yourself with toApiWorkflow(workflow, await cloud.nodes.list())';

/** A file saved from the web UI: `nodes` and `links` lists (the conversion lives in `cloud/workflow`). */
function looksLikeUiWorkflow(value: unknown): boolean {
  return isPlainObject(value) && Array.isArray(value.nodes) && Array.isArray(value.links);
}

function isLink(value: unknown): value is [string | number, number] {
  return Array.isArray(value) && value.length === 2 && (typeof value[0] === 'string' || typeof value[0] === 'number') && Number.isInteger(value[1]);
}

function checkLiteral(spec: InputSpec, value: unknown): Pick<WorkflowIssue, 'code' | 'message'> | undefined {
  const [type, options] = spec;
  const list = Array.isArray(type) ? type : type === 'COMBO' ? options?.options : undefined;
  if (list) {
    return list.includes(value as never) ? undefined : { code: 'not_in_options', message: `one of: ${preview(list)}` };
  }
  switch (type) {
    case 'INT':
    case 'FLOAT': {
      const integer = type === 'INT';
      if (typeof value !== 'number' || Number.isNaN(value) || (integer && !Number.isInteger(value))) return { code: 'wrong_type', message: integer ? 'an integer' : 'a number' };
      const min = options?.min ?? undefined;
      const max = options?.max ?? undefined;
      if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
        return { code: 'out_of_range', message: `${integer ? 'an integer' : 'a number'} from ${min ?? '-∞'} to ${max ?? '∞'}` };
      }
      return undefined;
    }
    case 'BOOLEAN':
      return typeof value === 'boolean' ? undefined : { code: 'wrong_type', message: 'true or false' };
    case 'STRING':
      return typeof value === 'string' ? undefined : { code: 'wrong_type', message: 'a string' };
    default:
      // Connection types (IMAGE, MODEL...) and node-pack types: the server decides.
      return undefined;
  }
}

function preview(list: readonly unknown[]): string {
  const shown = list.slice(0, 10).map((v) => JSON.stringify(v)).join(', ');
  return list.length > 10 ? `${shown}, … (${list.length} values)` : shown;
}
