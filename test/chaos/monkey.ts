// The chaos monkey: failure rules on the routes a watch reads, and a seeded schedule of socket
// drops, refused upgrades and restarts while jobs run.
import type { FailureRuleHandle, Simulator } from '../../src/testing/index.js';

/** Faults the monkey injected, as the simulator saw them. */
export interface FaultCounts {
  /** Sockets closed by the server (abruptly, with 1012, or by a restart). */
  socketDrops: number;
  /** `/ws` upgrades answered 5xx. */
  refusedUpgrades: number;
  /** Status answers whose body was held after the headers (longer than the client waits). */
  stalledBodies: number;
  /** 5xx answers of failure rules on status and output routes. */
  serverErrors: number;
  restarts: number;
  /** Requests answered 503, unprocessed, because of a restart (while down, or on a connection opened before it). */
  restartRefusals: number;
}

/** mulberry32: the monkey's schedule is the same for the same seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const STATUS_ROUTE = /^\/api\/job\/[^/]+\/status$/;
const READ_ROUTES = /^\/api\/(job\/|jobs\/|history_v2\/)/;

/**
 * Installs the rules and starts the schedule; `stop()` ends it, waits for a restart in progress,
 * removes the rules and returns the counts.
 */
export function startMonkey(sim: Simulator, seed: number): { stop(): Promise<FaultCounts> } {
  const random = seeded(seed);
  const between = (min: number, max: number): number => Math.round(min + random() * (max - min));
  const rules: FailureRuleHandle[] = [
    // Held far longer than the client's per-attempt timeout: the read times out and is tried again.
    sim.faults.failRequests({ method: 'GET', path: STATUS_ROUTE, stallBodyMs: 60_000, rate: 0.1 }),
    sim.faults.failRequests({ method: 'GET', path: READ_ROUTES, status: 503, rate: 0.12 }),
    sim.faults.failRequests({ method: 'GET', path: READ_ROUTES, status: 502, rate: 0.05, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }),
  ];
  const [stalled, unavailable, badGateway] = rules as [FailureRuleHandle, FailureRuleHandle, FailureRuleHandle];
  let socketDrops = 0;
  let restarts = 0;
  let running = true;
  let wake: (() => void) | undefined;

  const loop = (async () => {
    while (running) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, between(40, 160));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (!running) break;
      const roll = random();
      if (roll < 0.4) socketDrops += sim.faults.dropSockets({ refuseMs: between(50, 400) });
      else if (roll < 0.55) socketDrops += sim.faults.dropSockets({ code: 1012 });
      else if (roll < 0.7) sim.faults.refuseSockets(between(100, 600));
      else if (roll < 0.8) {
        socketDrops += sim.state.socketCount();
        restarts++;
        await sim.faults.restart({ downMs: between(50, 250) });
      }
    }
  })();

  return {
    async stop() {
      running = false;
      wake?.();
      await loop;
      for (const rule of rules) rule.remove();
      sim.faults.reset();
      const answers = sim.state.requests.filter((r) => r.area === 'cloud');
      const upgrades = answers.filter((r) => r.path === '/ws');
      const all503 = answers.filter((r) => r.path !== '/ws' && r.status === 503).length;
      return {
        socketDrops,
        refusedUpgrades: upgrades.filter((r) => (r.status ?? 0) >= 500).length,
        stalledBodies: stalled.hits,
        serverErrors: unavailable.hits + badGateway.hits,
        restarts,
        restartRefusals: all503 - unavailable.hits,
      };
    },
  };
}
