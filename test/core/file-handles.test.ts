import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/index.js';
import { ApiError, ClientClosedError, ValidationError } from '../../src/core/index.js';
import { ProxyClient } from '../../src/proxy/client.js';
import { RegistryClient } from '../../src/registry/client.js';
import { encodePng, startSimulator, type Simulator } from '../../src/testing/index.js';

// Nothing the SDK opens outlives the call that opened it, whatever way the call ends
// (docs/architecture.md): a file path given to an upload or a publish is opened by the call and
// closed before it settles. Seen as a user sees it: process.getActiveResourcesInfo() a moment
// after the call (200 ms, as the issue measured it), and on Linux the process's open descriptors.
let sim: Simulator;
let dir = '';
let png = '';
let big = '';
let zip = '';
let notZip = '';
beforeAll(async () => {
  sim = await startSimulator({ stepDelayMs: 0 });
  dir = await mkdtemp(join(tmpdir(), 'graphcloud-handles-'));
  png = join(dir, 'cat.png');
  big = join(dir, 'big.png');
  zip = join(dir, 'node.zip');
  notZip = join(dir, 'node.tar');
  await writeFile(png, encodePng(16, 16, [10, 20, 30]));
  // Larger than the socket buffers of a server that reads nothing: the upload is still sending.
  await writeFile(big, new Uint8Array(32 * 1024 * 1024).fill(5));
  await writeFile(zip, new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new Array<number>(4096).fill(7)]));
  await writeFile(notZip, new Uint8Array(4096).fill(9));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

/** The file handles Node lists as active (`FileHandle`, `FileHandleReadWrap`...). */
function fileHandles(): number {
  return process.getActiveResourcesInfo().filter((name) => name.startsWith('FileHandle')).length;
}

/** Descriptors of this process open on a file of the test's folder (Linux; none elsewhere). */
function openInDir(): string[] {
  if (!existsSync('/proc/self/fd')) return [];
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) open.push(target);
    } catch {
      // The descriptor closed while listing (readdir's own one does).
    }
  }
  return open;
}

/**
 * Runs `call`, lets 200 ms pass, and answers what is open then. Counted whole, not against a
 * count taken before: Node lists one `FileHandleReadWrap` for the whole process once any file
 * blob (`fs.openAsBlob`) was read, and never drops it, so a second leak would not add to it.
 * Each test file runs in a process of its own, where nothing else opens files.
 */
async function leftOpen(call: () => Promise<unknown>): Promise<{ outcome: unknown; handles: number; descriptors: string[] }> {
  const outcome = await call().then(
    (value) => value,
    (error: unknown) => error,
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { outcome, handles: fileHandles(), descriptors: openInDir() };
}

const nothingOpen = { handles: 0, descriptors: [] };

describe('cloud.files.upload() with a file path', () => {
  it('leaves no file handle once the upload is done and the client closed', async () => {
    const cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey });
    const left = await leftOpen(async () => {
      const uploaded = await cloud.files.upload(png);
      await cloud.close();
      return uploaded;
    });
    expect(left.outcome).toMatchObject({ name: 'cat.png' });
    expect(left).toMatchObject(nothingOpen);
  });

  it('leaves no file handle when close() ends the upload while it is sending', async () => {
    // A server that takes the request and never reads its body: the upload stays mid-file.
    let received!: () => void;
    const started = new Promise<void>((resolve) => (received = resolve));
    const server = http.createServer((req) => {
      req.pause();
      received();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const cloud = new CloudClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'key-for-a-silent-server' });
    try {
      const left = await leftOpen(async () => {
        const upload = cloud.files.upload(big);
        await started;
        await cloud.close();
        return upload;
      });
      expect(left.outcome).toBeInstanceOf(ClientClosedError);
      expect(left).toMatchObject(nothingOpen);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('leaves no file handle when the server refuses the upload', async () => {
    const cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: 'not-the-simulator-key' });
    const left = await leftOpen(() => cloud.files.upload(png, { retry: false }));
    await cloud.close();
    expect(left.outcome).toBeInstanceOf(ApiError);
    expect(left).toMatchObject(nothingOpen);
  });
});

describe('registry.versions.publish() with a package path', () => {
  const params = (pkg: string, personalAccessToken: string) => ({ node: {}, version: { version: `1.0.${Math.floor(Math.random() * 1e6)}` }, package: pkg, personalAccessToken });

  it('leaves no file handle when the package is not a zip', async () => {
    const registry = new RegistryClient({ baseUrl: sim.registryUrl, token: sim.token });
    const left = await leftOpen(() => registry.versions.publish('demo-publisher', 'demo-node', params(notZip, 'pat_any_token_123')));
    await registry.close();
    expect(left.outcome).toBeInstanceOf(ValidationError);
    expect(left).toMatchObject(nothingOpen);
  });

  it('leaves no file handle when the registry answers 400 before the upload', async () => {
    const registry = new RegistryClient({ baseUrl: sim.registryUrl, token: sim.token });
    const left = await leftOpen(() => registry.versions.publish('demo-publisher', 'demo-node', params(zip, 'pat_wrong_token_123')));
    await registry.close();
    expect(left.outcome).toBeInstanceOf(ApiError);
    expect((left.outcome as ApiError).status).toBe(400);
    expect(left).toMatchObject(nothingOpen);
  });

  it('leaves no file handle once the version and its package are published', async () => {
    const registry = new RegistryClient({ baseUrl: sim.registryUrl, token: sim.token });
    const { token } = await registry.publishers.createToken('demo-publisher', { name: `handles-${crypto.randomUUID()}` });
    const left = await leftOpen(() => registry.versions.publish('demo-publisher', 'demo-node', params(zip, token!)));
    await registry.close();
    expect(left.outcome).toMatchObject({ node_id: 'demo-node' });
    expect(left).toMatchObject(nothingOpen);
  });
});

describe('registry.versions.uploadPackage() with a package path', () => {
  it('sends the whole file again on a retry, with its length, and leaves no file handle', async () => {
    // A signed URL that fails the first PUT (503, after reading it) and takes the second.
    const received: { length: string | undefined; bytes: number }[] = [];
    const server = http.createServer((req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      req.on('end', () => {
        received.push({ length: req.headers['content-length'], bytes });
        res.writeHead(received.length === 1 ? 503 : 200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const registry = new RegistryClient({ baseUrl: sim.registryUrl });
    try {
      const signedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload?signature=abc`;
      const left = await leftOpen(() => registry.versions.uploadPackage(signedUrl, zip, { retry: { limit: 1, minDelayMs: 1, maxDelayMs: 1 } }));
      expect(left.outcome).toBeUndefined();
      expect(received).toEqual([
        { length: '4100', bytes: 4100 },
        { length: '4100', bytes: 4100 },
      ]);
      expect(left).toMatchObject(nothingOpen);
    } finally {
      await registry.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('proxy image inputs given as a path', () => {
  it('leave no file handle once read', async () => {
    const proxy = new ProxyClient({ baseUrl: sim.proxyUrl, token: sim.token });
    const left = await leftOpen(() => proxy.image.upscale({ image: { path: png }, scale_factor: '2x' }));
    await proxy.close();
    expect(left.outcome).toMatchObject({});
    expect(left.outcome).not.toBeInstanceOf(Error);
    expect(left).toMatchObject(nothingOpen);
  });
});
