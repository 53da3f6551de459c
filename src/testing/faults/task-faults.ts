import type { FaultSettings } from '../types/public.js';

/**
 * The switches of one request, as a task reads them: the effective settings and the request's
 * own header overrides.
 *
 * @example
 * const poll: RequestSwitches = { settings: { ...NO_FAULTS }, overrides: {} };
 */
export interface RequestSwitches {
  readonly settings: Readonly<FaultSettings>;
  readonly overrides: Readonly<Partial<FaultSettings>>;
}

/**
 * The fault decisions of one proxy task, fixed at its submission: how many polls still miss it,
 * and the header switches it keeps for its later polls.
 *
 * @example
 * if (task.faults.hidesPoll()) return sendEmpty(res, 404);
 */
export class TaskFaults {
  #notFoundRemaining: number;
  readonly #overrides: Readonly<Partial<FaultSettings>>;

  constructor(submission: RequestSwitches) {
    this.#notFoundRemaining = submission.settings.taskNotFoundPolls;
    this.#overrides = submission.overrides;
  }

  /**
   * `taskNotFoundPolls`: true while a new task is not yet visible to its polling path (eventual
   * consistency); each call counts one poll.
   */
  hidesPoll(): boolean {
    if (this.#notFoundRemaining <= 0) return false;
    this.#notFoundRemaining -= 1;
    return true;
  }

  /** The switches of one answer about this task: the simulator's, then its submission's header, then this request's header. */
  settingsFor(request: RequestSwitches): Readonly<FaultSettings> {
    return { ...request.settings, ...this.#overrides, ...request.overrides };
  }
}
