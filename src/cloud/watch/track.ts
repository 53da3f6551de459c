import type { NodeOutput } from '../model/types.js';
import type { JobPoll } from './job-poll.js';
import type { WatcherSink } from './job-watcher.js';

/**
 * What the socket's messages told about one job. The router is its only writer; everyone else
 * holds it as `Readonly<Seen>`.
 *
 * @example
 * ```ts
 * const seen: Readonly<Seen> = router.follow(promptId, target);
 * if (seen.sawStart && !seen.gap) console.log('whole run seen so far');
 * ```
 */
export interface Seen {
  /** Outputs of `executed` messages by node id (a prototype-free map). */
  readonly outputs: Record<string, NodeOutput>;
  /** `execution_start` was seen. */
  sawStart: boolean;
  /** The router's epoch when it was seen (a run seen across two epochs has a gap). */
  startEpoch: number;
  /** Messages of this job may have been missed (a disconnect, the hold bound, a late watch). */
  gap: boolean;
  /** When the last message of this job arrived (`Date.now()`). */
  lastActivity: number;
}

/**
 * One watched job, as the hub follows it. Each piece of state has one writer:
 * - `seen` (outputs, start seen, gap, last activity): the router, from messages;
 * - the poll state (when the next status read is due, failures, backoff): the job's own
 *   `JobPoll` loop, inside the core wait engine;
 * - the lifecycle (`sinks`, `settling`, when the loop starts and stops): the hub.
 *
 * @example
 * ```ts
 * const track = new Track(promptId, router.follow(promptId, target), poll);
 * track.sinks.add(sink);
 * ```
 */
export class Track {
  readonly promptId: string;
  readonly seen: Readonly<Seen>;
  readonly poll: JobPoll;
  /** The watchers of this job (written by the hub). */
  readonly sinks = new Set<WatcherSink>();
  /** The end is known and being finalised (written by the hub). */
  settling = false;

  constructor(promptId: string, seen: Readonly<Seen>, poll: JobPoll) {
    this.promptId = promptId;
    this.seen = seen;
    this.poll = poll;
  }
}
