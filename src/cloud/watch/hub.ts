import { AuthenticationError, Limiter, onAbort, setTimer, sleep, withSubmitted, type Backoff, type HttpClient } from '../../core/index.js';
import { defined, type PollPolicy, type WatcherPolicy } from '../shared/defaults.js';
import { initOf, WatcherClosedError } from '../shared/errors.js';
import type { JobReader } from '../shared/job-reader.js';
import type { RelayTokens } from '../shared/wire.js';
import { wireMap } from '../shared/outputs.js';
import type { JobErrorInfo, JobResult, JobStatusInfo } from '../shared/types.js';
import type { WatchEvent, WatcherStats } from './events.js';
import { JobPoll, PollSchedule, ReadGate, type PollShared, type PollTarget } from './job-poll.js';
import { control, type JobWatcher, type WatchedJob, type WatchSettings } from './job-watcher.js';
import { runCost } from './price-text.js';
import { ProgressTracker } from './progress.js';
import { JobRouter, type RouteTarget, type Seen, type TerminalEnd } from './router.js';
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

type State = 'idle' | 'connecting' | 'open' | 'down';

/**
 * The one shared socket of a `CloudClient` and everything attached to it: the router, one poll
 * loop per watched job (on the core wait engine, sharing one `Limiter`), the watchers. It owns the
 * socket's lifecycle: opened lazily, reconnected, `ready()` for a submission, kept open while a
 * job is watched or a submission is pending (`retain()`), polled for while down, and closed after
 * `idleCloseMs` once neither is left. Closes for good with the client's transport.
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
  readonly #router: JobRouter;
  readonly #polls: PollShared;
  readonly #tracks = new Map<string, Track>();
  /** Callers of `ready()` waiting for the socket: each is told once, then forgets its abort listener. */
  readonly #waiters = new Set<(outcome: { epoch: number } | { error: unknown }) => void>();
  #socket: ReconnectingSocket | undefined;
  #state: State = 'idle';
  #redactedUrl = '';
  /** Set once the server refused the credential, until the next attempt: one new error per call (each names its own job). */
  #refused: (() => AuthenticationError) | undefined;
  /** Submissions in flight (`retain()`): each keeps the socket open until released, once. */
  readonly #leases = new Set<symbol>();
  #idle: ReturnType<typeof setTimeout> | undefined;

  constructor(options: WatchHubOptions) {
    this.#options = options;
    this.#router = new JobRouter({ hold: options.policy.hold, stats: this.stats });
    const { concurrency } = options.policy.poll;
    this.#polls = { reader: options.reader, stats: this.stats, limiter: new Limiter(concurrency), gate: new ReadGate(concurrency), socket: this, schedule: new PollSchedule() };
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
    const track = this.#tracks.get(promptId) ?? this.#follow(promptId, options.poll);
    if (options.outputNodes) track.outputNodes ??= new Set(options.outputNodes);
    const watcher = control.open(promptId, options, options.waitTimeout ?? this.#options.policy.waitTimeout, track);
    track.watchers = [...track.watchers, watcher];
    if (options.nodes && track.setNodes(options.nodes)) track.progressChanged();
    if (since === undefined || since !== this.#router.epoch || this.state !== 'open') {
      if (since !== undefined) this.#router.markGap(promptId);
      track.poll.readWhenReady();
    }
    if (this.#refused) control.fail(watcher, withSubmitted(this.#refused(), { kind: 'job', promptId }));
    // Held messages go out after the caller attached its listeners (same tick, before any frame).
    queueMicrotask(() => this.#router.drain(promptId));
    return watcher;
  }

  /**
   * Reads a watched job's status now: this client cancelled it (`cloud.jobs.cancel()`), and the
   * socket may miss its end. A cancel never settles a watch: the job's own end does.
   */
  readNow(promptId: string): void {
    this.#tracks.get(promptId)?.poll.readNow();
  }

  /**
   * Settles every watcher of the job (its `Track` calls it with the end it learned). With `fetch`,
   * the outputs come from the job record. With `required` (nodes the record must hold, maybe
   * none), it is read again a few times while it lacks them or answers nothing.
   */
  async finish(track: Track, end: End, fetch: boolean, required?: readonly string[]): Promise<void> {
    if (track.settling) return;
    this.retire(track);
    let outputs = wireMap(track.seen.outputs);
    let outputsComplete = end.outputsComplete;
    if (fetch) {
      const signal = this.#options.http.closed;
      try {
        for (let read = 1; ; read++) {
          const fetched = await this.#options.reader.outputs(track.promptId, { signal });
          // The server's record is authoritative; outputs seen on the socket fill in what it lacks.
          outputs = wireMap(track.seen.outputs, fetched.outputs);
          outputsComplete = fetched.complete && (required ?? []).every((id) => Object.hasOwn(outputs, id));
          if (outputsComplete || required === undefined || read >= RECORD_READS) break;
          await sleep(RECORD_PAUSE_MS, signal);
        }
      } catch {
        outputsComplete = false;
      }
    }
    if (end.status === 'completed' && track.complete()) track.progressChanged();
    const result: Omit<JobResult, 'nodeErrors'> = { promptId: track.promptId, ...end, outputs, outputsComplete, cost: runCost(track.seen.spent, this.#options.creditsPerUsd) };
    // The job ended as it did (`status`), whatever the cancel answered; the result says it was asked.
    if (this.#options.reader.cancelRequested(track.promptId)) result.cancelRequested = true;
    for (const watcher of track.watchers) control.finish(watcher, result);
    this.maybeIdle();
  }

  /** Fails every watcher of the job with `error()`, naming the job, unless it is settling already. */
  fail(track: Track, error: () => unknown): void {
    if (track.settling) return;
    this.retire(track);
    for (const watcher of track.watchers) control.fail(watcher, withSubmitted(error(), { kind: 'job', promptId: track.promptId }));
    this.maybeIdle();
  }

  /** Fails every watched job, each with its own error. */
  failAll(error: (track: Track) => unknown): void {
    for (const track of [...this.#tracks.values()]) this.fail(track, () => error(track));
  }

  /** The end is known, or nobody watches any more: no more messages, no more reads. */
  retire(track: Track): void {
    track.settling = true;
    track.poll.stop();
    this.#router.unfollow(track.promptId);
    if (this.#tracks.get(track.promptId) === track) this.#tracks.delete(track.promptId);
  }

  /** The socket state: `open`, `down` (polling while reconnecting), `connecting` or `idle`. */
  get state(): State {
    return this.#state;
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
    if (this.#refused) return Promise.reject(this.#refused());
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
        this.maybeIdle();
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
      if (this.#leases.delete(lease)) this.maybeIdle();
    };
  }

  /** Closes the socket after `idleCloseMs` once no job is watched and nothing waits for it. */
  maybeIdle(): void {
    if (this.#idle || this.#state === 'idle' || this.#tracks.size > 0 || this.#leases.size > 0 || this.#waiters.size > 0) return;
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
    this.#refused = undefined;
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
        onText: (text) => this.#router.handleText(http.scrub(text)),
        onBinary: (bytes) => this.#router.handleBinary(bytes, (text) => http.scrub(text)),
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
    for (const track of this.#tracks.values()) {
      // A relay forgets a browser's subscriptions with its socket: ask again on every connection.
      this.#subscribe(track.promptId);
      // A completion sent while the socket was down is lost (no replay): read every job's state.
      if (reconnected || track.seen.gap) track.poll.readNow();
      else track.poll.replan();
    }
  }

  #onDown(): void {
    // Failed reconnect attempts while already down keep the poll schedule (and its backoff).
    if (this.#state === 'down') return;
    if (this.#state === 'open') this.#router.disconnected();
    this.#setState('down');
    for (const track of this.#tracks.values()) track.poll.readNow();
  }

  #onRefused(down: SocketDown): void {
    const reason = this.#options.http.scrub(down.reason);
    const url = this.#redactedUrl;
    const message = `The WebSocket refused the credential (close code ${down.code}${reason ? `: ${reason}` : ''})`;
    const refused = () => new AuthenticationError({ status: 401, method: 'GET', url, body: { message } });
    this.#refused = refused;
    this.#socket = undefined;
    this.#state = 'idle';
    for (const waiter of [...this.#waiters]) waiter({ error: refused() });
    this.failAll(refused);
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

  #follow(promptId: string, backoff: Partial<Backoff> | undefined): Track {
    // Shared by every job watched without a backoff of its own.
    const policy: PollPolicy = backoff ? { ...this.#options.policy.poll, ...defined(backoff) } : this.#options.policy.poll;
    const track = new Track(this, promptId, this.#router, this.#polls, policy);
    this.#tracks.set(promptId, track);
    track.poll.replan(); // the loop's first plan
    this.#subscribe(promptId);
    return track;
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
    this.failAll((track) => new WatcherClosedError(track.promptId, reason));
  }
}

/**
 * One watched job, as the hub follows it; the router delivers its messages here, its poll loop
 * its reads, and its watchers are released here; it tells its hub how the job ended. Each piece of
 * state has one writer:
 * - `seen` (outputs, start seen, gap, last activity): the router, from messages;
 * - the poll state (when the next status read is due, failures, backoff): the job's own
 *   `JobPoll` loop, inside the core wait engine;
 * - the lifecycle (`watchers`, `settling`, when the loop starts and stops): the hub;
 * - the job's overall progress: the track itself, a `ProgressTracker` fed by every event of the job.
 *
 * @example
 * ```ts
 * const track = new Track(hub, promptId, router, polls, policy);
 * track.poll.replan();
 * ```
 */
export class Track extends ProgressTracker implements RouteTarget, PollTarget, WatchedJob {
  /** What the messages told (the router's record of this job). */
  readonly seen: Readonly<Seen>;
  /** The job's poll loop. */
  readonly poll: JobPoll;
  /**
   * The watchers of this job (written by the hub). Replaced, never changed in place: a watcher
   * that settles while an event is dispatched does not shift the others.
   */
  watchers: readonly JobWatcher[] = [];
  /** The end is known and being finalised (written by the hub). */
  settling = false;
  /** The output nodes of the submitted workflow, when the watch named them (written by the hub). */
  outputNodes: ReadonlySet<string> | undefined;
  readonly #hub: WatchHub;

  constructor(hub: WatchHub, promptId: string, router: JobRouter, polls: PollShared, policy: PollPolicy) {
    super(promptId);
    this.#hub = hub;
    this.seen = router.follow(promptId, this);
    this.poll = new JobPoll(polls, policy, this);
  }

  /** One message of this job, for every watcher; then the overall progress when it changed. */
  event(event: WatchEvent): void {
    // Updated first: listeners of the message read `watcher.progress` as of that message.
    const changed = this.update(event);
    for (const watcher of this.watchers) control.deliver(watcher, event);
    if (changed) this.progressChanged();
  }

  /** The socket told the end of the run. */
  end(end: TerminalEnd): void {
    // The run is over, but how it ended is the record's to say (its end message was missed).
    if (end.verify) return this.poll.confirm();
    const completed = end.status === 'completed';
    // Some servers send no `executed` for cached output nodes: their outputs are only in the record.
    const unsent = completed && end.wholeRun ? this.#unsentOutputs() : [];
    // Without the workflow's output nodes, which cached nodes have outputs is the record's to say.
    const required = unsent.length === 0 ? undefined : this.outputNodes ? unsent : [];
    const fetch = (completed && !end.wholeRun) || unsent.length > 0;
    void this.#hub.finish(this, { status: end.status, error: end.error, via: 'socket', outputsComplete: end.wholeRun }, fetch, required);
  }

  /** A status read found the job's end. */
  polled(info: JobStatusInfo): void {
    const status = info.status === 'completed' ? 'completed' : info.status === 'cancelled' ? 'cancelled' : 'failed';
    const error: JobErrorInfo | undefined = status === 'completed' ? undefined : { message: info.errorMessage ?? `Job ${status} (server status ${info.raw})` };
    // Fetch outputs whatever the end: a failed run keeps the outputs of the nodes that did run.
    void this.#hub.finish(this, { status, error, via: 'poll', outputsComplete: false }, true);
  }

  /** A status read failed for good. */
  pollFailed(error: unknown): void {
    if (!(error instanceof AuthenticationError)) return this.#hub.fail(this, () => error);
    // The key was refused: every job of this client fails, each naming its own job.
    this.#hub.failAll((each) => (each === this ? error : new AuthenticationError(initOf(error))));
  }

  /** A watcher settled: it no longer follows the job. */
  release(watcher: JobWatcher): void {
    this.watchers = this.watchers.filter((each) => each !== watcher);
    if (this.watchers.length === 0 && !this.settling) this.#hub.retire(this);
    this.#hub.maybeIdle();
  }

  /** The job's overall progress changed: a `job_progress` event for the watchers that take it. */
  progressChanged(): void {
    let event: WatchEvent | undefined;
    for (const watcher of this.watchers) {
      // Built only for a watcher that takes it: most listen to `progress` and never read `job_progress`.
      if (!control.wants(watcher, 'job_progress')) continue;
      event ??= { type: 'job_progress', data: this.progress };
      control.deliver(watcher, event);
    }
  }

  /**
   * Cached nodes that sent no `executed`: the output nodes of the workflow among them or, when the
   * watch did not name them, every such node (the record then decides).
   */
  #unsentOutputs(): string[] {
    const { cached, outputs } = this.seen;
    return [...(cached ?? [])].filter((id) => !(outputs && Object.hasOwn(outputs, id)) && (this.outputNodes?.has(id) ?? true));
  }
}
