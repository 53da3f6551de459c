import type { WatchEvent, Workflow } from '../../index.js';
import { RunState } from './run-state.js';

/** Where one set of a batch is. */
export type SetStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/** One set being run, as the live table shows it. */
export interface ActiveSet {
  index: number;
  promptId: string | undefined;
  /** The run's own progress (nodes done, the node running), from its events. */
  run: RunState;
  /** The share done as a queue's worker reports it (runs followed through Redis have no events). */
  fraction?: number | undefined;
  /** Set while the worker holding the set's run is gone: when another takes it over at the latest (ms since the epoch). */
  lostUntil?: number | undefined;
}

/**
 * What the live table of a batch shows: how many sets are queued, running, done, failed or
 * cancelled, the sets running now with their progress, and the time left at the pace so far.
 *
 * @example
 * ```ts
 * const state = new BatchState(100, workflow, Date.now());
 * state.start(1, Date.now());
 * state.finish(1, 'done', Date.now());
 * state.eta(Date.now()); // ms left, once a set has finished
 * ```
 */
export class BatchState {
  readonly total: number;
  readonly startedAt: number;
  /** Sets running now, in the order they started. */
  readonly active = new Map<number, ActiveSet>();
  /** True once Ctrl-C asked to cancel what the batch added. */
  cancelling = false;
  /** What the batch does before its runs start (checking the sets, adding them to the queue). */
  activity: string | undefined;
  /** The queue's name while no worker is connected to it (a batch through Redis): nothing runs. */
  noWorker: string | undefined;
  readonly #workflow: Workflow | undefined;
  readonly #counts: Record<SetStatus, number>;
  #firstStart: number | undefined;

  constructor(total: number, workflow: Workflow | undefined, startedAt: number) {
    this.total = total;
    this.startedAt = startedAt;
    this.#workflow = workflow;
    this.#counts = { queued: total, running: 0, done: 0, failed: 0, cancelled: 0 };
  }

  /** How many sets are in each status. */
  get counts(): Readonly<Record<SetStatus, number>> {
    return this.#counts;
  }

  /** Sets that have ended, however. */
  get finished(): number {
    return this.#counts.done + this.#counts.failed + this.#counts.cancelled;
  }

  /** A queued set started (preparing its uploads, or taken by a worker). */
  start(index: number, now: number): ActiveSet {
    this.#firstStart ??= now;
    this.#move('queued', 'running');
    const active: ActiveSet = { index, promptId: undefined, run: new RunState(this.#workflow, now) };
    this.active.set(index, active);
    return active;
  }

  /** The set's job was accepted. */
  submitted(index: number, promptId: string): void {
    const active = this.active.get(index);
    if (!active) return;
    active.promptId = promptId;
    active.run.submitted(promptId);
  }

  /** One event of the set's job. */
  onEvent(index: number, event: WatchEvent): void {
    this.active.get(index)?.run.onEvent(event);
  }

  /** The share of the set done, as a worker reported it. */
  progress(index: number, fraction: number): void {
    const active = this.active.get(index);
    if (active) {
      active.fraction = fraction;
      if (active.run.phase === 'pending') active.run.phase = 'running';
    }
  }

  /** The set ended, running or still queued (cancelled before it started, or seen only once it had ended). */
  finish(index: number, status: Exclude<SetStatus, 'queued' | 'running'>): void {
    const from = this.active.delete(index) ? 'running' : 'queued';
    this.#move(from, status);
  }

  /** Milliseconds left at the pace so far (sets ended per millisecond since the first start), or undefined before one ended or while no worker is connected. */
  eta(now: number): number | undefined {
    const ended = this.finished;
    if (this.noWorker !== undefined && ended < this.total) return undefined;
    if (ended === 0 || this.#firstStart === undefined) return undefined;
    const left = this.total - ended;
    if (left === 0) return 0;
    return (left * Math.max(1, now - this.#firstStart)) / ended;
  }

  #move(from: SetStatus, to: SetStatus): void {
    this.#counts[from] -= 1;
    this.#counts[to] += 1;
  }
}
