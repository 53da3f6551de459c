import type { Workflow } from '../shared/types.js';
import type { ObjectInfo } from './validate.js';
import type { ToApiWorkflowOptions } from './types.js';

/**
 * Converts a workflow saved from the web UI (UI format) into the API format the cloud runs,
 * producing what the web UI itself sends: widget values placed on their inputs
 * (`control_after_generate` modes and upload buttons left out), links followed through reroutes
 * and bypassed nodes, muted nodes and notes dropped, primitive values copied into the inputs they
 * feed, subgraphs expanded with `outer:inner` ids, and each node's title in `_meta.title`.
 *
 * Asynchronous only to load the converter on first use (a bundler splits it into its own chunk,
 * so a page that never converts does not load it); the input is not changed.
 *
 * @param uiWorkflow The parsed JSON file saved from the web UI.
 * @param objectInfo The server's node definitions (`await cloud.nodes.list()`).
 * @throws {@link WorkflowConversionError} (a rejection) naming the node (id, type, title) when a node
 * type is not on the server, a link points nowhere, or links go round in a circle through reroutes
 * or bypassed nodes.
 * @example
 * ```ts
 * const ui = JSON.parse(await readFile('portrait.json', 'utf8'));
 * const workflow = await toApiWorkflow(ui, await cloud.nodes.list());
 * await cloud.runWorkflow(setInputs(workflow, { 'KSampler.seed': 7 }));
 * ```
 */
export async function toApiWorkflow(uiWorkflow: unknown, objectInfo: ObjectInfo, options?: ToApiWorkflowOptions): Promise<Workflow> {
  const { toApiWorkflow: convert } = await import('./to-api.js');
  return convert(uiWorkflow, objectInfo, options);
}
