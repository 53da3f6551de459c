import { AuthenticationError, Limiter, onAbort, setTimer, sleep, withSubmitted, type Backoff, type HttpClient } from '../../core/index.js';
import { defined, type PollPolicy, type WatcherPolicy } from '../shared/defaults.js';
import { initOf, WatcherClosedError } from '../shared/errors.js';
import type { JobReader } from '../shared/job-reader.js';
import type { RelayTokens } from '../shared/wire.js';
import { wireMap } from '../shared/outputs.js';
import type { JobErrorInfo, JobResult } from '../shared/types.js';
import type { WatchEvent, WatcherStats } from './events.js';
import { JobPoll, PollScheduler, type PollFound, type PollShared } from './job-poll.js';
import { JobWatcher, type WatchSettings } from './job-watcher.js';
import { runCost } from './price-text.js';
import { ProgressTracker } from './progress.js';
import { JobRouter, type Routed, type Seen, type TerminalEnd } from './router.js';
import { ReconnectingSocket, socketUrl, type SocketDown, type WebSocketConstructor } from './socket.js';

/**
 * What a `WatchHub` needs from its client.
 *
 * @example
 * ```ts
 * new WatchHub({ http, clientId, WebSocket: undefined, reader, policy: resolvePolicy(), creditsPerUsd: 211 });
 * ```
 */
export interface WatchHubOptions {
  /** The client's transport: its credential (the socket's `token`) and its `closed` signal. */
  http: HttpClient;
  clientId: string;
  /** The socket constructor; the runtime's global one when `undefined`, polling only without either. */
  WebSocket: WebSocketConstructor | undefined;
  reader: JobReader;
  policy: WatcherPolicy;
  /** Tokens of jobs submitted through a relay: each watched one is subscribed on the socket. */
  tokens?: RelayTokens | undefined;
  /** Credits per USD: a result's `cost.usd` is its credits divided by it. */
  creditsPerUsd: number;
}

/**
 * Reads of the job record for the outputs of cached nodes, and the pause between them: a local
 * runtime writes its history just after `execution_success` (docs/wire-protocol.md).
 */
const RECORD_READS = 3;
const RECORD_PAUSE_MS = 250;

/**
 * How a job ended, as the hub settles it.
 *
 * @example
 * ```ts
 * const end: End = { status: 'cancelled', error: { message: 'Execution was interrupted' }, via: 'socket', outputsComplete: false };
 * ```
 */
export type End = Pick<JobResult, 'status' | 'error' | 'via' | 'outputsComplete'>;

type State = PollShared['socketState'];

/**
 * One watched job, as the hub keeps it: a plain record the hub alone writes, apart from the two
 * parts with an owner of their own, which the hub only reads or asks:
 * - `seen`, what the job's messages told: the router's record, written as it routes them;
 * - `poll`, the job's fallback poll loop: its state is its own (when the next read is due,
 *   failures, backoff); the hub starts, asks and stops it, and the loop reports what ended it.
 */
interface Job {
  readonly promptId: string;
  /** Set once, as the job is followed. */
  seen: Readonly<Seen>;
  /** Set once, as the job is followed. */
  poll: JobPoll;
  /** How far along the job is, fed with every event of the job; every watcher reads it. */
  readonly progress: ProgressTracker;
  /** Replaced, never changed in place: a watcher that settles while an event is dispatched does not shift the others. */
  watchers: readonly JobWatcher[];
  /** The end is known and being finalised: no more messages, no more reads. */
  settling: boolean;
  /** The output nodes of the submitted workflow, when the watch named them. */
  outputNodes: ReadonlySet<string> | undefined;
  /** Given to the job's watchers: one that settles on its own (deadline, abort, close) leaves the job. */
  readonly leave: (watcher: JobWatcher) => void;
}

