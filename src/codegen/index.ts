/**
 * Node types generated from a server's catalog, for the workflow builder: what `graphcloud types`
 * runs, as a function for build scripts. Its own entry, so that no app bundle of the main entry
 * carries it. docs/workflows.md#generating-node-types.
 *
 * @example
 * import { generateNodeTypes } from 'graphcloud/codegen';
 * await writeFile('src/nodes.ts', await generateNodeTypes(await cloud.nodes.list()));
 *
 * @module graphcloud/codegen
 */
export { CODEGEN_DEFAULTS, generateNodeTypes, type GenerateNodeTypesOptions } from './generate.js';
