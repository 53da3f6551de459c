/**
 * Lists the flagged versions of the registry page by page (stopping after 20), shows one node, and
 * rates it.
 *
 *   npx tsx examples/registry-versions.ts        # against the simulator, started in-process
 *
 * Against a real registry, set:
 *   GRAPHCLOUD_REGISTRY_URL, GRAPHCLOUD_REGISTRY_TOKEN  the registry and your sign-in token (reading needs none)
 *   GRAPHCLOUD_NODE                                     the node to show and rate 5 stars (rating is skipped without it
 *                                                       or without a token: it is a write)
 */
import { GraphcloudError, NotFoundError, RegistryClient, ValidationError } from 'graphcloud';
import type { Simulator } from 'graphcloud/testing';

const env = process.env;
let sim: Simulator | undefined;
let registry: RegistryClient | undefined;
try {
  // The simulator is loaded only when no registry is named; its demo user may rate its nodes.
  sim = env.GRAPHCLOUD_REGISTRY_URL ? undefined : await (await import('graphcloud/testing')).startSimulator();
  registry = new RegistryClient({ baseUrl: env.GRAPHCLOUD_REGISTRY_URL || sim!.registryUrl, token: env.GRAPHCLOUD_REGISTRY_TOKEN || sim?.token });
  const nodeId = env.GRAPHCLOUD_NODE || (sim ? 'demo-node' : undefined);

  console.log('flagged versions:');
  let count = 0;
  for await (const version of registry.versions.listAll({ statuses: ['NodeVersionStatusFlagged'], pageSize: 10, includeStatusReason: true })) {
    console.log(`  ${version.node_id}@${version.version}: ${version.status_reason || '(no reason given)'}`);
    if (++count >= 20) break; // no further page is fetched
  }
  console.log(`${count} shown`);

  if (nodeId) {
    const node = await registry.nodes.get(nodeId);
    console.log(`${node.id}: ${node.name ?? ''}, rating ${node.rating ?? 'none'}, latest ${node.latest_version?.version ?? '?'}`);
    if (env.GRAPHCLOUD_REGISTRY_TOKEN || sim) {
      const rated = await registry.nodes.review(nodeId, 5);
      console.log(`rated ${rated.id} 5 stars; its rating is now ${rated.rating}`);
    } else console.log('not rating it: GRAPHCLOUD_REGISTRY_TOKEN is not set');
  } else console.log('set GRAPHCLOUD_NODE to show a node and rate it');
} catch (error) {
  process.exitCode = 1;
  if (error instanceof NotFoundError) console.error(`no such node: ${env.GRAPHCLOUD_NODE}`);
  else if (error instanceof ValidationError) console.error(`nothing was sent: ${error.message}`);
  else if (error instanceof GraphcloudError) console.error(`${error.name}: ${error.message}`);
  else console.error(error);
} finally {
  await registry?.close();
  await sim?.close();
}
