import type { FaultSettings, SimulatorArea } from '../types/public.js';
import type { HeaderFaults } from './header.js';
import type { FaultState } from './fault-state.js';
import { faultAnswer, type FaultAnswer, type FiredFault } from './rules.js';
import { RunFaults } from './run-faults.js';
import { TaskFaults } from './task-faults.js';

/**
 * Which request a fault is decided for.
 *
 * @example
 * faults.fire({ area: 'cloud', method: 'POST', path: '/api/prompt', internal: false });
 */
export interface FaultTarget {
  area: SimulatorArea;
  method: string;
  path: string;
  /** A call the simulator made to itself (the partner node calling the proxy). */
  internal: boolean;
}

const SERVICE_UNAVAILABLE = { message: 'Service Unavailable' };

/**
 * The faults of one request: the simulator's switches overridden by its `x-sim-fault` header,
 * and every decision that follows from them. Route code asks this object; it never decides a
 * fault itself.
 *
 * @example
 * const faults = controller.forRequest('raw-status');
 * faults.settings.rawStatusVocabulary; // true
 */
export class RequestFaults {
  /** The switches of this request. */
  readonly settings: Readonly<FaultSettings>;
  /** Only the switches its header set (a proxy task keeps them for its later polls). */
  readonly overrides: Readonly<Partial<FaultSettings>>;
  readonly #header: HeaderFaults;
  readonly #state: FaultState;

  constructor(state: FaultState, settings: Readonly<FaultSettings>, header: HeaderFaults) {
    this.#state = state;
    this.#header = header;
    this.overrides = header.overrides;
    this.settings = { ...settings, ...header.overrides };
  }

  /**
   * The delay, answer and body stall that replace the route's, if any: the header's `status` and
   * `stall-body` win, then the first matching rule (consumed when counted). Calls the simulator
   * makes to itself never fail.
   */
  fire(target: FaultTarget): FiredFault | undefined {
    if (target.internal) return undefined;
    const { status, retryAfter, stallBodyMs } = this.#header;
    if (status === undefined && stallBodyMs === undefined) return this.#state.rules.match(target.area, target.method, target.path);
    const fired: FiredFault = { delayMs: 0 };
    if (status !== undefined) fired.answer = faultAnswer(status, retryAfter);
    if (stallBodyMs !== undefined) fired.stallBodyMs = stallBodyMs;
    return fired;
  }

  /**
   * Why a `/ws` upgrade must be refused, if it must: the header's `status` or a matching rule
   * (its delay is not applied), then refused sockets (503). A refused upgrade advertises
   * `Retry-After: 1` with 429 and 503, whatever the rule says.
   */
  upgradeRefusal(): FaultAnswer | undefined {
    const fired = this.fire({ area: 'cloud', method: 'GET', path: '/ws', internal: false });
    if (fired?.answer) return { ...fired.answer, retryAfter: upgradeRetryAfter(fired.answer.status) };
    if (this.#state.refusingSockets()) return { status: 503, retryAfter: 1, body: SERVICE_UNAVAILABLE };
    return undefined;
  }

  /** The fault decisions of the workflow run this request submits. */
  forRun(): RunFaults {
    const settings = this.settings.dropEndMessages || !this.#state.dropsEnd() ? this.settings : { ...this.settings, dropEndMessages: true };
    return new RunFaults(settings, () => this.#state.holdSockets());
  }

  /** The fault decisions of the proxy task this request submits. */
  forTask(): TaskFaults {
    return new TaskFaults(this);
  }
}

function upgradeRetryAfter(status: number): number | undefined {
  return status === 429 || status === 503 ? 1 : undefined;
}
