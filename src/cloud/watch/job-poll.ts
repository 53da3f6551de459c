import { backoffDelay, poll, setTimer, STOPPED, Waker, type Limiter, type PollReading } from '../../core/index.js';
import type { PollPolicy } from '../shared/defaults.js';
import type { Absence, JobReader } from '../shared/job-reader.js';
import type { JobStatusInfo } from '../shared/types.js';
import type { WatcherStats } from './events.js';
import type { Seen } from './router.js';

/**
 * What a poll loop found that ends it: the job's end (a terminal status), or a failure of its
 * read (the wait engine's retries spent, or not retryable).
 *
 * @example
 * ```ts
 * const found: PollFound = { status: await reader.watchStatus(promptId) };
 * ```
 */
export type PollFound = { status: JobStatusInfo } | { error: unknown };

/**
 * What the poll loops of one client share: its job reader, counters, the bound on reads in flight,
 * the one timer of the loops that wait, the socket's state as its owner last set it, and where a
 * loop reports what ended it.
 *
 * @example
 * ```ts
 * const shared: PollShared = { reader, stats, limiter: new Limiter(8), gate: new ReadGate(8), schedule: new PollSchedule(), socketState: 'connecting', report: (loop, found) => settle(loop.promptId, found) };
 * ```
 */
export interface PollShared {
  /** Reads a job's status (`watchStatus`); each read counts in `stats.polls`. */
  reader: JobReader;
  stats: WatcherStats;
  /** Bounds the reads in flight: one slow answer holds one slot. */
  limiter: Limiter;
  schedule: PollSchedule;
  gate: ReadGate;
  /**
   * The client's socket state (written by the socket's owner, read by the loops): open, a read
   * after a silence; down, reads on a backoff; connecting or idle, no read yet.
   */
  socketState: 'idle' | 'connecting' | 'open' | 'down';
  /**
   * Told after each read what it found that ends the loop (`undefined`: nothing, the loop goes on),
   * once the read has returned: a loop that found its end has stopped by then, and nothing of it is
   * on the stack.
   */
  report(loop: JobPoll, found: PollFound | undefined): void;
}


/**
 * The fallback polling of one job. It reads the job's status after `silenceMs` without a message
 * while the socket is open, on a growing backoff while the socket is down or an end is to be
 * confirmed, at once when asked (a reconnect, an outage, a cancel, an end to confirm). A read
 * runs on the core wait engine (`poll()`), which
 * retries a transient failure on its backoff, never before a server's `Retry-After`; any other
 * failure ends the loop. What ends the loop (the job's end, or that failure) is reported to
 * `shared.report` once its read has returned; the loop reads nothing of its owner but what the
 * job's messages told (`seen`, the router's) and the socket state it was given. Between reads the loop holds no timer, promise or controller of its own:
 * it waits in the client's `PollSchedule` (thousands of jobs may be watched at once, and most of
 * them only wait for a silence that never comes). It owns its poll state; nobody else writes it.
 *
 * @example
 * ```ts
 * const loop = new JobPoll(shared, policy, promptId, router.follow(promptId));
 * loop.replan();
 * socket.on('reconnect', () => loop.readNow());
 * ```
 */
export class JobPoll {
  /** The job it reads. */
  readonly promptId: string;
  readonly #shared: PollShared;
  readonly #policy: PollPolicy;
  /** What the job's messages told (its last activity restarts the silence). */
  readonly #seen: Readonly<Seen>;
  /** When the watch began: a `404` before the first successful read is lag until `notFoundGraceMs` after it. */
  readonly #startedAt = Date.now();
  /** The reads in a row that found the job nowhere (`JobReader.watchStatus`). */
  #absence: Absence | undefined;
  /** A read is wanted as soon as the socket state allows one. */
  #wanted = false;
  /** A read is wanted now, whatever the socket state. */
  #urgent = false;
  /** Successful reads, and when the last one ended. */
  #reads = 0;
  #lastReadAt = this.#startedAt;
  /** The run is over and its end unknown: read on the backoff, not after a silence, until the record tells it. */
  #confirming = false;
  /** Successful reads when the backoff began (the socket was first seen down, or an end is confirmed). */
  #backoffSince: number | undefined;
  /** The delay drawn for the current reading (its jitter is drawn once). */
  #drawn: { reads: number; step: number; delay: number } | undefined;
  /** The read under way (the engine's retries included), until its first successful reading. */
  #reading: { stop: AbortController; waker: Waker } | undefined;
  #stopped = false;

