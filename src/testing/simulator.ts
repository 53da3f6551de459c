import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Server } from 'node:http';
import { jobSnapshot } from './cloud/job-views.js';
import { nodeDefinitions } from './cloud/nodes.js';
import { pricedDefinitions } from './cloud/priced-nodes.js';
import { partnerCall } from './cloud/partner-call.js';
import { jobRoutes } from './cloud/job-routes.js';
import { cloudRoutes } from './cloud/routes.js';
import { CloudRunner } from './cloud/runner.js';
import { SocketHub } from './cloud/socket-hub.js';
import { FaultController } from './faults/controller.js';
import { PackageStore } from './files/packages.js';
import { filesRoutes } from './files/routes.js';
import { urlSigner } from './files/signed-urls.js';
import { FileStore } from './files/store.js';
import { proxyResultRoutes } from './proxy/results.js';
import { proxyRoutes } from './proxy/routes.js';
import type { ProxyTasks } from './proxy/tasks.js';
import { seedRegistry } from './registry/data.js';
import { publishRoutes } from './registry/publish-routes.js';
import { publisherRoutes } from './registry/publisher-routes.js';
import { registryRoutes } from './registry/routes.js';
import { createAreaServer } from './server/area-server.js';
import { DEMO_USERS, generateApiKey, generateToken } from './server/credentials.js';
import { closeServer, listen } from './server/listen.js';
import { seededRandom } from './server/random.js';
import { RequestLog } from './server/request-log.js';
import { restartServer } from './server/restart.js';
import { mount } from './server/router.js';
import type { Simulator, SimulatorOptions } from './types/public.js';

/**
 * Defaults of {@link SimulatorOptions}.
 *
 * @example
 * SIMULATOR_DEFAULTS.taskDurationMs; // 1000
 */
