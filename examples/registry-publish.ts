/**
 * A publisher's release: find your publisher, publish a new version of a node with its zip, see it
 * listed, and look it up the way an installer does. A package upload that fails after the version
 * was created is retried once with the upload URL the error carries (never a second publish).
 *
 *   npx tsx examples/registry-publish.ts        # against the simulator, started in-process
 *
 * Against a real registry, set:
 *   GRAPHCLOUD_REGISTRY_URL, GRAPHCLOUD_REGISTRY_TOKEN  the registry and your sign-in token
 *   GRAPHCLOUD_REGISTRY_PAT                             a personal access token of the publisher
 *   GRAPHCLOUD_PUBLISHER, GRAPHCLOUD_NODE               the publisher and node ids
 *   GRAPHCLOUD_PACKAGE                                  the zip to publish (git archive --format=zip HEAD > node.zip)
 *   GRAPHCLOUD_VERSION                                  the new semantic version
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { GraphcloudError, PackageUploadError, RegistryClient, ValidationError } from 'graphcloud';

interface Settings {
  baseUrl: string;
  token: string;
  pat: string;
  publisher: string;
  node: string;
  pkg: string;
  version: string;
}

const env = process.env;
const names = ['GRAPHCLOUD_REGISTRY_TOKEN', 'GRAPHCLOUD_REGISTRY_PAT', 'GRAPHCLOUD_PUBLISHER', 'GRAPHCLOUD_NODE', 'GRAPHCLOUD_PACKAGE', 'GRAPHCLOUD_VERSION'];
const missing = names.filter((name) => !env[name]);
if (env.GRAPHCLOUD_REGISTRY_URL && missing.length > 0) {
  console.error(`GRAPHCLOUD_REGISTRY_URL is set; also set ${missing.join(', ')}`);
  process.exit(2);
}

let cleanup = async (): Promise<void> => undefined;
let registry: RegistryClient | undefined;
try {
  let settings: Settings;
  if (env.GRAPHCLOUD_REGISTRY_URL) {
    settings = {
      baseUrl: env.GRAPHCLOUD_REGISTRY_URL,
      token: env.GRAPHCLOUD_REGISTRY_TOKEN!,
      pat: env.GRAPHCLOUD_REGISTRY_PAT!,
      publisher: env.GRAPHCLOUD_PUBLISHER!,
      node: env.GRAPHCLOUD_NODE!,
      pkg: env.GRAPHCLOUD_PACKAGE!,
      version: env.GRAPHCLOUD_VERSION!,
    };
  } else {
    // The simulator: its demo owner, a token created for this run, and a one-file zip.
    const { startSimulator } = await import('graphcloud/testing');
    const sim = await startSimulator();
    const dir = await mkdtemp(join(tmpdir(), 'graphcloud-publish-'));
    cleanup = async () => {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    };
    const pkg = join(dir, 'demo-node.zip');
    await writeFile(pkg, zipOf('__init__.py', 'NODE_CLASS_MAPPINGS = {}\n'));
    const owner = new RegistryClient({ baseUrl: sim.registryUrl, token: sim.token });
    const { token: pat } = await owner.publishers.createToken('demo-publisher', { name: 'example', description: 'examples/registry-publish.ts' });
    await owner.close();
    // Seeded versions are 1.x.y, so 2.0.0 is new in a fresh simulator.
    settings = { baseUrl: sim.registryUrl, token: sim.token, pat, publisher: 'demo-publisher', node: 'demo-node', pkg, version: '2.0.0' };
  }

  registry = new RegistryClient({ baseUrl: settings.baseUrl, token: settings.token });
  const mine = await registry.publishers.mine();
  console.log(`you publish as: ${mine.map((p) => p.id).join(', ')}`);

  try {
    const published = await registry.versions.publish(settings.publisher, settings.node, {
      node: { description: 'Published with graphcloud' },
      version: { version: settings.version, changelog: 'Released from examples/registry-publish.ts' },
      package: settings.pkg,
      personalAccessToken: settings.pat,
    });
    console.log(`published ${settings.node}@${published.version} (id ${published.id})`);
  } catch (error) {
    // The version exists but has no package yet: upload again, never publish twice.
    if (!(error instanceof PackageUploadError) || !error.signedUrl) throw error;
    console.error(`${error.message}\nretrying the upload once…`);
    await registry.versions.uploadPackage(error.signedUrl, settings.pkg);
    console.log(`uploaded the package of ${settings.node}@${settings.version}`);
  }

  const versions = await registry.nodes.versions(settings.node);
  console.log(`${settings.node} now has ${versions.length} versions; newest: ${versions[0]?.version}`);
  const install = await registry.nodes.install(settings.node, { version: settings.version });
  console.log(`an installer downloads ${install.downloadUrl}`);
} catch (error) {
  process.exitCode = 1;
  if (error instanceof ValidationError) console.error(`nothing was sent: ${error.message}`);
  else if (error instanceof GraphcloudError) console.error(`${error.name}: ${error.message}`);
  else console.error(error);
} finally {
  await registry?.close();
  await cleanup();
}

/** A zip archive holding one file, stored without compression (enough for the example). */
function zipOf(name: string, text: string): Uint8Array {
  const data = new TextEncoder().encode(text);
  const file = new TextEncoder().encode(name);
  const crc = crc32(data);
  const local = new DataView(new ArrayBuffer(30));
  local.setUint32(0, 0x04034b50, true);
  local.setUint16(4, 20, true);
  local.setUint32(14, crc, true);
  local.setUint32(18, data.length, true);
  local.setUint32(22, data.length, true);
  local.setUint16(26, file.length, true);
  const central = new DataView(new ArrayBuffer(46));
  central.setUint32(0, 0x02014b50, true);
  central.setUint16(4, 20, true);
  central.setUint16(6, 20, true);
  central.setUint32(16, crc, true);
  central.setUint32(20, data.length, true);
  central.setUint32(24, data.length, true);
  central.setUint16(28, file.length, true);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, 1, true);
  end.setUint16(10, 1, true);
  end.setUint32(12, 46 + file.length, true);
  end.setUint32(16, 30 + file.length + data.length, true);
  const parts = [new Uint8Array(local.buffer), file, data, new Uint8Array(central.buffer), file, new Uint8Array(end.buffer)];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
