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
 * the scheduler that says when each loop reads, the socket's state as its owner last set it, and
 * where a loop reports what ended it.
 *
 * @example
 * ```ts
 * const shared: PollShared = { reader, stats, limiter: new Limiter(8), scheduler: new PollScheduler(8), socketState: 'connecting', report: (loop, found) => settle(loop.promptId, found) };
 * ```
 */
export interface PollShared {
  /** Reads a job's status (`watchStatus`); each read counts in `stats.polls`. */
  reader: JobReader;
  stats: WatcherStats;
  /** Bounds the reads in flight: one slow answer holds one slot. */
  limiter: Limiter;
  scheduler: PollScheduler;
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
 * it waits in the client's `PollScheduler` (thousands of jobs may be watched at once, and most of
 * them only wait for a silence that never comes), which starts its read (`start()`) once it is due
 * and a place is free. It owns its poll state; nobody else writes it.
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
    this.#shared.scheduler.forget(this);
    this.#reading?.stop.abort(STOPPED);
  }

  /**
   * Starts the read the scheduler gave a place to (it was due); false when the loop no longer
   * reads (stopped, or reading already), and the place stays free. Calls nothing of the scheduler
   * before it returns.
   */
  start(): boolean {
    if (this.#stopped || this.#reading) return false;
    // Reported once the read has returned, as the continuation of its promise: nothing of the loop
    // is on the stack when its owner acts on what it found (and stops it).
    void this.#read().then(this.#shared.report.bind(undefined, this));
    return true;
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

  /** Reads now when a read is due and a place is free, else waits in the scheduler (or for a socket state change). */
  #plan(): void {
    if (this.#stopped || this.#reading) return;
    const now = Date.now();
    if (this.#shared.scheduler.plan(this, this.dueAt(now), now)) this.start();
  }

  /**
   * One read on the core wait engine, with its retries, until a successful reading or the end:
   * what ends the loop is returned (it stops first), `undefined` otherwise.
   */
  async #read(): Promise<PollFound | undefined> {
    const { reader, stats, limiter, scheduler } = this.#shared;
    const { promptId } = this;
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
        scheduler.done(this);
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
      scheduler.done(this);
      this.#reading = undefined;
      if (reading.stop.signal.aborted) return undefined;
      this.stop();
      return { error };
    }
    scheduler.done(this);
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
 * When each poll loop of a client reads: one timer for the loops that wait for their due time
 * (`parked`), and at most `max` reads at their first attempt, the loops due behind them waiting in
 * line (`waiting`): the engine's `Limiter` bounds each attempt, this bounds how many engines run at
 * once (a thousand jobs watched at once make a thousand reads due together, and each engine,
 * started at once, would hold its timers, controllers and promises until its turn).
 *
 * A loop tells it where it stands (`plan()`: its next due time) and learns whether it may read at
 * once; the scheduler starts the others (`start()`) when their time comes and a place is free, and
 * asks them nothing but when they are due (`dueAt()`): no call goes back into it from there. A
 * loop's due time only moves later on its own (a message of its job restarts its silence), so when
 * the timer fires each parked loop is asked again.
 *
 * @example
 * ```ts
 * const scheduler = new PollScheduler(8);
 * if (scheduler.plan(loop, loop.dueAt(Date.now()), Date.now())) loop.start(); // later: scheduler.done(loop)
 * ```
 */
export class PollScheduler {
  readonly #max: number;
  readonly #parked = new Set<JobPoll>();
  readonly #waiting = new Set<JobPoll>();
  /** The loops at their first attempt. */
  readonly #open = new Set<JobPoll>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #at = Infinity;
  /** A place was freed and is being handed on (in a microtask). */
  #handing = false;

  constructor(max: number) {
    this.#max = Math.max(1, Math.floor(max));
  }

  /**
   * Places `loop`, whose next read is `due` (`Infinity`: none until the socket state changes):
   * true when it may read now, and then holds a place until `done(loop)`.
   */
  plan(loop: JobPoll, due: number, now: number): boolean {
    if (due > now) {
      this.#waiting.delete(loop);
      if (due === Infinity) this.#unpark(loop);
      else this.#park(loop, due);
      return false;
    }
    this.#unpark(loop);
    if (this.#open.size >= this.#max) {
      this.#waiting.add(loop);
      return false;
    }
    this.#waiting.delete(loop);
    this.#open.add(loop);
    return true;
  }

  /**
   * The first attempt of `loop`'s read ended (said again, nothing changes): its place goes to the
   * loops waiting in line, in turn, each asked again whether it is still due (a message may have
   * restarted its silence: it then waits for its time, and the place passes on).
   */
  done(loop: JobPoll): void {
    if (!this.#open.delete(loop) || this.#handing) return;
    // Handed on once the read that held it has returned: the next loop's read does not start
    // inside the last one's.
    this.#handing = true;
    queueMicrotask(() => {
      this.#handing = false;
      this.#admit(Date.now());
    });
  }

  /** Forgets a loop that stopped (its read's end frees its place, if it held one). */
  forget(loop: JobPoll): void {
    this.#unpark(loop);
    this.#waiting.delete(loop);
  }

  #admit(now: number): void {
    for (const next of this.#waiting) {
      if (this.#open.size >= this.#max) return;
      this.#waiting.delete(next);
      const due = next.dueAt(now);
      if (due > now) {
        if (due < Infinity) this.#park(next, due);
        continue;
      }
      this.#open.add(next);
      if (!next.start()) this.#open.delete(next);
    }
  }

  #park(loop: JobPoll, due: number): void {
    this.#parked.add(loop);
    if (due < this.#at) this.#arm(due);
  }

  /** No timer is left once no loop waits for its time. */
  #unpark(loop: JobPoll): void {
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
    let next = Infinity;
    for (const loop of this.#parked) {
      const at = loop.dueAt(now);
      if (at > now) {
        if (at < next) next = at;
        continue;
      }
      // Due: in line for a place, behind the loops already waiting.
      this.#parked.delete(loop);
      this.#waiting.add(loop);
    }
    if (next < Infinity) this.#arm(next);
    this.#admit(now);
  }
}
