import { request } from 'node:http';
import type { Simulator } from '../../src/testing/index.js';
import { encodePng } from '../../src/testing/index.js';

export type Received =
  | { kind: 'json'; type: string; data: Record<string, unknown> }
  | { kind: 'binary'; bytes: Uint8Array }
  | { kind: 'text'; raw: string };

export interface TestSocket {
  ws: WebSocket;
  received: Received[];
  /** JSON messages only, as `type` strings. */
  types(promptId?: string): string[];
  waitFor(predicate: (message: Received) => boolean): Promise<Received>;
  closed: Promise<{ code: number }>;
  close(): void;
}

export function wsUrl(sim: Simulator, query: Record<string, string>): string {
  return `${sim.cloudUrl.replace(/^http/, 'ws')}/ws?${new URLSearchParams(query).toString()}`;
}

/** Opens a socket and records everything it receives, from the first message on. */
export async function openSocket(
  sim: Simulator,
  options: { clientId?: string; token?: string; previewMetadata?: boolean } = {},
): Promise<TestSocket> {
  const ws = new WebSocket(wsUrl(sim, { clientId: options.clientId ?? crypto.randomUUID(), token: options.token ?? sim.apiKey }));
  ws.binaryType = 'arraybuffer';
  const received: Received[] = [];
  const waiters: { predicate: (message: Received) => boolean; resolve: (message: Received) => void }[] = [];
  ws.addEventListener('message', (event) => {
    let message: Received;
    if (typeof event.data === 'string') {
      try {
        const parsed = JSON.parse(event.data) as { type?: unknown; data?: unknown };
        message = typeof parsed.type === 'string'
          ? { kind: 'json', type: parsed.type, data: (parsed.data ?? {}) as Record<string, unknown> }
          : { kind: 'text', raw: event.data };
      } catch {
        message = { kind: 'text', raw: event.data };
      }
    } else {
      message = { kind: 'binary', bytes: new Uint8Array(event.data as ArrayBuffer) };
    }
    received.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  const closed = new Promise<{ code: number }>((resolve) => ws.addEventListener('close', (event) => resolve({ code: event.code })));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error('socket failed to open')), { once: true });
  });
  const socket: TestSocket = {
    ws,
    received,
    closed,
    types: (promptId) =>
      received
        .filter((m): m is Extract<Received, { kind: 'json' }> => m.kind === 'json')
        .filter((m) => promptId === undefined || m.data.prompt_id === promptId)
        .map((m) => m.type),
    waitFor: (predicate) => {
      const found = received.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    close: () => ws.close(),
  };
  await socket.waitFor((m) => m.kind === 'json' && m.type === 'status');
  if (options.previewMetadata) {
    ws.send(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } }));
    await socket.waitFor((m) => m.kind === 'json' && m.type === 'feature_flags');
  }
  return socket;
}

export function isType(type: string, promptId?: string) {
  return (m: Received): boolean => m.kind === 'json' && m.type === type && (promptId === undefined || m.data.prompt_id === promptId);
}

/** Resolves when the run's last message (`executing` with node null) arrived. */
export function runEnd(socket: TestSocket, promptId: string): Promise<Received> {
  return socket.waitFor((m) => m.kind === 'json' && m.type === 'executing' && m.data.node === null && m.data.prompt_id === promptId);
}

export async function upload(sim: Simulator, name: string, bytes: Uint8Array, fields: Record<string, string> = {}, path = '/api/upload/image'): Promise<Response> {
  const form = new FormData();
  form.set('image', new Blob([Uint8Array.from(bytes)], { type: 'image/png' }), name);
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  return fetch(`${sim.cloudUrl}${path}`, { method: 'POST', headers: { 'X-API-Key': sim.apiKey }, body: form });
}

export async function submit(sim: Simulator, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${sim.cloudUrl}/api/prompt`, {
    method: 'POST',
    headers: { 'X-API-Key': sim.apiKey, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

export async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

export const png = (width = 16, height = 16): Uint8Array => encodePng(width, height, [10, 20, 30]);

/** LoadImage -> ImageScale -> SaveImage. */
export function scaleWorkflow(image: string, width = 32, prefix = 'sim'): Record<string, unknown> {
  return {
    '1': { class_type: 'LoadImage', inputs: { image } },
    '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width, height: 0, crop: 'disabled' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
  };
}

/** Sends a raw WebSocket upgrade and resolves the HTTP status answered (101 when accepted). */
export function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url.replace(/^ws/, 'http'), {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    req.on('error', reject);
    req.end();
  });
}
