/**
 * Node types generated from a server's catalog, for the workflow builder, and saved workflows
 * ejected as builder code over them: what `graphcloud types` (and `--eject`) runs, as functions for
 * build scripts. Its own entry, so that no app bundle of the main entry carries them.
 * docs/workflows.md#generating-node-types, docs/workflows.md#ejecting-a-saved-workflow.
 *
 * @example
 * import { ejectWorkflow, generateNodeTypes } from 'graphcloud/codegen';
 * const info = await cloud.nodes.list();
 * await writeFile('src/nodes.ts', await generateNodeTypes(info));
 * await writeFile('src/portrait.ts', ejectWorkflow(JSON.parse(await readFile('portrait.json', 'utf8')), info, { typesImport: './nodes.js' }));
 *
 * @module graphcloud/codegen
 */
export { CODEGEN_DEFAULTS, generateNodeTypes, type GenerateNodeTypesOptions } from './generate.js';
export { ejectWorkflow, type EjectWorkflowOptions } from '../cloud/workflow/eject.js';
