// A run made ready when it is added, in the adding process: a UI-format workflow converted, its
// inputs placed, its files uploaded to the cloud (which stores them by content) and their names
// written in. What goes to Redis is JSON only, bounded in bytes; no worker needs the adder's disk.
import { Checker, isPlainObject, ValidationError, type RequestOptions } from '../core/index.js';
import type { CloudClient } from '../cloud/client.js';
import type { Workflow } from '../cloud/shared/types.js';
import { placeInputs, readUploads, withUploads } from '../cloud/run-workflow.js';
import { checkWorkflowArgument } from '../cloud/submit.js';
import { isUiWorkflow } from '../cloud/workflow/validate.js';
import { toApiWorkflow } from '../cloud/workflow/to-api.js';
import { builderNeedsCatalog, builtWorkflow, isWorkflowBuilder } from '../cloud/workflow/builder.js';
import type { RunWork } from './run.js';
import type { RunSpec, TaskRunSpec, WorkflowRunSpec } from './types.js';

const TASK_NAME = /^(image|video)\.[A-Za-z][A-Za-z0-9]*$/;

/**
 * Checks a run's spec before anything is uploaded or stored; records each problem on `check`.
 *
 * @example
 * ```ts
 * checkRunSpec(check, spec);
 * ```
 */
export function checkRunSpec(check: Checker, spec: unknown): void {
  if (!isPlainObject(spec)) return check.fail('spec', '{ workflow, inputs?, uploads? } or { task, params }', typeof spec);
  if ('task' in spec) {
    if (typeof spec.task !== 'string' || !TASK_NAME.test(spec.task)) check.fail('spec.task', 'a proxy method such as "image.upscale" or "video.textToVideo"', spec.task);
    if (!isPlainObject(spec.params)) check.fail('spec.params', 'an object of the task parameters', typeof spec.params);
    else checkJson(check, 'spec.params', spec.params);
    return;
  }
  checkWorkflowArgument(check, spec.workflow);
  if (spec.inputs !== undefined) {
    if (!isPlainObject(spec.inputs)) check.fail('spec.inputs', 'an object of "<node>.<input>" addresses to values', typeof spec.inputs);
    else checkJson(check, 'spec.inputs', spec.inputs);
  }
  if (spec.uploads !== undefined && !isPlainObject(spec.uploads)) check.fail('spec.uploads', 'an object of "<node>.<input>" addresses to files', typeof spec.uploads);
  if (spec.partnerApiKey !== undefined && typeof spec.partnerApiKey !== 'boolean') check.fail('spec.partnerApiKey', 'a boolean', spec.partnerApiKey);
}

/** JSON values only: Redis holds no file bytes (files go in `uploads`, or behind URLs). */
function checkJson(check: Checker, path: string, value: unknown, depth = 0): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) check.fail(path, 'a finite number', value);
    return;
  }
  if (depth > 64) return check.fail(path, 'JSON nested at most 64 deep', '(deeper)');
  if (Array.isArray(value)) return value.forEach((item, i) => checkJson(check, `${path}[${i}]`, item, depth + 1));
  if (isPlainObject(value)) return Object.entries(value).forEach(([key, item]) => checkJson(check, `${path}.${key}`, item, depth + 1));
  check.fail(path, 'a JSON value (files go in uploads, or behind a URL: Redis holds no file bytes)', value instanceof Uint8Array ? 'bytes' : typeof value);
}

/**
 * The run's work, ready for any worker: uploads done through `cloud`, names and inputs written in.
 *
 * @throws {@link ValidationError} a UI-format workflow or uploads without `cloud`.
 * @example
 * ```ts
 * const work = await prepareWork(spec, cloud, { signal });
 * ```
 */
export async function prepareWork(spec: RunSpec, cloud: CloudClient | undefined, request: RequestOptions): Promise<RunWork> {
  if ('task' in spec) return { kind: 'task', task: (spec as TaskRunSpec).task, params: (spec as TaskRunSpec).params };
  const { workflow, inputs = {}, uploads, partnerApiKey } = spec as WorkflowRunSpec;
  const check = new Checker();
  const targets = readUploads(check, uploads);
  check.throwIfInvalid('queue.add()');
  // A builder's outputs taken by name need the catalog unless its own table names them.
  const needsCatalog = isUiWorkflow(workflow) || (isWorkflowBuilder(workflow) && builderNeedsCatalog(workflow));
  if ((needsCatalog || targets.length > 0) && cloud === undefined) {
    throw new ValidationError([{ path: 'options.cloud', rule: 'the cloud client options of the queue: a UI-format workflow (or a builder whose outputs are named, not indexed) is converted and uploads are sent when the run is added', received: undefined }], 'queue.add()');
  }
  const info = needsCatalog && cloud ? await cloud.nodes.list(request) : undefined;
  const api: Workflow = isWorkflowBuilder(workflow) ? builtWorkflow(workflow, info) : isUiWorkflow(workflow) && info ? toApiWorkflow(workflow, info) : (workflow as Workflow);
  const placed = placeInputs(api, inputs, targets, undefined);
  const names = await Promise.all(
    targets.map(async ({ file, options }) => {
      const uploaded = await (cloud as CloudClient).files.upload(file, { ...options, ...request });
      return uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
    }),
  );
  return { kind: 'workflow', workflow: withUploads(placed.workflow, placed.uploads, names), ...(partnerApiKey === undefined ? {} : { partnerApiKey }) };
}
