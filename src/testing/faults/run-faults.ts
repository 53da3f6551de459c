import type { FaultSettings } from '../types/public.js';

const END_MESSAGES: ReadonlySet<string> = new Set(['executed', 'execution_success', 'execution_error', 'execution_interrupted']);

/**
 * The fault decisions of one workflow run, fixed by the switches of its submission. The runner
 * asks them at the points where a real deployment misbehaves; see docs/simulator.md#faults.
 *
 * @example
 * if (job.faults.dropSocketsNow()) hub.drop(audience);
 */
export class RunFaults {
  readonly #settings: Readonly<FaultSettings>;
  readonly #holdSockets: () => () => void;
  #release: (() => void) | undefined;

  /** `holdSockets` refuses socket upgrades until the function it returns is called. */
  constructor(settings: Readonly<FaultSettings>, holdSockets: () => () => void) {
    this.#settings = settings;
    this.#holdSockets = holdSockets;
  }

  /** `finishBeforeResponse`: the whole run, every message included, happens before the submission is answered, without pauses. */
  get beforeResponse(): boolean {
    return this.#settings.finishBeforeResponse;
  }

  /** `garbageFrames`: garbage frames follow the run's `execution_start`. */
  get garbageFrames(): boolean {
    return this.#settings.garbageFrames;
  }

  /** `cachedWithoutExecuted`: a cached output node sends no `executed`; the job record still holds its output. */
  get cachedWithoutExecuted(): boolean {
    return this.#settings.cachedWithoutExecuted;
  }

  /**
   * `dropEndMessages`: true for the messages of the run that tell how it ended and what it made
   * (`executed` and the three end messages); they are recorded, not sent.
   */
  dropsMessage(type: string): boolean {
    return this.#settings.dropEndMessages && END_MESSAGES.has(type);
  }

  /**
   * `dropSocketsMidRun`, asked after each executed node: true the first time, when the run's
   * sockets must be dropped; from then on upgrades are refused until {@link RunFaults.end}, so
   * everything sent meanwhile is lost (the runtime has no replay).
   */
  dropSocketsNow(): boolean {
    if (!this.#settings.dropSocketsMidRun || this.#release) return false;
    this.#release = this.#holdSockets();
    return true;
  }

  /** The run ended: upgrades refused because of it are accepted again. */
  end(): void {
    this.#release?.();
  }
}