export const SIMULATOR_DEFAULTS = Object.freeze({
  /** The server played: the hosted cloud. */
  runtime: 'cloud' as const,
  /** Time a proxy task takes from creation to its terminal state, in ms. */
  taskDurationMs: 1000,
  /** Pause between two execution events of a workflow run, in ms. */
  stepDelayMs: 5,
  /** `progress` messages (and preview frames) per executed node. */
  progressSteps: 3,
  /** Seed of the random generator behind fault ratios and seeded ids. */
  seed: 1,
  /** Lifetime of the signed file URLs `/api/view` answers, in ms. */
  signedUrlTtlMs: 300_000,
  /** `POST /api/jobs/{id}/cancel` is served, as on the newest servers. */
  cancelRoutes: true,
  /** `GET /api/jobs` and `GET /api/jobs/{id}` are served, as on servers from ComfyUI 0.8 and the cloud. */
  jobsRoutes: true,
  /** Jobs of the account run at once (plan tiers run 1, 3 or 5); the others wait, pending. */
  accountConcurrency: 1,
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
  // Every delayed answer, stalled body and running job waits on this one signal: dozens at once
  // are the simulator's normal load, not a leak (Node 22 warns at an 11th listener).
  setMaxListeners(0, signal);
  const internalSecret = randomBytes(16).toString('hex');
  const credentials = {
    apiKey: options.apiKey ?? generateApiKey(),
    otherApiKey: options.otherApiKey ?? generateApiKey(),
    token: options.token ?? generateToken(DEMO_USERS.owner.id),
    memberToken: options.memberToken ?? generateToken(DEMO_USERS.member.id),
  };
  const urls = { cloud: '', registry: '', files: '' };
  const requests = new RequestLog();
  const random = seededRandom(options.seed ?? SIMULATOR_DEFAULTS.seed);
  const faults = new FaultController(random);
  const store = new FileStore();
  const tasks: ProxyTasks = new Map();
  const defs = (): ReturnType<typeof nodeDefinitions> => ({ ...nodeDefinitions(store.list('input')), ...pricedDefinitions() });

  const runner: CloudRunner = new CloudRunner({
    hub: new SocketHub(runtime, () => runner.queueRemaining()),
    store,
    defs,
    signal,
    stepDelayMs: options.stepDelayMs ?? SIMULATOR_DEFAULTS.stepDelayMs,
    progressSteps: options.progressSteps ?? SIMULATOR_DEFAULTS.progressSteps,
    accountConcurrency: options.accountConcurrency ?? SIMULATOR_DEFAULTS.accountConcurrency,
    partner: partnerCall({ proxyUrl: () => urls.registry, internalSecret, signal, pollMs: Math.max(5, Math.min(100, taskDurationMs / 5)) }),
    log,
  });
  const hub = runner.hub;
  const servers: Server[] = [];
  faults.bind({
    dropSockets: (code) => hub.drop(undefined, code),
    sendGarbageFrames: () => {
      const count = hub.count();
      void hub.sendGarbage();
      return count;
    },
    restart: async (downMs) => {
      // Down first, so the dropped sockets' reconnects are refused until the servers are back.
      const restarted = Promise.all(servers.map((server) => restartServer(server, downMs, signal)));
      hub.drop(undefined, 1012);
      await restarted;
    },
  });

  const cloudUsers = new Map([
    [credentials.apiKey, DEMO_USERS.owner.id],
    [credentials.otherApiKey, DEMO_USERS.stranger.id],
  ]);
  const signer = urlSigner({
    secret: internalSecret,
    ttlMs: options.signedUrlTtlMs ?? SIMULATOR_DEFAULTS.signedUrlTtlMs,
    now,
    baseUrl: () => urls.files,
  });
  const packages = new PackageStore({ secret: internalSecret, ttlMs: options.signedUrlTtlMs ?? SIMULATOR_DEFAULTS.signedUrlTtlMs, now, baseUrl: () => urls.files });
  const registry = seedRegistry(DEMO_USERS, random, 'https://storage.example.com/registry');
  registry.users.set(credentials.token, DEMO_USERS.owner);
  registry.users.set(credentials.memberToken, DEMO_USERS.member);
  const proxy = {
    tasks, now, taskDurationMs, filesUrl: () => urls.files,
    isAuthorized: (bearer: string | undefined, key: string | undefined) =>
      (bearer !== undefined && [credentials.token, credentials.memberToken, credentials.apiKey].includes(bearer)) ||
      (key !== undefined && cloudUsers.has(key)),
  };

  const registryDeps = { data: registry, apiKeys: new Map([[credentials.apiKey, DEMO_USERS.owner]]), packages };
  const common = { faults, cors: options.cors ?? false, internalSecret, signal, record: requests.record, log };
  const cloudServer = createAreaServer({
    ...common,
    area: 'cloud',
    routes: [
      mount(cloudRoutes, { runtime, runner, hub, store, defs, users: cloudUsers, signer }),
      mount(jobRoutes, { runtime, runner, users: cloudUsers, cancelRoutes: options.cancelRoutes ?? SIMULATOR_DEFAULTS.cancelRoutes, jobsRoutes: options.jobsRoutes ?? SIMULATOR_DEFAULTS.jobsRoutes }),
    ],
  });
  const registryServer = createAreaServer({
    ...common,
    area: 'registry',
    routes: [
      mount(registryRoutes, registryDeps),
      mount(publisherRoutes, registryDeps),
      mount(publishRoutes, registryDeps),
      mount(proxyRoutes, proxy),
    ],
  });
  const filesServer = createAreaServer({
    ...common,
    area: 'files',
    routes: [mount(filesRoutes, { store, signer, packages }), mount(proxyResultRoutes, { tasks, now, taskDurationMs })],
  });
  servers.push(cloudServer, registryServer, filesServer);
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
        return requests.entries;
      },
      clearRequests: () => requests.clear(),
      filesOriginSawCredentials: () => requests.filesOriginSawCredentials(),
      jobs: () => runner.all().map(jobSnapshot),
      socketCount: () => hub.count(),
      waitForIdle: () => runner.waitForIdle(),
      peaks: () => runner.peaks(),
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
