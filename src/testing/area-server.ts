import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { FAULT_HEADER, parseFaultHeader, type FaultController, type HeaderFaults } from './faults.js';
import { sendEmpty, sendJson, sleep, type RouteContext, type Router } from './http-utils.js';
import type { FaultSettings, RequestRecord, SimulatorArea } from './types.js';

/**
 * Header with which the simulator marks calls to itself (partner nodes calling the proxy),
 * so failure rules do not consume them.
 *
 * @example
 * fetch(url, { headers: { [INTERNAL_HEADER]: secret } });
 */
export const INTERNAL_HEADER = 'x-sim-internal';

/**
 * The request context of every simulator route: the plain context plus this request's faults.
 *
 * @example
 * const handler = (ctx: SimContext) => ctx.faults.rawStatusVocabulary;
 */
export interface SimContext extends RouteContext {
  faults: FaultSettings;
  headerFaults: HeaderFaults;
  record: RequestRecord;
}

/**
 * What one of the simulator's servers needs.
 *
 * @example
 * createAreaServer({ area: 'registry', router, faults, cors: false, internalSecret, signal, record, log });
 */
export interface AreaServerOptions {
  area: SimulatorArea;
  router: Router<SimContext>;
  faults: FaultController;
  cors: boolean;
  internalSecret: string;
  signal: AbortSignal;
  record: (record: RequestRecord) => void;
  log: (line: string) => void;
  onUpgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

const CORS_ALLOW_HEADERS = 'X-API-Key, Authorization, Content-Type, x-sim-fault';

/**
 * Creates one HTTP server that logs, applies CORS and faults, then routes.
 *
 * @example
 * const server = createAreaServer(options);
 * const url = await listen(server, 0);
 */
export function createAreaServer(options: AreaServerOptions): Server {
  const server = createServer((req, res) => {
    handle(options, req, res).catch((error: unknown) => {
      if (!options.signal.aborted) options.log(`[${options.area}] handler failed: ${String(error)}`);
      if (!res.headersSent && !options.signal.aborted) {
        sendJson(res, 500, { error: 'internal', message: 'Internal Server Error' });
      } else {
        res.destroy();
      }
    });
  });
  if (options.onUpgrade) server.on('upgrade', options.onUpgrade);
  return server;
}

async function handle(options: AreaServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const method = (req.method ?? 'GET').toUpperCase();
  const internal = header(req, INTERNAL_HEADER) === options.internalSecret;
  const record: RequestRecord = {
    area: options.area,
    method,
    path: url.pathname,
    query: url.search,
    headers: headersOf(req),
    internal,
  };
  options.record(record);
  res.on('finish', () => {
    record.status = res.statusCode;
    options.log(`[${options.area}] ${method} ${url.pathname}${url.search} -> ${res.statusCode}`);
  });
  if (options.cors) {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-expose-headers', 'Retry-After, Location, Content-Disposition');
    if (method === 'OPTIONS') {
      sendEmpty(res, 204, {
        'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
        'access-control-allow-headers': CORS_ALLOW_HEADERS,
        'access-control-max-age': '600',
      });
      return;
    }
  }
  const headerFaults = parseFaultHeader(header(req, FAULT_HEADER));
  const faults = options.faults.effective(headerFaults);
  if (faults.delayMs > 0) await sleep(faults.delayMs, options.signal);
  const fault = internal ? undefined : options.faults.pick(options.area, method, url.pathname, headerFaults);
  if (fault?.delayMs) await sleep(fault.delayMs, options.signal);
  if (fault?.status !== undefined) {
    const headers: Record<string, string> = {};
    if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
    if (fault.body === null) sendEmpty(res, fault.status, headers);
    else if (typeof fault.body === 'string') {
      res.writeHead(fault.status, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
      res.end(fault.body);
    } else sendJson(res, fault.status, fault.body, headers);
    return;
  }
  const match = options.router.match(method, url.pathname);
  if (match.kind === 'not-found') {
    sendJson(res, 404, { message: 'Not Found' });
    return;
  }
  if (match.kind === 'method-not-allowed') {
    sendJson(res, 405, { message: 'Method Not Allowed' });
    return;
  }
  await match.handler({ req, res, url, params: match.params, faults, headerFaults, record });
}

/**
 * Reads one request header as a single string.
 *
 * @example
 * header(req, 'x-api-key');
 */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Reads the Bearer token of a request, if any.
 *
 * @example
 * bearerToken(req); // 'eyJ...' for "Authorization: Bearer eyJ..."
 */
export function bearerToken(req: IncomingMessage): string | undefined {
  const value = header(req, 'authorization');
  const match = value ? /^Bearer\s+(.+)$/i.exec(value.trim()) : null;
  return match?.[1];
}

/**
 * Starts listening on 127.0.0.1 and resolves the base URL (no trailing slash).
 *
 * @example
 * const base = await listen(server, 0); // "http://127.0.0.1:54321"
 */
export function listen(server: Server, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${address.port}`);
    });
  });
}

/**
 * Closes a server and every connection it still holds.
 *
 * @example
 * await closeServer(server);
 */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
