/**
 * Lists every flagged version of the registry, page by page, and rates a node.
 * Run: GRAPHCLOUD_REGISTRY_URL=... GRAPHCLOUD_REGISTRY_TOKEN=... npx tsx examples/registry-versions.ts
 */
import { NotFoundError, RegistryClient, ValidationError } from 'graphcloud';

const registry = new RegistryClient({
  baseUrl: process.env.GRAPHCLOUD_REGISTRY_URL ?? 'http://127.0.0.1:8787',
  token: () => process.env.GRAPHCLOUD_REGISTRY_TOKEN ?? '',
});

let count = 0;
for await (const version of registry.versions.listAll({ statuses: ['NodeVersionStatusFlagged'], pageSize: 100, includeStatusReason: true })) {
  console.log(`${version.node_id}@${version.version}: ${version.status_reason ?? ''}`);
  if (++count >= 20) break; // no further page is fetched
}

try {
  const node = await registry.nodes.review('acme-upscale', 5);
  console.log(`rating is now ${node.rating}`);
} catch (error) {
  if (error instanceof NotFoundError) console.log('no such node');
  else if (error instanceof ValidationError) console.log(error.issues);
  else throw error;
}
