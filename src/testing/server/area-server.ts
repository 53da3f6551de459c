import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FaultController } from '../faults/controller.js';
import { FAULT_HEADER } from '../faults/header.js';
import type { RequestRecord, SimulatorArea } from '../types/public.js';
import { header, headersOf } from './request.js';
import { isDown, refusedByRestart, trackConnections } from './restart.js';
import { Router, type MountedRoutes, type UpgradeAnswer } from './router.js';
import { refuseUpgrade, sendEmpty, sendJson, sendRefusal } from './send.js';
import { sleep } from './sleep.js';
import { stallBody } from './stall.js';

/**
 * Header with which the simulator marks calls to itself (partner nodes calling the proxy),
 * so failure rules do not consume them.
 *
 * @example
 * fetch(url, { headers: { [INTERNAL_HEADER]: secret } });
 */
export const INTERNAL_HEADER = 'x-sim-internal';

/**
 * What one of the simulator's servers needs: its area, the route modules it is composed of,
 * and what every server shares.
 *
 * @example
 * createAreaServer({ area: 'registry', routes: [mount(registryRoutes, deps)], faults, cors: false, internalSecret, signal, record, log });
 */
export interface AreaServerOptions {
  area: SimulatorArea;
  /** The route modules of this server, added in order to one router. */
  routes: readonly MountedRoutes[];
  faults: FaultController;
  cors: boolean;
  internalSecret: string;
  signal: AbortSignal;
  record: (record: RequestRecord) => void;
  log: (line: string) => void;
}

const CORS_ALLOW_HEADERS = `X-API-Key, Authorization, Content-Type, ${FAULT_HEADER}`;
const RESTARTING = { message: 'Service Unavailable: restarting' };

/**
 * Creates one HTTP server that logs, applies CORS and the faults decided for each request, then
 * routes; it accepts WebSocket upgrades only when one of its modules registered some.
 *
 * @example
 * const server = createAreaServer(options);
 * const url = await listen(server, 0);
 */
export function createAreaServer(options: AreaServerOptions): Server {
  const router = new Router();
  for (const routes of options.routes) routes(router);
  const server = createServer((req, res) => {
    handle(options, router, req, res, refusedByRestart(server, req)).catch((error: unknown) => {
      if (!options.signal.aborted) options.log(`[${options.area}] handler failed: ${String(error)}`);
      if (!res.headersSent && !options.signal.aborted) {
        sendJson(res, 500, { error: 'internal', message: 'Internal Server Error' });
      } else {
        res.destroy();
      }
    });
  });
  // An idle connection outlives a client's own hold on it (a client closes it just before the
  // hint below runs out): with Node's 5 s, a busy client reused connections the server was closing
  // and a submission met ECONNRESET (a SubmissionUnknownError the simulator caused, not the test).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  trackConnections(server);
  if (router.hasUpgrades) server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => upgrade(options, router, req, socket, head, isDown(server)));
  return server;
}

async function handle(options: AreaServerOptions, router: Router, req: IncomingMessage, res: ServerResponse, restarting: boolean): Promise<void> {
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
  // Down for a restart, or a connection to the process that is gone: refused, unprocessed (the
  // simulator's calls to itself excepted, as with every fault).
  if (restarting && !internal) {
    sendRefusal(res, { status: 503, retryAfter: 1, body: RESTARTING }, { connection: 'close' });
    return;
  }
  const faults = options.faults.forRequest(header(req, FAULT_HEADER));
  if (faults.settings.delayMs > 0) await sleep(faults.settings.delayMs, options.signal);
  const fired = faults.fire({ area: options.area, method, path: url.pathname, internal });
  if (fired?.delayMs) await sleep(fired.delayMs, options.signal);
  if (fired?.stallBodyMs !== undefined) stallBody(res, fired.stallBodyMs, options.signal);
  if (fired?.answer) {
    sendRefusal(res, fired.answer);
    return;
  }
  const match = router.match(method, url.pathname);
  if (match.kind === 'not-found') {
    sendJson(res, 404, { message: 'Not Found' });
    return;
  }
  if (match.kind === 'method-not-allowed') {
    sendJson(res, 405, { message: 'Method Not Allowed' });
    return;
  }
  await match.handler({ req, res, url, params: match.params, faults });
}

function upgrade(options: AreaServerOptions, router: Router, req: IncomingMessage, socket: Duplex, head: Buffer, down: boolean): void {
  socket.on('error', () => socket.destroy());
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const record: RequestRecord = { area: options.area, method: 'GET', path: url.pathname, query: url.search, headers: {}, internal: false };
  options.record(record);
  const handler = router.matchUpgrade(url.pathname);
  let answer: UpgradeAnswer;
  if (down) answer = { refuse: { status: 503, retryAfter: 1, body: RESTARTING } };
  else if (handler) answer = handler({ req, socket, head, url, faults: options.faults.forRequest(header(req, FAULT_HEADER)) });
  else answer = { refuse: { status: 404, body: { message: 'Not Found' } } };
  if ('refuse' in answer) {
    record.status = answer.refuse.status;
    refuseUpgrade(socket, answer.refuse);
    return;
  }
  record.status = 101;
  answer.accept();
}