  constructor(shared: PollShared, policy: PollPolicy, promptId: string, seen: Readonly<Seen>) {
    this.promptId = promptId;
    this.#shared = shared;
    this.#policy = policy;
    this.#seen = seen;
  }

  /** Reads as soon as the socket state allows (a job watched without its submission, after a gap). */
  readWhenReady(): void {
    this.#wanted = true;
    this.replan();
  }

  /** Reads now (the socket reconnected or went down: messages may be lost; an end to confirm). */
  readNow(): void {
    this.#wanted = true;
    this.#urgent = true;
    if (this.#reading) this.#reading.waker.wake(true);
    else this.#plan();
  }

  /**
   * Reads now, and again on the backoff while the job is not terminal: the socket closed the run
   * (`executing {node: null}`) without telling how it ended, and the record may lag behind it.
   */
  confirm(): void {
    this.#confirming = true;
    this.readNow();
  }

  /**
   * Plans the loop's next read: its first (the loop then reports a terminal status or a failure,
   * once), or again (the socket state changed).
   */
  replan(): void {
    if (this.#reading) this.#reading.waker.wake();
    else this.#plan();
  }

  /** Stops the loop and aborts its read in flight. */
  stop(): void {
    this.#stopped = true;
    this.#shared.schedule.remove(this);
    this.#shared.gate.forget(this);
    this.#reading?.stop.abort(STOPPED);
  }

  /** When the next read is due (`Date.now()` time; `Infinity` while the socket is connecting). */
  dueAt(now: number): number {
    if (this.#urgent) return now;
    // While the socket connects, no read yet; open, a read after a silence; down, reads on a backoff.
    const state = this.#shared.socketState;
    if (state !== 'open' && state !== 'down') return Infinity;
    if (this.#wanted) return now;
    const policy = this.#policy;
    if (state === 'open' && !this.#confirming) {
      this.#backoffSince = undefined;
      return Math.max(this.#seen.lastActivity, this.#lastReadAt) + policy.silenceMs;
    }
    this.#backoffSince ??= this.#reads;
    const step = this.#reads - this.#backoffSince + 1;
    if (this.#drawn?.reads !== this.#reads || this.#drawn.step !== step) {
      this.#drawn = { reads: this.#reads, step, delay: backoffDelay(step, policy) };
    }
    return this.#lastReadAt + this.#drawn.delay;
  }

  /** Reads now when a read is due, else waits in the schedule (or for a socket state change). */
  #plan(): void {
    if (this.#stopped || this.#reading) return;
    const now = Date.now();
    const due = this.dueAt(now);
    if (due === Infinity) this.#shared.schedule.remove(this);
    else if (due > now) this.#shared.schedule.park(this, due);
    // Reported once the read has returned, as the continuation of its promise: nothing of the loop
    // is on the stack when its owner acts on what it found (and stops it).
    else if (this.#shared.gate.enter(this)) void this.#read().then(this.#shared.report.bind(undefined, this));
  }

  /**
   * One read on the core wait engine, with its retries, until a successful reading or the end:
   * what ends the loop is returned (it stops first), `undefined` otherwise.
   */
  async #read(): Promise<PollFound | undefined> {
    const { reader, stats, limiter, schedule, gate } = this.#shared;
    const { promptId } = this;
    schedule.remove(this);
    this.#urgent = false;
    const reading = { stop: new AbortController(), waker: new Waker() };
    this.#reading = reading;
    const absence = (this.#absence ??= { reads: 0 });
    const read = async (signal: AbortSignal): Promise<PollReading<JobStatusInfo>> => {
      this.#wanted = false;
      stats.polls++;
      try {
        const status = await reader.watchStatus(promptId, { signal, retry: false }, absence);
        return { value: status, terminal: status.terminal };
      } finally {
        gate.leave(this);
      }
    };
    const grace = this.#reads === 0 ? Math.max(0, this.#policy.notFoundGraceMs - (Date.now() - this.#startedAt)) : 0;
    let found: PollReading<JobStatusInfo> | undefined;
    try {
      const readings = poll({ describe: `job ${promptId}`, read, backoff: this.#policy, signal: reading.stop.signal, notFoundGraceMs: grace, limiter, waker: reading.waker });
      for await (const each of readings) {
        found = each;
        break;
      }
    } catch (error) {
      gate.leave(this);
      this.#reading = undefined;
      if (reading.stop.signal.aborted) return undefined;
      this.stop();
      return { error };
    }
    gate.leave(this);
    this.#reading = undefined;
    if (this.#stopped || !found) return undefined;
    this.#reads++;
    this.#lastReadAt = Date.now();
    if (!found.terminal) return void this.#plan();
    this.stop();
    return { status: found.value };
  }
}

/**
 * The one timer of a client's waiting poll loops: each parked loop says when its next read is
 * due, and the timer fires at the earliest. A loop's due time only moves later on its own (a
 * message of its job restarts its silence), so on firing the schedule asks each loop again and
 * starts those that are due; anything else that changes a loop's plan goes through the loop.
 *
 * @example
 * ```ts
 * const schedule = new PollSchedule();
 * schedule.park(loop, Date.now() + 20_000);
 * schedule.remove(loop);
 * ```
 */
export class PollSchedule {
  readonly #parked = new Set<JobPoll>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #at = Infinity;

  /** Waits `loop` until `due` (or until it is asked again, when the timer fires). */
  park(loop: JobPoll, due: number): void {
    this.#parked.add(loop);
    if (due < this.#at) this.#arm(due);
  }

  /** Forgets `loop` (it reads, stopped, or waits for the socket); no timer is left once none waits. */
  remove(loop: JobPoll): void {
    if (!this.#parked.delete(loop) || this.#parked.size > 0) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Infinity;
  }

  #arm(due: number): void {
    clearTimeout(this.#timer);
    this.#at = due;
    this.#timer = setTimer(() => this.#fire(), due - Date.now());
  }

  #fire(): void {
    this.#timer = undefined;
    this.#at = Infinity;
    const now = Date.now();
    const due: JobPoll[] = [];
    let next = Infinity;
    for (const loop of this.#parked) {
      const at = loop.dueAt(now);
      if (at <= now) due.push(loop);
      else if (at < next) next = at;
    }
    if (next < Infinity) this.#arm(next);
    for (const loop of due) loop.replan();
  }
}

/**
 * Starts the reads that are due a few at a time: a job whose read is due waits here, as one entry,
 * until fewer than `max` reads are at their first attempt (the engine's `Limiter` bounds each
 * attempt; this bounds how many engines run at once). A thousand jobs watched at once make a
 * thousand reads due together: each engine, started at once, would hold its timers, controllers
 * and promises until its turn.
 *
 * @example
 * ```ts
 * const gate = new ReadGate(8);
 * if (gate.enter(loop)) startRead(); // later, after its first attempt: gate.leave(loop)
 * ```
 */
export class ReadGate {
  readonly #max: number;
  readonly #waiting = new Set<JobPoll>();
  /** The loops at their first attempt. */
  readonly #open = new Set<JobPoll>();

  constructor(max: number) {
    this.#max = Math.max(1, Math.floor(max));
  }

  /** True when `loop` may start its read now; otherwise it is asked again (`replan()`) in turn. */
  enter(loop: JobPoll): boolean {
    if (this.#open.size >= this.#max) {
      this.#waiting.add(loop);
      return false;
    }
    this.#waiting.delete(loop);
    this.#open.add(loop);
    return true;
  }

  /**
   * The first attempt of `loop`'s read ended (said again, nothing changes): the loops waiting
   * are asked again in turn until one takes the free place. A loop asked may no longer need its read (a message restarted its silence) and
   * go back to the schedule; the place then passes on, or a loop due behind it would wait for a
   * read nobody starts.
   */
  leave(loop: JobPoll): void {
    if (!this.#open.delete(loop)) return;
    for (const next of this.#waiting) {
      if (this.#open.size >= this.#max) return;
      this.#waiting.delete(next);
      next.replan();
    }
  }

  /** Forgets a loop that stopped. */
  forget(loop: JobPoll): void {
    this.#waiting.delete(loop);
  }
}
