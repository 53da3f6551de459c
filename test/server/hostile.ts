import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { TokenSigner } from '../../src/server/tokens.js';
import type { RelayOptions } from '../../src/server/index.js';
import type { Simulator } from '../../src/testing/index.js';
import { SECRET, startRelay, type RunningRelay } from './helpers.js';

export const KEY = 'sk-live-0123456789abcdef-the-platform-key';

/** A request a hostile server received. */
export interface Seen {
  method: string;
  path: string;
  query: string;
  key: string | undefined;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

/** A server on 127.0.0.1 that records what it receives and answers what the test sets. */
export interface HostileServer {
  url: string;
  seen: Seen[];
  /** Answers `path` with `handler` (the default answers 404). */
  on(path: string, handler: Handler): void;
  close(): Promise<void>;
}

async function hostileServer(extra?: (server: Server) => void): Promise<HostileServer> {
  const handlers = new Map<string, Handler>();
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ method: req.method ?? 'GET', path: url.pathname, query: url.search, key: (req.headers['x-api-key'] as string | undefined) ?? undefined });
    const handler = handlers.get(url.pathname);
    if (handler) handler(req, res, url);
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not here"}');
  });
  extra?.(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    on: (path, handler) => void handlers.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A hostile cloud: echoes, redirects and floods as each test sets it. `/api/jobs/<id>` names the
 * outputs `<id>.png` and `<id>.txt`; its socket records what the relay sends and lets the test push
 * frames; `storage` is another origin (the signed-URL host).
 */
export interface HostileCloud extends HostileServer {
  storage: HostileServer;
  /** Messages the relay sent on the upstream socket. */
  received: string[];
  /** Sends a frame to every connected relay socket. */
  push(frame: string | Uint8Array): void;
  /** Resolves once a relay socket connected and sent its first message. */
  connected(): Promise<void>;
}

export async function startHostileCloud(): Promise<HostileCloud> {
  const received: string[] = [];
  const clients = new Set<WebSocket>();
  let wake: (() => void) | undefined;
  let hello = false;
  let sockets: WebSocketServer | undefined;
  const cloud = await hostileServer((server) => {
    sockets = new WebSocketServer({ server, path: '/ws' });
    sockets.on('connection', (ws) => {
      clients.add(ws);
      ws.on('message', (data) => {
        received.push(String(data));
        hello = true;
        wake?.();
      });
      ws.on('close', () => clients.delete(ws));
    });
  });
  const storage = await hostileServer();
  // /api/jobs/<id> names the job's outputs (the relay checks a file against them).
  for (const id of ['p-A', 'p-B', 'p-C']) {
    cloud.on(`/api/jobs/${id}`, (_req, res) => {
      const outputs = { '9': { images: [{ filename: `${id}.png`, subfolder: '', type: 'output' }], text: [{ filename: `${id}.txt`, subfolder: '', type: 'output' }] } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, status: 'completed', outputs }));
    });
  }
  return {
    ...cloud,
    storage,
    received,
    push: (frame) => {
      for (const ws of clients) ws.send(frame);
    },
    connected: () =>
      hello
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            wake = resolve;
          }),
    close: async () => {
      for (const ws of clients) ws.terminate();
      sockets?.close();
      await Promise.all([cloud.close(), storage.close()]);
    },
  };
}

/** The signed token of a job, as the relay signs it. */
export const tokenOf = (promptId: string): Promise<string> => new TokenSigner([SECRET], 60_000).sign('job', promptId);

/** Starts a hostile cloud and relays in front of it, for one test file; everything closes after each test. */
export function hostileStarter(): (options?: Partial<RelayOptions>) => Promise<{ cloud: HostileCloud; relay: RunningRelay }> {
  const open: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });
  return async (options = {}) => {
    const cloud = await startHostileCloud();
    open.push(() => cloud.close());
    const relay = await startRelay({ cloudUrl: cloud.url, apiKey: KEY } as unknown as Simulator, { apiKey: KEY, ...options });
    open.push(() => relay.close());
    return { cloud, relay };
  };
}
