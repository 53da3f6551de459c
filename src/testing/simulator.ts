import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { closeServer, createAreaServer, listen, type SimContext } from './area-server.js';
import { nodeDefinitions } from './cloud-nodes.js';
import { cloudRouter, LOCAL_USER } from './cloud-routes.js';
import { CloudRunner } from './cloud-runner.js';
import { SocketHub, type UpgradeVerdict } from './cloud-sockets.js';
import { DEMO_USERS, generateApiKey, generateToken } from './credentials.js';
import { FAULT_HEADER, FaultController, parseFaultHeader } from './faults.js';
import { FileStore } from './file-store.js';
import { filesOrigin } from './files-routes.js';
import { Router, seededRandom } from './http-utils.js';
import { partnerCall } from './partner-call.js';
import { proxyRoutes, type ProxyTask } from './proxy-routes.js';
import { seedRegistry } from './registry-data.js';
import { registryRouter } from './registry-routes.js';
import type { RequestRecord, Simulator, SimulatorOptions } from './types.js';

/**
 * Defaults of {@link SimulatorOptions}.
 *
 * @example
 * SIMULATOR_DEFAULTS.taskDurationMs; // 1000
 */
export const SIMULATOR_DEFAULTS = Object.freeze({
  runtime: 'cloud' as const,
  taskDurationMs: 1000,
  stepDelayMs: 5,
  progressSteps: 3,
  seed: 1,
  signedUrlTtlMs: 300_000,
});

