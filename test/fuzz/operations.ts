// Every public operation of the three clients, called with valid arguments, so the suites can
// aim hostile answers (response-bodies) or hostile ids and options (ids-options) at each one.
import { CloudClient } from '../../src/index.js';
import { ProxyClient } from '../../src/proxy/client.js';
import { RegistryClient } from '../../src/registry/client.js';
import type { WebSocketLike } from '../../src/cloud/watch/socket.js';

export const CLOUD = 'https://cloud.fuzz.test';
export const REGISTRY = 'https://registry.fuzz.test';
export const PROXY = 'https://proxy.fuzz.test';
/** Every credential the clients hold or send: none may appear in anything the SDK produces. */
export const SECRETS = {
  apiKey: 'sk-fuzz-cloud-key-7f3a9c1e',
  partner: 'sk-fuzz-partner-key-2b8d4f6a',
  token: 'eyJfuzz.registry-token-5c7e9a1b.sig',
  proxy: 'sk-fuzz-proxy-token-3d5f7b9c',
  pat: 'pat-fuzz-publish-token-8e0a2c4d',
};

/**
 * A WebSocket that never connects (the runtime refuses it): watches fall back to polling, so the
 * HTTP answers decide every outcome.
 */
export class RefusedSocket implements WebSocketLike {
  readyState = 0;
  binaryType = 'blob';
  #listeners = new Map<string, ((event: unknown) => void)[]>();
  constructor() {
    setTimeout(() => {
      this.readyState = 3;
      for (const listener of this.#listeners.get('error') ?? []) listener({});
      for (const listener of this.#listeners.get('close') ?? []) listener({ code: 1006, reason: '' });
    }, 0);
  }
  send(): void {}
  close(): void {}
  addEventListener(type: string, listener: (event: unknown) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }
}

/** The clients of one run, with every hook payload they emitted. */
export interface Clients {
  cloud: CloudClient;
  registry: RegistryClient;
  proxy: ProxyClient;
  /** Hook and callback payloads: `onRequest`, `onResponse`, `onEvent`, `onUpdate`, `onSubmitted`. */
  payloads: unknown[];
  close(): Promise<void>;
}

/** Fresh clients with fast, bounded retries and waits; `fetch` answers their requests when given. */
export function createClients(options: { fetch?: typeof fetch } = {}): Clients {
  const payloads: unknown[] = [];
  const hooks = { onRequest: (e: unknown) => void payloads.push(e), onResponse: (e: unknown) => void payloads.push(e) };
  const retry = { limit: 1, budgetMs: 50, minDelayMs: 1, maxDelayMs: 2 };
  const common = { retry, timeout: 2_000, ...hooks, ...(options.fetch ? { fetch: options.fetch } : {}) };
  const cloud = new CloudClient({
    baseUrl: CLOUD,
    apiKey: SECRETS.apiKey,
    WebSocket: RefusedSocket,
    runtime: 'cloud',
    watcher: { waitTimeout: 250, socket: { minDelayMs: 1_000, maxDelayMs: 1_000, idleCloseMs: 1 }, poll: { minDelayMs: 100, maxDelayMs: 100, notFoundGraceMs: 0 } },
    ...common,
  });
  const registry = new RegistryClient({ baseUrl: REGISTRY, token: SECRETS.token, ...common });
  const proxy = new ProxyClient({ baseUrl: PROXY, token: SECRETS.proxy, wait: { waitTimeout: 250, poll: { minDelayMs: 100, maxDelayMs: 100 }, notFoundGraceMs: 0 }, ...common });
  return {
    cloud,
    registry,
    proxy,
    payloads,
    close: async () => {
      await Promise.all([cloud.close(), registry.close(), proxy.close()]);
    },
  };
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 4, 0, 0, 0, 4, 8, 2, 0, 0, 0]);
const ZIP = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
const IMG = 'https://cdn.fuzz.test/in.png';
export const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'fuzz' } },
};

/** Takes at most `count` items of an async iterable, then lets it go. */
async function take(iterable: AsyncIterable<unknown>, count: number): Promise<unknown[]> {
  const items: unknown[] = [];
  for await (const item of iterable) {
    items.push(item);
    if (items.length >= count) break;
  }
  return items;
}

