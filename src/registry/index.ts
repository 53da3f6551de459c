export { RegistryClient, type RegistryClientOptions } from './client.js';
export { NodesResource, type GetNodeOptions } from './nodes.js';
export { VersionsResource } from './versions.js';
export { REGISTRY_DEFAULTS } from './defaults.js';
export { GraphNodesResource } from './graph-nodes.js';
export { PublishersResource } from './publishers.js';
export { PackageUploadError } from './errors.js';
export * from './types.js';