/**
 * Starts the simulator: a cloud server (HTTP + `/ws`), a registry/proxy server and a second
 * origin for signed files, all on 127.0.0.1.
 *
 * @example
 * const sim = await startSimulator({ stepDelayMs: 0 });
 * const res = await fetch(`${sim.cloudUrl}/api/object_info`, { headers: { 'X-API-Key': sim.apiKey } });
 * await sim.close();
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const runtime = options.runtime ?? SIMULATOR_DEFAULTS.runtime;
  const taskDurationMs = options.taskDurationMs ?? SIMULATOR_DEFAULTS.taskDurationMs;
  const now = options.now ?? Date.now;
  const log = options.logger ?? ((): void => undefined);
  const controller = new AbortController();
  const signal = controller.signal;
  const internalSecret = randomBytes(16).toString('hex');
  const credentials = {
    apiKey: options.apiKey ?? generateApiKey(),
    otherApiKey: options.otherApiKey ?? generateApiKey(),
    token: options.token ?? generateToken(DEMO_USERS.owner.id),
    memberToken: options.memberToken ?? generateToken(DEMO_USERS.member.id),
  };
  const urls = { cloud: '', registry: '', files: '' };
  const requests: RequestRecord[] = [];
  let filesSawCredentials = false;
  const record = (entry: RequestRecord): void => {
    requests.push(entry);
    if (entry.area === 'files' && (entry.headers['x-api-key'] !== undefined || entry.headers.authorization !== undefined)) {
      filesSawCredentials = true;
    }
  };
  const random = seededRandom(options.seed ?? SIMULATOR_DEFAULTS.seed);
  const faults = new FaultController(random);
  const store = new FileStore();
  const tasks = new Map<string, ProxyTask>();
  const defs = (): ReturnType<typeof nodeDefinitions> => nodeDefinitions(store.list('input'));
  let socketHolds = 0;

  const runner: CloudRunner = new CloudRunner({
    hub: new SocketHub(runtime, () => runner.queueRemaining()),
    store,
    defs,
    signal,
    stepDelayMs: options.stepDelayMs ?? SIMULATOR_DEFAULTS.stepDelayMs,
    progressSteps: options.progressSteps ?? SIMULATOR_DEFAULTS.progressSteps,
    partner: partnerCall({ proxyUrl: () => urls.registry, internalSecret, signal, pollMs: Math.max(5, Math.min(100, taskDurationMs / 5)) }),
    holdSockets: () => {
      socketHolds += 1;
      let released = false;
      return () => {
        if (!released) socketHolds -= 1;
        released = true;
      };
    },
    log,
  });
  const hub = runner.hub;
  faults.bind({
    dropSockets: (code) => hub.drop(undefined, code),
    sendGarbageFrames: () => {
      const count = hub.count();
      void hub.sendGarbage();
      return count;
    },
  });

  const cloudUsers = new Map([
    [credentials.apiKey, DEMO_USERS.owner.id],
    [credentials.otherApiKey, DEMO_USERS.stranger.id],
  ]);
  const files = filesOrigin({
    store, tasks, now, secret: internalSecret, taskDurationMs,
    ttlMs: options.signedUrlTtlMs ?? SIMULATOR_DEFAULTS.signedUrlTtlMs,
    baseUrl: () => urls.files,
  });
  const registry = seedRegistry(DEMO_USERS, random, 'https://storage.example.com/registry');
  registry.users.set(credentials.token, DEMO_USERS.owner);
  registry.users.set(credentials.memberToken, DEMO_USERS.member);
  const registryRoutes = registryRouter(registry, new Map([[credentials.apiKey, DEMO_USERS.owner]]), new Router<SimContext>());
  proxyRoutes(registryRoutes, {
    tasks, now, taskDurationMs, filesUrl: () => urls.files,
    isAuthorized: (bearer, key) =>
      (bearer !== undefined && [credentials.token, credentials.memberToken, credentials.apiKey].includes(bearer)) ||
      (key !== undefined && cloudUsers.has(key)),
  });

  const common = { faults, cors: options.cors ?? false, internalSecret, signal, record, log };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const entry: RequestRecord = { area: 'cloud', method: 'GET', path: url.pathname, query: url.search, headers: {}, internal: false };
    record(entry);
    const verdict = ((): UpgradeVerdict => {
      if (url.pathname !== '/ws') return { ok: false, status: 404, body: { message: 'Not Found' } };
      const fault = faults.pick('cloud', 'GET', '/ws', parseFaultHeader(req.headers[FAULT_HEADER] as string | undefined));
      if (fault?.status !== undefined) return { ok: false, status: fault.status, body: fault.body };
      if (socketHolds > 0 || faults.refusingSockets()) return { ok: false, status: 503, body: { message: 'Service Unavailable' } };
      if (runtime === 'local') return { ok: true, userId: LOCAL_USER };
      const userId = cloudUsers.get(url.searchParams.get('token') ?? '');
      return userId ? { ok: true, userId } : { ok: false, status: 401, body: { message: 'Invalid or missing token' } };
    })();
    entry.status = verdict.ok ? 101 : verdict.status;
    hub.upgrade(req, socket, head, verdict);
  };
  const cloudServer = createAreaServer({
    ...common,
    area: 'cloud',
    router: cloudRouter({ runtime, runner, store, defs, users: cloudUsers, signUrl: files.signUrl }),
    onUpgrade,
  });
  const registryServer = createAreaServer({ ...common, area: 'registry', router: registryRoutes });
  const filesServer = createAreaServer({ ...common, area: 'files', router: files.router });
  const servers: Server[] = [cloudServer, registryServer, filesServer];
  try {
    urls.cloud = await listen(cloudServer, options.port ?? 0);
    urls.registry = await listen(registryServer, options.registryPort ?? 0);
    urls.files = await listen(filesServer, options.filesPort ?? 0);
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
  log(`[sim] cloud ${urls.cloud} registry ${urls.registry} files ${urls.files} (${runtime})`);

  let closing: Promise<void> | undefined;
  return {
    cloudUrl: urls.cloud,
    registryUrl: urls.registry,
    proxyUrl: urls.registry,
    filesUrl: urls.files,
    runtime,
    ...credentials,
    faults,
    state: {
      get requests() {
        return [...requests];
      },
      clearRequests: () => {
        requests.length = 0;
      },
      filesOriginSawCredentials: () => filesSawCredentials,
      jobs: () => runner.all().map((job) => ({
        id: job.id, number: job.number, status: job.status, clientId: job.clientId, outputs: job.outputs, errorMessage: job.errorMessage,
      })),
      socketCount: () => hub.count(),
      waitForIdle: () => runner.waitForIdle(),
      files: (type) => store.list(type),
    },
    close: () => {
      closing ??= (async () => {
        controller.abort(new Error('simulator closed'));
        runner.dispose();
        await hub.close();
        await Promise.all(servers.map(closeServer));
      })();
      return closing;
    },
  };
}
