import type { FailureRule, FailureRuleHandle, FaultControl, FaultSettings } from '../types/public.js';
import { parseFaultHeader } from './header.js';
import { RequestFaults, type FaultState } from './request-faults.js';
import { FailureRules } from './rules.js';

/**
 * Switches with nothing injected.
 *
 * @example
 * const settings = { ...NO_FAULTS, rawStatusVocabulary: true };
 */
export const NO_FAULTS: Readonly<FaultSettings> = Object.freeze({
  rawStatusVocabulary: false,
  finishBeforeResponse: false,
  dropSocketsMidRun: false,
  garbageFrames: false,
  cachedWithoutExecuted: false,
  dropEndMessages: false,
  delayMs: 0,
  taskStatusField: 'status',
  wrapStyleTransfer: false,
  taskNotFoundPolls: 0,
});

/**
 * Operations the controller delegates to the simulator: the cloud socket hub's, and the restart
 * of its servers.
 *
 * @example
 * controller.bind({ dropSockets: () => 0, sendGarbageFrames: () => 0, restart: async () => undefined });
 */
export interface SocketFaultHooks {
  dropSockets(code?: number): number;
  sendGarbageFrames(): number;
  restart(downMs: number): Promise<void>;
}

/** How long a restart keeps the servers down by default, in milliseconds. */
const RESTART_DOWN_MS = 200;

/**
 * The fault state of one simulator: it implements {@link FaultControl} (`sim.faults`) and hands
 * each request its {@link RequestFaults}, where every fault is decided.
 *
 * @example
 * const faults = new FaultController(seededRandom(1));
 * faults.failRequests({ path: '/api/prompt', status: 503, times: 1 });
 * faults.forRequest('status=429').fire({ area: 'cloud', method: 'GET', path: '/', internal: false });
 */
export class FaultController implements FaultControl {
  #settings: FaultSettings = { ...NO_FAULTS };
  #refuseUntil = 0;
  #socketHolds = 0;
  #hooks: SocketFaultHooks = { dropSockets: () => 0, sendGarbageFrames: () => 0, restart: async () => undefined };
  readonly #rules: FailureRules;
  /** Counted rules of `dropEndMessages()`: each run submitted asks them once. */
  readonly #endDrops: FailureRules;
  readonly #state: FaultState;

  constructor(random: () => number) {
    this.#rules = new FailureRules(random);
    this.#endDrops = new FailureRules(random);
    this.#state = {
      rules: this.#rules,
      dropsEnd: () => this.#endDrops.match('cloud', 'POST', '/api/prompt') !== undefined,
      refusingSockets: () => this.#socketHolds > 0 || performance.now() < this.#refuseUntil,
      holdSockets: () => {
        this.#socketHolds += 1;
        let released = false;
        return () => {
          if (!released) this.#socketHolds -= 1;
          released = true;
        };
      },
    };
  }

  /** Connects the socket and restart operations once the hub and the servers exist. */
  bind(hooks: SocketFaultHooks): void {
    this.#hooks = hooks;
  }

  /** The faults of one request, given its `x-sim-fault` header. */
  forRequest(faultHeader: string | undefined): RequestFaults {
    return new RequestFaults(this.#state, this.#settings, parseFaultHeader(faultHeader));
  }

  set(settings: Partial<FaultSettings>): void {
    this.#settings = { ...this.#settings, ...settings };
  }

  get(): Readonly<FaultSettings> {
    return { ...this.#settings };
  }

  reset(): void {
    this.#settings = { ...NO_FAULTS };
    this.#rules.clear();
    this.#endDrops.clear();
    this.#refuseUntil = 0;
  }

  failRequests(rule: FailureRule): FailureRuleHandle {
    return this.#rules.install(rule);
  }

  dropEndMessages(rule: { times?: number; rate?: number }): FailureRuleHandle {
    return this.#endDrops.install({ times: rule.times, rate: rule.rate });
  }

  dropSockets(options: { refuseMs?: number; code?: number } = {}): number {
    if (options.refuseMs !== undefined) this.refuseSockets(options.refuseMs);
    return this.#hooks.dropSockets(options.code);
  }

  refuseSockets(ms: number): void {
    this.#refuseUntil = Math.max(this.#refuseUntil, performance.now() + ms);
  }

  sendGarbageFrames(): number {
    return this.#hooks.sendGarbageFrames();
  }

  restart(options: { downMs?: number } = {}): Promise<void> {
    return this.#hooks.restart(Math.max(0, options.downMs ?? RESTART_DOWN_MS));
  }
}
