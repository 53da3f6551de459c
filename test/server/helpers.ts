import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { WebSocket } from 'ws';
import { createNodeHandler, createRelay, type Relay, type RelayOptions } from '../../src/server/index.js';
import { encodePng, type Simulator } from '../../src/testing/index.js';
import type { Workflow } from '../../src/index.js';

export const SECRET = 'a-test-secret-of-at-least-32-characters';
export const BASE = '/api/graphcloud';

export interface RunningRelay {
  /** The relay's base URL: http://127.0.0.1:<port>/api/graphcloud */
  url: string;
  origin: string;
  relay: Relay;
  server: Server;
  close(): Promise<void>;
}

/**
 * A `start(options, on?)` for a test file: each relay it starts is closed after its test. It stands
 * in front of `on`, or of `sim()`, read when it starts (the file's simulator, from its `beforeAll`).
 */
export function relayStarter(sim: () => Simulator): (options?: Partial<RelayOptions>, on?: Simulator) => Promise<RunningRelay> {
  const relays: RunningRelay[] = [];
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((relay) => relay.close()));
  });
  return async (options = {}, on = sim()) => {
    const relay = await startRelay(on, options);
    relays.push(relay);
    return relay;
  };
}

/** A relay in front of the simulator, on the Node adapter, at 127.0.0.1. */
export async function startRelay(sim: Simulator, options: Partial<RelayOptions> = {}): Promise<RunningRelay> {
  const relay = createRelay({
    cloudUrl: sim.cloudUrl,
    apiKey: sim.apiKey,
    proxyUrl: sim.proxyUrl,
    secret: SECRET,
    basePath: BASE,
    authorize: () => true,
    ...options,
  } as RelayOptions);
  const node = createNodeHandler(relay);
  const server = createServer(node.listener);
  server.on('upgrade', (req, socket, head) => node.upgrade(req, socket, head) || socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}${BASE}`,
    origin,
    relay,
    server,
    close: async () => {
      await relay.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const png = (width = 16, height = 16, seed = 1): Uint8Array<ArrayBuffer> => encodePng(width, height, [seed % 256, 20, 30]) as Uint8Array<ArrayBuffer>;

/** LoadImage -> ImageScaleBy -> SaveImage. */
export function scaleByWorkflow(image: string, scale = 2, prefix = 'relay'): Workflow {
  return {
    '1': { class_type: 'LoadImage', inputs: { image } },
    '2': { class_type: 'ImageScaleBy', inputs: { image: ['1', 0], upscale_method: 'bilinear', scale_by: scale } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
  };
}

/** Uploads an image through the relay; returns its name. */
export async function upload(relayUrl: string, bytes: Uint8Array<ArrayBuffer>, name = 'in.png'): Promise<string> {
  const form = new FormData();
  form.append('image', new Blob([bytes], { type: 'image/png' }), name);
  form.append('type', 'input');
  const response = await fetch(`${relayUrl}/api/upload/image`, { method: 'POST', body: form });
  if (!response.ok) throw new Error(`upload ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { name: string }).name;
}

/** Submits through the relay; returns the answer (prompt_id, relay_token). */
export async function submit(relayUrl: string, workflow: Workflow, extra: Record<string, unknown> = {}): Promise<{ prompt_id: string; relay_token: string } & Record<string, unknown>> {
  const response = await fetch(`${relayUrl}/api/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: workflow, ...extra }) });
  if (!response.ok) throw new Error(`submit ${response.status}: ${await response.text()}`);
  return (await response.json()) as { prompt_id: string; relay_token: string };
}

/** A browser-like socket on the relay that records every frame. */
export interface TestSocket {
  ws: WebSocket;
  texts: { type: string; data: Record<string, unknown> }[];
  binaries: Uint8Array[];
  raw: (string | Uint8Array)[];
  closed: Promise<{ code: number; reason: string }>;
  subscribe(token: string): void;
  /** Resolves with the first recorded text message that matches (checked on every frame). */
  next(predicate: (message: { type: string; data: Record<string, unknown> }) => boolean): Promise<{ type: string; data: Record<string, unknown> }>;
}

export async function openSocket(relayUrl: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const ws = new WebSocket(`${relayUrl.replace(/^http/, 'ws')}/ws?clientId=browser`, { headers });
  ws.binaryType = 'arraybuffer';
  const texts: TestSocket['texts'] = [];
  const binaries: Uint8Array[] = [];
  const raw: (string | Uint8Array)[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      const bytes = new Uint8Array(data as ArrayBuffer);
      binaries.push(bytes);
      raw.push(bytes);
    } else {
      const text = String(data);
      raw.push(text);
      texts.push(JSON.parse(text) as TestSocket['texts'][number]);
    }
    for (const wake of [...waiters]) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
  return {
    ws,
    texts,
    binaries,
    raw,
    closed,
    subscribe: (token) => ws.send(JSON.stringify({ type: 'graphcloud_subscribe', data: { token } })),
    next: (predicate) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = texts.find(predicate);
          if (found) {
            waiters.delete(check);
            resolve(found);
          }
        };
        waiters.add(check);
        void closed.then(() => {
          if (waiters.delete(check)) reject(new Error('socket closed before the message arrived'));
        });
        check();
      }),
  };
}
