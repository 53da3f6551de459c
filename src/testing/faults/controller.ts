import type { FailureRule, FailureRuleHandle, FaultControl, FaultSettings } from '../types/public.js';
import { parseFaultHeader } from './header.js';
import { FaultState } from './fault-state.js';
import { RequestFaults } from './request-faults.js';

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
  #hooks: SocketFaultHooks = { dropSockets: () => 0, sendGarbageFrames: () => 0, restart: async () => undefined };
  readonly #state: FaultState;

  constructor(random: () => number) {
    this.#state = new FaultState(random);
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
    this.#state.clear();
  }

  failRequests(rule: FailureRule): FailureRuleHandle {
    return this.#state.rules.install(rule);
  }

  dropEndMessages(rule: { times?: number; rate?: number }): FailureRuleHandle {
    return this.#state.endDrops.install({ times: rule.times, rate: rule.rate });
  }

  dropSockets(options: { refuseMs?: number; code?: number } = {}): number {
    if (options.refuseMs !== undefined) this.refuseSockets(options.refuseMs);
    return this.#hooks.dropSockets(options.code);
  }

  refuseSockets(ms: number): void {
    this.#state.refuseSockets(ms);
  }

  sendGarbageFrames(): number {
    return this.#hooks.sendGarbageFrames();
  }

  restart(options: { downMs?: number } = {}): Promise<void> {
    return this.#hooks.restart(Math.max(0, options.downMs ?? RESTART_DOWN_MS));
  }
}
