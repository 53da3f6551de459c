import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { refuse } from './answers.js';
import type { Relay } from './relay.js';
import { hasDotSegment } from './routes.js';

/**
 * The relay on Node's `http` server (and Express, Koa, Fastify's raw handlers): a request
 * listener, and an upgrade handler for the socket.
 *
 * @example
 * ```ts
 * const node = createNodeHandler(relay);
 * const server = http.createServer(node.listener);
 * server.on('upgrade', (req, socket, head) => node.upgrade(req, socket, head) || socket.destroy());
 * ```
 */
export interface NodeRelayHandler {
  /**
   * A request listener. With `next` (Express middleware), a request outside the relay's base path
   * goes on to `next()`. Mount it before any body parser: the relay reads the body itself.
   */
  listener(req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
  /** Handles an upgrade to `<basePath>/ws` and returns true; returns false for any other path (left to you). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
}

// A browser only ever sends small subscription messages.
const MAX_PAYLOAD = 64 * 1024;
// Time a closed browser socket has to answer the close handshake.
const CLOSE_GRACE_MS = 1_000;

/**
 * Adapts a relay to Node's `http` module: requests become web `Request`s (the body streamed, the
 * signal aborted when the client goes away), answers are written back with backpressure, and
 * socket upgrades are completed with the `ws` package (loaded on the first upgrade only).
 *
 * @example
 * ```ts
 * import http from 'node:http';
 * import { createRelay, createNodeHandler } from 'graphcloud/server';
 * const node = createNodeHandler(createRelay(options));
 * http.createServer(node.listener).on('upgrade', (req, socket, head) => node.upgrade(req, socket, head) || socket.destroy()).listen(3000);
 * ```
 */
export function createNodeHandler(relay: Relay): NodeRelayHandler {
  let sockets: Promise<WebSocketServer> | undefined;
  const socketServer = () => (sockets ??= import('ws').then(({ WebSocketServer }) => new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD, perMessageDeflate: false })));
  const inside = (req: IncomingMessage) => {
    const path = pathOf(req);
    return path === relay.basePath || path.startsWith(`${relay.basePath}/`);
  };

  return {
    listener(req, res, next) {
      if (next && !inside(req)) {
        next();
        return;
      }
      const closed = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) closed.abort();
      });
      // The URL parser resolves `/a/../b` to `/b`: the path is checked as it came.
      if (hasDotSegment(pathOf(req))) {
        void writeResponse(refuse(400, 'bad_path', 'The path holds a dot segment'), res, req);
        return;
      }
      let request: Request;
      try {
        request = toRequest(req, closed.signal);
      } catch {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request');
        return;
      }
      relay(request)
        .then((response) => writeResponse(response, res, req))
        .catch(() => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"relay_failed","message":"The relay failed"}');
          else res.destroy();
        });
    },
    upgrade(req, socket, head) {
      if (pathOf(req) !== `${relay.basePath}/ws`) return false;
      // An error on the raw socket (the browser left) must not become an unhandled 'error' event.
      socket.on('error', () => undefined);
      void (async () => {
        const decision = await relay.upgrade(toRequest(req));
        if (decision.response) {
          await refuseUpgrade(socket, decision.response);
          return;
        }
        const server = await socketServer();
        server.handleUpgrade(req, socket, head, (ws) => {
          const session = decision.open({
            send: (data) => ws.send(data),
            close: (code, reason) => {
              ws.close(code, reason);
              // A browser that reads nothing never answers the close frame (queued behind what it did
              // not read): its connection and queue are let go after a grace, not ws's 30 s.
              setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
            },
            bufferedAmount: () => ws.bufferedAmount,
          });
          ws.on('message', (data, isBinary) => session.receive(isBinary ? new Uint8Array(Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)])) : String(data)));
          ws.on('close', () => session.closed());
          ws.on('error', () => undefined);
        });
      })().catch(() => socket.destroy());
      return true;
    },
  };
}

function pathOf(req: IncomingMessage): string {
  const raw = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const end = raw.search(/[?#]/);
  return end === -1 ? raw : raw.slice(0, end);
}

/** A web `Request` of a Node request; its body streams from the request, its signal follows the client. */
function toRequest(req: IncomingMessage, signal?: AbortSignal): Request {
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  const url = new URL((req as { originalUrl?: string }).originalUrl ?? req.url ?? '/', `${encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  if (method !== 'GET' && method !== 'HEAD') {
    const chunks = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    init.body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      },
      cancel() {
        // The relay stopped reading (a body over its bound): let Node discard the rest.
        req.resume();
      },
    });
    init.duplex = 'half';
  }
  return new Request(url, init);
}

async function writeResponse(response: Response, res: ServerResponse, req: IncomingMessage): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of response.headers) if (name !== 'set-cookie') headers[name] = value;
  // A body the relay did not read to its end (refused, too large, too slow) would keep the
  // connection open while Node reads the rest: it is closed once the answer is written.
  if (!req.complete) headers.connection = 'close';
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drained(res);
      if (res.destroyed) return;
    }
    res.end();
  } catch {
    // The upstream body broke after the status was sent: the browser sees a broken answer.
    res.destroy();
  }
}

/** Resolves when the response can take more, or has closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function refuseUpgrade(socket: Duplex, response: Response): Promise<void> {
  const body = Buffer.from(await response.text());
  const lines = [`HTTP/1.1 ${response.status} ${response.statusText || 'Refused'}`, 'Connection: close', `Content-Length: ${body.length}`];
  for (const [name, value] of response.headers) if (name !== 'content-length') lines.push(`${name}: ${value}`);
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
}
