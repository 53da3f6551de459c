import type { WatchEvent } from './events.js';
import type { JobPoll } from './job-poll.js';
import { ProgressTracker } from './progress.js';
import { deliverTo, wants, type JobWatcher } from './job-watcher.js';
import type { RouteTarget, Seen, TerminalEnd } from './router.js';

/**
 * One watched job, as the hub follows it; the router delivers its messages here. Each piece of
 * state has one writer:
 * - `seen` (outputs, start seen, gap, last activity): the router, from messages;
 * - the poll state (when the next status read is due, failures, backoff): the job's own
 *   `JobPoll` loop, inside the core wait engine;
 * - the lifecycle (`watchers`, `settling`, when the loop starts and stops): the hub.
 *
 * @example
 * ```ts
 * const track = new Track(promptId, (track, end) => hub.settle(track, end));
 * track.follow(router.follow(promptId, track), poll);
 * ```
 */
export class Track implements RouteTarget {
  readonly promptId: string;
  /** The watchers of this job (written by the hub). */
  readonly watchers = new Set<JobWatcher>();
  /** The end is known and being finalised (written by the hub). */
  settling = false;
  /** The output nodes of the submitted workflow, when the watch named them (written by the hub). */
  outputNodes: ReadonlySet<string> | undefined;
  /** The job's overall progress, fed by every event of the job. */
  readonly progress: ProgressTracker;
  readonly #onEnd: (track: Track, end: TerminalEnd) => void;
  #seen: Readonly<Seen> | undefined;
  #poll: JobPoll | undefined;

  constructor(promptId: string, onEnd: (track: Track, end: TerminalEnd) => void) {
    this.promptId = promptId;
    this.progress = new ProgressTracker(promptId);
    this.#onEnd = onEnd;
  }

  /** What the messages told (set once, by `follow()`). */
  get seen(): Readonly<Seen> {
    return this.#seen as Readonly<Seen>;
  }

  /** The job's poll loop (set once, by `follow()`). */
  get poll(): JobPoll {
    return this.#poll as JobPoll;
  }

  /** Binds the router's record and the poll loop of this job. */
  follow(seen: Readonly<Seen>, poll: JobPoll): void {
    this.#seen = seen;
    this.#poll = poll;
  }

  /** One message of this job, for every watcher; then the overall progress when it changed. */
  event(event: WatchEvent): void {
    // Updated first: listeners of the message read `watcher.progress` as of that message.
    const changed = this.progress.update(event);
    for (const watcher of this.watchers) deliverTo(watcher, event);
    if (changed) this.#progressChanged();
  }

  /** The workflow's node ids are known (the first watch that names them). */
  setNodes(ids: readonly string[]): void {
    if (this.progress.setNodes(ids)) this.#progressChanged();
  }

  /** The job completed, however that was learned: its progress reaches 1. */
  completed(): void {
    if (this.progress.complete()) this.#progressChanged();
  }

  #progressChanged(): void {
    let event: WatchEvent | undefined;
    for (const watcher of this.watchers) {
      // Built only for a watcher that takes it: most listen to `progress` and never read `job_progress`.
      if (!wants(watcher, 'job_progress')) continue;
      event ??= { type: 'job_progress', data: this.progress.snapshot };
      deliverTo(watcher, event);
    }
  }

  /** The socket told the end of the run. */
  end(end: TerminalEnd): void {
    this.#onEnd(this, end);
  }
}