/** One public operation: its name and a valid call. */
export interface Operation {
  name: string;
  call(c: Clients): Promise<unknown>;
}

const push = (c: Clients) => (payload: unknown) => void c.payloads.push(payload);

export const OPERATIONS: readonly Operation[] = [
  { name: 'cloud.nodes.list', call: (c) => c.cloud.nodes.list() },
  { name: 'cloud.nodes.get', call: (c) => c.cloud.nodes.get('LoadImage') },
  { name: 'cloud.files.upload', call: (c) => c.cloud.files.upload(PNG, { filename: 'a.png' }) },
  { name: 'cloud.files.uploadMask', call: (c) => c.cloud.files.uploadMask(PNG, { filename: 'm.png', originalRef: { filename: 'a.png' } }) },
  { name: 'cloud.files.get', call: (c) => c.cloud.files.get({ filename: 'out.png', subfolder: '', type: 'output' }) },
  { name: 'cloud.jobs.submit', call: (c) => c.cloud.jobs.submit(WORKFLOW, { validate: false, partnerApiKey: SECRETS.partner }) },
  { name: 'cloud.jobs.getStatus', call: (c) => c.cloud.jobs.getStatus('p-1') },
  { name: 'cloud.jobs.getOutputs', call: (c) => c.cloud.jobs.getOutputs('p-1') },
  { name: 'cloud.jobs.watch', call: (c) => c.cloud.jobs.watch('p-1').result() },
  { name: 'cloud.jobs.get', call: (c) => c.cloud.jobs.get('p-1') },
  { name: 'cloud.jobs.list', call: (c) => c.cloud.jobs.list({ status: ['completed', 'failed'], limit: 5 }) },
  { name: 'cloud.jobs.listAll', call: (c) => take(c.cloud.jobs.listAll({ limit: 2 }), 3) },
  { name: 'cloud.jobs.getQueue', call: (c) => c.cloud.jobs.getQueue() },
  { name: 'cloud.jobs.cancel', call: (c) => c.cloud.jobs.cancel('p-1') },
  { name: 'cloud.jobs.interruptAll', call: (c) => c.cloud.jobs.interruptAll() },
  { name: 'cloud.validateWorkflow', call: (c) => c.cloud.validateWorkflow(WORKFLOW) },
  { name: 'cloud.runWorkflow', call: (c) => c.cloud.runWorkflow(WORKFLOW, { uploads: { '1.image': PNG }, partnerApiKey: true, download: true, onEvent: push(c), onSubmitted: push(c) }) },
  { name: 'registry.nodes.get', call: (c) => c.registry.nodes.get('acme-upscale', { includeTranslations: true }) },
  { name: 'registry.nodes.list', call: (c) => c.registry.nodes.list({ page: 2, limit: 5 }) },
  { name: 'registry.nodes.listAll', call: (c) => take(c.registry.nodes.listAll(), 3) },
  { name: 'registry.nodes.search', call: (c) => c.registry.nodes.search({ search: 'up' }) },
  { name: 'registry.nodes.searchAll', call: (c) => take(c.registry.nodes.searchAll({ search: 'up' }), 3) },
  { name: 'registry.nodes.versions', call: (c) => c.registry.nodes.versions('acme-upscale') },
  { name: 'registry.nodes.version', call: (c) => c.registry.nodes.version('acme-upscale', '1.0.0') },
  { name: 'registry.nodes.install', call: (c) => c.registry.nodes.install('acme-upscale', { version: '1.0.0' }) },
  { name: 'registry.nodes.create', call: (c) => c.registry.nodes.create('acme', { id: 'acme-new', name: 'New' }) },
  { name: 'registry.nodes.update', call: (c) => c.registry.nodes.update('acme', 'acme-upscale', { description: 'x' }) },
  { name: 'registry.nodes.delete', call: (c) => c.registry.nodes.delete('acme', 'acme-upscale') },
  { name: 'registry.nodes.review', call: (c) => c.registry.nodes.review('acme-upscale', 4) },
  { name: 'registry.versions.list', call: (c) => c.registry.versions.list({ nodeId: 'acme-upscale', pageSize: 5 }) },
  { name: 'registry.versions.listAll', call: (c) => take(c.registry.versions.listAll({ pageSize: 5 }), 3) },
  { name: 'registry.versions.update', call: (c) => c.registry.versions.update('acme', 'acme-upscale', '00000000-0000-4000-8000-000000000001', { deprecated: true }) },
  { name: 'registry.versions.delete', call: (c) => c.registry.versions.delete('acme', 'acme-upscale', '00000000-0000-4000-8000-000000000001') },
  {
    name: 'registry.versions.publish',
    call: (c) => c.registry.versions.publish('acme', 'acme-upscale', { node: { name: 'Acme' }, version: { version: '1.3.0' }, package: ZIP, personalAccessToken: SECRETS.pat }),
  },
  { name: 'registry.graphNodes.update', call: (c) => c.registry.graphNodes.update('acme-upscale', '1.0.0', 'Upscale', { category: 'image' }) },
  { name: 'registry.publishers.create', call: (c) => c.registry.publishers.create({ id: 'acme', name: 'Acme' }) },
  { name: 'registry.publishers.list', call: (c) => c.registry.publishers.list() },
  { name: 'registry.publishers.mine', call: (c) => c.registry.publishers.mine() },
  { name: 'registry.publishers.get', call: (c) => c.registry.publishers.get('acme') },
  { name: 'registry.publishers.update', call: (c) => c.registry.publishers.update('acme', { description: 'x' }) },
  { name: 'registry.publishers.delete', call: (c) => c.registry.publishers.delete('acme') },
  { name: 'registry.publishers.isAvailable', call: (c) => c.registry.publishers.isAvailable('acme') },
  { name: 'registry.publishers.nodes', call: (c) => c.registry.publishers.nodes('acme', { includeBanned: true }) },
  { name: 'registry.publishers.permissions', call: (c) => c.registry.publishers.permissions('acme') },
  { name: 'registry.publishers.createToken', call: (c) => c.registry.publishers.createToken('acme', { name: 'ci' }) },
  { name: 'registry.publishers.listTokens', call: (c) => c.registry.publishers.listTokens('acme') },
  { name: 'registry.publishers.deleteToken', call: (c) => c.registry.publishers.deleteToken('acme', 't-1') },
  { name: 'proxy.image.relight', call: (c) => c.proxy.image.relight({ image: PNG, prompt: 'warm (light:1.2)' }, { onSubmitted: push(c) }) },
  { name: 'proxy.image.upscale', call: (c) => c.proxy.image.upscale({ image: IMG, scale_factor: '2x' }, { wait: { onUpdate: push(c) } }) },
  { name: 'proxy.image.styleTransfer', call: (c) => c.proxy.image.styleTransfer({ image: IMG, reference_image: PNG }, { wait: true }) },
  { name: 'proxy.image.skinEnhancerCreative', call: (c) => c.proxy.image.skinEnhancerCreative({ image: IMG, sharpen: 10 }) },
  { name: 'proxy.image.skinEnhancerFaithful', call: (c) => c.proxy.image.skinEnhancerFaithful({ image: PNG, skin_detail: 80 }) },
  { name: 'proxy.video.referenceToVideo', call: (c) => c.proxy.video.referenceToVideo({ model: 'videoq2-pro', prompt: 'waves', images: [PNG] }, { wait: true }) },
  { name: 'proxy.video.extend', call: (c) => c.proxy.video.extend({ model: 'videoq2-pro', video_creation_id: 'c-1', video_url: 'https://cdn.fuzz.test/v.mp4' }) },
  { name: 'proxy.video.multiframe', call: (c) => c.proxy.video.multiframe({ model: 'videoq2-turbo', start_image: IMG, image_settings: [{ key_image: IMG, duration: 2 }, { key_image: PNG }] }) },
  { name: 'proxy.waitForTask', call: (c) => c.proxy.waitForTask({ kind: 'extend', taskId: 'v-1' }, { onUpdate: push(c) }) },
  { name: 'proxy.watchTask', call: (c) => take(c.proxy.watchTask({ kind: 'upscale', taskId: 't-1' }), 5) },
];