/**
 * The one shared socket of a `CloudClient` and everything attached to it: the router, one poll
 * loop per watched job (on the core wait engine, sharing one `Limiter`), the watchers. It owns the
 * socket's lifecycle: opened lazily, reconnected, `ready()` for a submission, kept open while a
 * job is watched or a submission is pending (`retain()`), polled for while down, and closed after
 * `idleCloseMs` once neither is left. Closes for good with the client's transport.
 *
 * It owns each watched job's record (`Job`) and is the one place that acts on it: the router
 * returns what a frame means and the hub applies it; a poll loop reports what ended it once its
 * read has returned; a watcher is told its job's events and end, and tells the hub only when it
 * settles on its own. Nothing it calls calls back into it while that call is under way.
 *
 * @example
 * ```ts
 * const hub = new WatchHub({ http, clientId, WebSocket: undefined, reader, policy, creditsPerUsd: 211 });
 * const epoch = await hub.ready();
 * const watcher = hub.watch(promptId, {}, epoch);
 * ```
 */
export class WatchHub {
  readonly stats: WatcherStats = { received: 0, ignored: 0, held: 0, dropped: 0, heldBytes: 0, connections: 0, polls: 0, unattributedPrices: 0 };
  readonly #options: WatchHubOptions;
  /** Where the socket's frames go; it keeps the epoch the hub moves. */
  readonly #router: JobRouter<Job>;
  readonly #polls: PollShared;
  readonly #jobs = new Map<string, Job>();
  /** Callers of `ready()` waiting for the socket: each is told once, then forgets its abort listener. */
  readonly #waiters = new Set<(outcome: { epoch: number } | { error: unknown }) => void>();
  #socket: ReconnectingSocket | undefined;
  #redactedUrl = '';
  /** Submissions in flight (`retain()`): each keeps the socket open until released, once. */
  readonly #leases = new Set<symbol>();
  #idle: ReturnType<typeof setTimeout> | undefined;

  constructor(options: WatchHubOptions) {
    this.#options = options;
    this.#router = new JobRouter({ hold: options.policy.hold, stats: this.stats });
    const { concurrency } = options.policy.poll;
    const report = (loop: JobPoll, found: PollFound | undefined) => this.#polled(loop, found);
    this.#polls = { reader: options.reader, stats: this.stats, limiter: new Limiter(concurrency), scheduler: new PollScheduler(concurrency), socketState: 'idle', report };
    options.http.closed.addEventListener('abort', () => this.#close(), { once: true });
  }

  /**
   * Watches a prompt. `since` is the epoch `ready()` returned before the submission: a
   * disconnect since then means messages may have been missed, so the job is read at once.
   * Without it (a job submitted elsewhere) the job is read once the socket is up.
   *
   * @throws {@link ClientClosedError} once the client is closed.
   */
  watch(promptId: string, options: WatchSettings, since?: number): JobWatcher {
    this.#options.http.throwIfClosed();
    this.#ensure();
    const job = this.#jobs.get(promptId) ?? this.#follow(promptId, options.poll);
    if (options.outputNodes) job.outputNodes ??= new Set(options.outputNodes);
    const watcher = JobWatcher.open(promptId, options, options.waitTimeout ?? this.#options.policy.waitTimeout, job.progress, job.leave);
    job.watchers = [...job.watchers, watcher];
    if (options.nodes && job.progress.setNodes(options.nodes)) this.#progressChanged(job);
    if (since === undefined || since !== this.#router.epoch || this.state !== 'open') {
      if (since !== undefined) this.#router.markGap(promptId);
      job.poll.readWhenReady();
    }
    // Held messages go out after the caller attached its listeners (same tick, before any frame).
    queueMicrotask(() => {
      for (const routed of this.#router.drain(promptId)) this.#apply(routed);
    });
    return watcher;
  }

  /**
   * Reads a watched job's status now: this client cancelled it (`cloud.jobs.cancel()`), and the
   * socket may miss its end. A cancel never settles a watch: the job's own end does.
   */
  readNow(promptId: string): void {
    this.#jobs.get(promptId)?.poll.readNow();
  }

  /** Applies what a frame means (`Routed`): the event to the job's watchers (every job's, without a job), then its end. */
  #apply(routed: Routed<Job> | undefined): void {
    if (!routed) return;
    const { job } = routed;
    if (job === undefined) {
      for (const each of [...this.#jobs.values()]) this.#event(each, routed.event);
      return;
    }
    if (job.settling) return;
    this.#event(job, routed.event);
    if (routed.end) this.#ended(job, routed.end);
  }

  /** One event of the job, for every watcher; then the overall progress when it changed. */
  #event(job: Job, event: WatchEvent): void {
    // Updated first: listeners of the message read `watcher.progress` as of that message.
    const changed = job.progress.update(event);
    for (const watcher of job.watchers) watcher.deliver(event);
    if (changed) this.#progressChanged(job);
  }

  /** The job's overall progress changed: a `job_progress` event for the watchers that take it. */
  #progressChanged(job: Job): void {
    let event: WatchEvent | undefined;
    for (const watcher of job.watchers) {
      // Built only for a watcher that takes it: most listen to `progress` and never read `job_progress`.
      if (!watcher.wants('job_progress')) continue;
      event ??= { type: 'job_progress', data: job.progress.progress };
      watcher.deliver(event);
    }
  }

  /** The socket told the end of the run. */
  #ended(job: Job, end: TerminalEnd): void {
    // The run is over, but how it ended is the record's to say (its end message was missed).
    if (end.verify) return job.poll.confirm();
    const completed = end.status === 'completed';
    // Some servers send no `executed` for cached output nodes: their outputs are only in the record.
    const unsent = completed && end.wholeRun ? unsentOutputs(job) : [];
    // Without the workflow's output nodes, which cached nodes have outputs is the record's to say.
    const required = unsent.length === 0 ? undefined : job.outputNodes ? unsent : [];
    const fetch = (completed && !end.wholeRun) || unsent.length > 0;
    void this.#finish(job, { status: end.status, error: end.error, via: 'socket', outputsComplete: end.wholeRun }, fetch, required);
  }

  /** A poll loop found what ends it: the job's end, or a failure of its read. */
  #polled(loop: JobPoll, found: PollFound | undefined): void {
    if (!found) return;
    const job = this.#jobs.get(loop.promptId);
    if (!job || job.poll !== loop) return;
    if ('error' in found) {
      const { error } = found;
      if (!(error instanceof AuthenticationError)) return this.#fail(job, () => error);
      // The key was refused: every job of this client fails, each naming its own job.
      return this.#failAll((each) => (each === job ? error : new AuthenticationError(initOf(error))));
    }
    const info = found.status;
    const status = info.status === 'completed' ? 'completed' : info.status === 'cancelled' ? 'cancelled' : 'failed';
    const error: JobErrorInfo | undefined = status === 'completed' ? undefined : { message: info.errorMessage ?? `Job ${status} (server status ${info.raw})` };
    // Fetch outputs whatever the end: a failed run keeps the outputs of the nodes that did run.
    void this.#finish(job, { status, error, via: 'poll', outputsComplete: false }, true);
  }

