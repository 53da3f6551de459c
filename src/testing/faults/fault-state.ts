import { FailureRules } from './rules.js';

/**
 * The simulator's fault state that outlives a request: the failure rules, the rules of
 * `dropEndMessages()`, and the refusal of socket upgrades. The faults of each request read it.
 *
 * @example
 * const state = new FaultState(seededRandom(1));
 * state.refuseSockets(200);
 * state.refusingSockets(); // true
 */
export class FaultState {
  /** The rules of `failRequests()`. */
  readonly rules: FailureRules;
  /** Counted rules of `dropEndMessages()`: each run submitted asks them once. */
  readonly endDrops: FailureRules;
  #refuseUntil = 0;
  #socketHolds = 0;

  constructor(random: () => number) {
    this.rules = new FailureRules(random);
    this.endDrops = new FailureRules(random);
  }

  /** True while socket upgrades must be refused (`refuseSockets`, `dropSockets({refuseMs})`, a run's `dropSocketsMidRun`). */
  refusingSockets(): boolean {
    return this.#socketHolds > 0 || performance.now() < this.#refuseUntil;
  }

  /** Refuses socket upgrades until the returned function is called. */
  holdSockets(): () => void {
    this.#socketHolds += 1;
    let released = false;
    return () => {
      if (!released) this.#socketHolds -= 1;
      released = true;
    };
  }

  /** True when the run being submitted must lose its end messages (a `dropEndMessages()` rule took it). */
  dropsEnd(): boolean {
    return this.endDrops.match('cloud', 'POST', '/api/prompt') !== undefined;
  }

  /** Refuses socket upgrades for `ms` milliseconds (at least). */
  refuseSockets(ms: number): void {
    this.#refuseUntil = Math.max(this.#refuseUntil, performance.now() + ms);
  }

  /** Removes every rule and lifts the timed refusal of sockets (a run holding them keeps its hold). */
  clear(): void {
    this.rules.clear();
    this.endDrops.clear();
    this.#refuseUntil = 0;
  }
}
