// Telling the two workflow formats apart, so a caller who passes a file saved from the web UI
// gets one clear hint instead of one validation issue per key.
import type { UiWorkflow } from './types.js';

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
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Array.isArray((value as Record<string, unknown>).nodes) && Array.isArray((value as Record<string, unknown>).links);
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
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { format: 'unknown', hint: 'a workflow is an object mapping node ids to {class_type, inputs} (API format), or the JSON saved from the web UI' };
  }
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.nodes) || ('nodes' in record && 'links' in record)) return { format: 'unknown', hint: 'this looks like a workflow saved from the web UI but its "nodes" or "links" is not an array; save it again from the web UI' };
  if ('prompt' in record && typeof record.prompt === 'object' && record.prompt !== null && !Array.isArray(record.prompt)) {
    return { format: 'unknown', hint: 'this looks like a request body ({prompt: ...}); pass the value of "prompt" instead' };
  }
  const nodes = Object.values(record);
  const api = nodes.length > 0 && nodes.every((node) => typeof node === 'object' && node !== null && typeof (node as Record<string, unknown>).class_type === 'string');
  return api ? { format: 'api', hint: undefined } : { format: 'unknown', hint: 'a workflow is an object mapping node ids to {class_type, inputs} (API format), or the JSON saved from the web UI' };
}