  /** A watcher settled on its own: it no longer follows the job; the job goes with its last watcher. */
  #leave(job: Job, watcher: JobWatcher): void {
    job.watchers = job.watchers.filter((each) => each !== watcher);
    if (job.watchers.length === 0 && !job.settling) this.#retire(job);
    this.#maybeIdle();
  }

  /**
   * Settles every watcher of the job with the end it learned. With `fetch`, the outputs come from
   * the job record. With `required` (nodes the record must hold, maybe none), it is read again a
   * few times while it lacks them or answers nothing.
   */
  async #finish(job: Job, end: End, fetch: boolean, required?: readonly string[]): Promise<void> {
    if (job.settling) return;
    this.#retire(job);
    let outputs = wireMap(job.seen.outputs);
    let outputsComplete = end.outputsComplete;
    if (fetch) {
      const signal = this.#options.http.closed;
      try {
        for (let read = 1; ; read++) {
          const fetched = await this.#options.reader.outputs(job.promptId, { signal });
          // The server's record is authoritative; outputs seen on the socket fill in what it lacks.
          outputs = wireMap(job.seen.outputs, fetched.outputs);
          outputsComplete = fetched.complete && (required ?? []).every((id) => Object.hasOwn(outputs, id));
          if (outputsComplete || required === undefined || read >= RECORD_READS) break;
          await sleep(RECORD_PAUSE_MS, signal);
        }
      } catch {
        outputsComplete = false;
      }
    }
    if (end.status === 'completed' && job.progress.complete()) this.#progressChanged(job);
    // Read only when a node was priced: a run of free nodes runs no price code.
    const cost = job.seen.spent && runCost(job.seen.spent, this.#options.creditsPerUsd);
    const result: Omit<JobResult, 'nodeErrors'> = { promptId: job.promptId, ...end, outputs, outputsComplete, cost };
    // The job ended as it did (`status`), whatever the cancel answered; the result says it was asked.
    if (this.#options.reader.cancelRequested(job.promptId)) result.cancelRequested = true;
    for (const watcher of job.watchers) watcher.finish(result);
    this.#maybeIdle();
  }

  /** Fails every watcher of the job with `error()`, naming the job, unless it is settling already. */
  #fail(job: Job, error: () => unknown): void {
    if (job.settling) return;
    this.#retire(job);
    for (const watcher of job.watchers) watcher.fail(withSubmitted(error(), { kind: 'job', promptId: job.promptId }));
    this.#maybeIdle();
  }

  /** Fails every watched job, each with its own error. */
  #failAll(error: (job: Job) => unknown): void {
    for (const job of [...this.#jobs.values()]) this.#fail(job, () => error(job));
  }

  /** The end is known, or nobody watches any more: no more messages, no more reads. */
  #retire(job: Job): void {
    job.settling = true;
    job.poll.stop();
    this.#router.unfollow(job.promptId);
    if (this.#jobs.get(job.promptId) === job) this.#jobs.delete(job.promptId);
  }

  /** The socket state: `open`, `down` (polling while reconnecting), `connecting` or `idle`. */
  get state(): State {
    return this.#state;
  }

  // Kept in the poll loops' shared context, its one place: they plan their reads by it.
  get #state(): State {
    return this.#polls.socketState;
  }

  set #state(state: State) {
    this.#polls.socketState = state;
  }

  /**
   * Opens the socket if needed and resolves once it is open, or has failed (jobs are then
   * polled), with the router's epoch. Rejects when the server refused the credential, or with
   * the `ClientClosedError` once the client is closed.
   */
  ready(signal?: AbortSignal): Promise<number> {
    const closed = this.#options.http.closed;
    if (closed.aborted) return Promise.reject(closed.reason);
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#ensure();
    if (this.#state === 'open' || this.#state === 'down') return Promise.resolve(this.#router.epoch);
    return new Promise<number>((resolve, reject) => {
      const waiter = (outcome: { epoch: number } | { error: unknown }) => {
        this.#waiters.delete(waiter);
        forget();
        if ('epoch' in outcome) resolve(outcome.epoch);
        else reject(outcome.error);
      };
      const forget = onAbort(signal, () => {
        waiter({ error: signal?.reason });
        this.#maybeIdle();
      });
      this.#waiters.add(waiter);
    });
  }

  /** Keeps the socket open (a submission is in flight); call the returned function when done. */
  retain(): () => void {
    const lease = Symbol('lease');
    this.#leases.add(lease);
    this.#cancelIdle();
    return () => {
      if (this.#leases.delete(lease)) this.#maybeIdle();
    };
  }

  /** Closes the socket after `idleCloseMs` once no job is watched and nothing waits for it. */
  #maybeIdle(): void {
    if (this.#idle || this.#state === 'idle' || this.#jobs.size > 0 || this.#leases.size > 0 || this.#waiters.size > 0) return;
    // A delay nobody awaits, cancelled by the next watch: a timer (no promise to settle).
    this.#idle = setTimer(() => {
      this.#idle = undefined;
      this.#shutdown();
    }, this.#options.policy.socket.idleCloseMs);
  }

  /** Opens the socket unless it is open, opening or polled for; cancels a pending idle close. */
  #ensure(): void {
    this.#cancelIdle();
    // Only an idle hub has no socket: `idle` is set where the socket goes, `connecting` where it comes.
    if (this.#state !== 'idle' || this.#options.http.closed.aborted) return;
    const WebSocket = this.#options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    // No WebSocket in this runtime: poll only.
    if (!WebSocket) return this.#setState('down');
    this.#state = 'connecting';
    const { http, clientId, policy } = this.#options;
    this.#socket = new ReconnectingSocket({
      url: async () => {
        const token = await http.credential();
        const built = socketUrl(http.baseUrl, clientId, token);
        this.#redactedUrl = built.redacted;
        return built.url;
      },
      WebSocket,
      policy: policy.socket,
      handlers: {
        onOpen: () => this.#onOpen(),
        // Every secret the client was given (the key in the socket URL, a partner key a submission
        // carried) is scrubbed from the frames, should the server echo one (a traceback, `extra_data`).
        onText: (text) => this.#apply(this.#router.handleText(http.scrub(text))),
        onBinary: (bytes) => this.#apply(this.#router.handleBinary(bytes, (text) => http.scrub(text))),
        onDown: () => this.#onDown(),
        onRefused: (down) => this.#onRefused(down),
      },
    });
    this.#socket.start();
  }

  /** The socket is open, or down (jobs are polled): the callers of `ready()` go on. */
  #setState(state: 'open' | 'down'): void {
    this.#state = state;
    for (const waiter of [...this.#waiters]) waiter({ epoch: this.#router.epoch });
  }

  #onOpen(): void {
    const reconnected = this.#state === 'down';
    this.#setState('open');
    this.stats.connections++;
    for (const job of this.#jobs.values()) {
      // A relay forgets a browser's subscriptions with its socket: ask again on every connection.
      this.#subscribe(job.promptId);
      // A completion sent while the socket was down is lost (no replay): read every job's state.
      if (reconnected || job.seen.gap) job.poll.readNow();
      else job.poll.replan();
    }
  }

  #onDown(): void {
    // Failed reconnect attempts while already down keep the poll schedule (and its backoff).
    if (this.#state === 'down') return;
    if (this.#state === 'open') this.#router.disconnected();
    this.#setState('down');
    for (const job of this.#jobs.values()) job.poll.readNow();
  }

  #onRefused(down: SocketDown): void {
    const reason = this.#options.http.scrub(down.reason);
    const url = this.#redactedUrl;
    const message = `The WebSocket refused the credential (close code ${down.code}${reason ? `: ${reason}` : ''})`;
    const refused = () => new AuthenticationError({ status: 401, method: 'GET', url, body: { message } });
    this.#socket = undefined;
    this.#state = 'idle';
    for (const waiter of [...this.#waiters]) waiter({ error: refused() });
    this.#failAll(refused);
  }

  #cancelIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  #shutdown(): void {
    if (this.#socket) {
      this.#socket.stop();
      this.#socket = undefined;
      // Messages sent while closed are lost: runs that straddle this are not "whole".
      this.#router.disconnected();
    }
    this.#state = 'idle';
  }

  #follow(promptId: string, backoff: Partial<Backoff> | undefined): Job {
    // Shared by every job watched without a backoff of its own.
    const policy: PollPolicy = backoff ? { ...this.#options.policy.poll, ...defined(backoff) } : this.#options.policy.poll;
    const job = { promptId, progress: new ProgressTracker(promptId), watchers: [], settling: false, outputNodes: undefined, leave: (watcher) => this.#leave(job, watcher) } as Omit<Job, 'seen' | 'poll'> as Job;
    // The router routes the job's messages with the record itself (no second lookup per message).
    job.seen = this.#router.follow(promptId, job);
    job.poll = new JobPoll(this.#polls, policy, promptId, job.seen);
    this.#jobs.set(promptId, job);
    job.poll.replan(); // the loop's first plan
    this.#subscribe(promptId);
    return job;
  }

  /** A relay passes a job's messages once asked with its token (docs/browser.md); the cloud has no such step. */
  #subscribe(promptId: string): void {
    const subscription = this.#options.tokens?.subscription(promptId);
    if (subscription) this.#socket?.send(subscription);
  }

  /** Stops for good (the client closed): waiters reject, the socket and timers go, every watcher fails. */
  #close(): void {
    const reason: unknown = this.#options.http.closed.reason;
    this.#cancelIdle();
    this.#shutdown();
    for (const waiter of [...this.#waiters]) waiter({ error: reason });
    this.#router.clear();
    this.#failAll((job) => new WatcherClosedError(job.promptId, reason));
  }
}

/**
 * Cached nodes that sent no `executed`: the output nodes of the workflow among them or, when the
 * watch did not name them, every such node (the record then decides).
 */
function unsentOutputs(job: Job): string[] {
  const { cached, outputs } = job.seen;
  return [...(cached ?? [])].filter((id) => !(outputs && Object.hasOwn(outputs, id)) && (job.outputNodes?.has(id) ?? true));
}
