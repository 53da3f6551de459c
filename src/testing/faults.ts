import type {
  FailureRule,
  FailureRuleHandle,
  FaultControl,
  FaultSettings,
  SimulatorArea,
} from './types.js';

/**
 * The header that injects faults into one request, e.g.
 * `x-sim-fault: status=503, retry-after=2` or `x-sim-fault: finish-before-response, garbage-frames`.
 *
 * @example
 * fetch(url, { headers: { [FAULT_HEADER]: 'delay=200' } });
 */
export const FAULT_HEADER = 'x-sim-fault';

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
  delayMs: 0,
  taskStatusField: 'status',
  wrapStyleTransfer: false,
  taskNotFoundPolls: 0,
});

/**
 * What one request carries in its `x-sim-fault` header.
 *
 * @example
 * parseFaultHeader('status=429, retry-after=3'); // { overrides: {}, status: 429, retryAfter: 3 }
 */
export interface HeaderFaults {
  overrides: Partial<FaultSettings>;
  status?: number;
  retryAfter?: number;
}

/**
 * Parses the `x-sim-fault` header: comma- or semicolon-separated `name` or `name=value` items.
 * Names: `status`, `retry-after`, `delay`, `raw-status`, `finish-before-response`, `drop-mid-run`,
 * `garbage-frames`, `task-status-field` (=`task_status`), `wrap-style-transfer`, `not-found-polls`.
 *
 * @example
 * parseFaultHeader('delay=50, raw-status').overrides; // { delayMs: 50, rawStatusVocabulary: true }
 */
export function parseFaultHeader(value: string | undefined): HeaderFaults {
  const result: HeaderFaults = { overrides: {} };
  if (!value) return result;
  for (const item of value.split(/[,;]/)) {
    const [rawName = '', rawValue] = item.split('=', 2).map((part) => part.trim());
    const name = rawName.toLowerCase();
    const number = rawValue === undefined ? Number.NaN : Number(rawValue);
    const flag = rawValue === undefined || rawValue === 'true' || rawValue === '1';
    switch (name) {
      case 'status':
        if (Number.isInteger(number)) result.status = number;
        break;
      case 'retry-after':
        if (Number.isFinite(number)) result.retryAfter = number;
        break;
      case 'delay':
        if (Number.isFinite(number)) result.overrides.delayMs = number;
        break;
      case 'raw-status':
        result.overrides.rawStatusVocabulary = flag;
        break;
      case 'finish-before-response':
        result.overrides.finishBeforeResponse = flag;
        break;
      case 'drop-mid-run':
        result.overrides.dropSocketsMidRun = flag;
        break;
      case 'garbage-frames':
        result.overrides.garbageFrames = flag;
        break;
      case 'task-status-field':
        result.overrides.taskStatusField = rawValue === 'status' ? 'status' : 'task_status';
        break;
      case 'wrap-style-transfer':
        result.overrides.wrapStyleTransfer = flag;
        break;
      case 'not-found-polls':
        if (Number.isInteger(number)) result.overrides.taskNotFoundPolls = number;
        break;
      default:
        break;
    }
  }
  return result;
}

/**
 * A failure chosen for one request.
 *
 * @example
 * const fired: FiredFault = { status: 503, retryAfter: 1, body: { message: 'Simulated fault' } };
 */
export interface FiredFault {
  /** Status to answer; undefined for a delay-only rule. */
  status?: number;
  delayMs?: number;
  retryAfter?: number;
  body: unknown;
}

interface InstalledRule {
  rule: FailureRule;
  remaining: number | undefined;
  hits: number;
}

/**
 * Socket operations the controller delegates to the cloud socket hub.
 *
 * @example
 * controller.bind({ dropSockets: () => 0, sendGarbageFrames: () => 0 });
 */
export interface SocketFaultHooks {
  dropSockets(code?: number): number;
  sendGarbageFrames(): number;
}

/**
 * Holds the fault state of one simulator and implements {@link FaultControl}.
 *
 * @example
 * const faults = new FaultController(seededRandom(1));
 * faults.failRequests({ path: '/api/prompt', status: 503, times: 1 });
 */
export class FaultController implements FaultControl {
  #settings: FaultSettings = { ...NO_FAULTS };
  #rules: InstalledRule[] = [];
  #refuseUntil = 0;
  #hooks: SocketFaultHooks = { dropSockets: () => 0, sendGarbageFrames: () => 0 };
  readonly #random: () => number;

  constructor(random: () => number) {
    this.#random = random;
  }

  /** Connects the socket operations once the socket hub exists. */
  bind(hooks: SocketFaultHooks): void {
    this.#hooks = hooks;
  }

  set(settings: Partial<FaultSettings>): void {
    this.#settings = { ...this.#settings, ...settings };
  }

  get(): Readonly<FaultSettings> {
    return { ...this.#settings };
  }

  reset(): void {
    this.#settings = { ...NO_FAULTS };
    this.#rules = [];
    this.#refuseUntil = 0;
  }

  failRequests(rule: FailureRule): FailureRuleHandle {
    const installed: InstalledRule = { rule, remaining: rule.times, hits: 0 };
    this.#rules.push(installed);
    return {
      get hits() {
        return installed.hits;
      },
      remove: () => {
        this.#rules = this.#rules.filter((candidate) => candidate !== installed);
      },
    };
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

  /** True while socket upgrades must be refused with 503. */
  refusingSockets(): boolean {
    return performance.now() < this.#refuseUntil;
  }

  /** Settings of one request: the simulator's switches overridden by its header. */
  effective(header: HeaderFaults): FaultSettings {
    return { ...this.#settings, ...header.overrides };
  }

  /** Picks the failure a request must answer, consuming counted rules; header status wins. */
  pick(area: SimulatorArea, method: string, path: string, header: HeaderFaults): FiredFault | undefined {
    if (header.status !== undefined) return fired(header.status, header.retryAfter);
    for (const installed of this.#rules) {
      const { rule } = installed;
      if (rule.area !== undefined && rule.area !== area) continue;
      if (rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
      if (!pathMatches(rule.path, path)) continue;
      if (installed.remaining !== undefined) {
        if (installed.remaining <= 0) continue;
        installed.remaining -= 1;
      } else if (rule.rate !== undefined && this.#random() >= rule.rate) {
        continue;
      }
      installed.hits += 1;
      if (rule.status === undefined) return { delayMs: rule.delayMs ?? 0, body: undefined };
      return { ...fired(rule.status, rule.retryAfter, rule.body), delayMs: rule.delayMs };
    }
    return undefined;
  }
}

function pathMatches(pattern: string | RegExp | undefined, path: string): boolean {
  if (pattern === undefined) return true;
  if (typeof pattern === 'string') return path.startsWith(pattern);
  pattern.lastIndex = 0;
  return pattern.test(path);
}

function fired(status: number, retryAfter?: number, body?: unknown): FiredFault {
  const defaultRetry = status === 429 || status === 503 ? 1 : undefined;
  return {
    status,
    retryAfter: retryAfter ?? defaultRetry,
    body: body === undefined ? { message: `Simulated fault: HTTP ${status}` } : body,
  };
}
