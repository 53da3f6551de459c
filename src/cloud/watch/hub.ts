import { AuthenticationError, Limiter, sleep, withSubmitted, type Backoff, type HttpClient } from '../../core/index.js';
import { defined, type WatcherPolicy } from '../model/defaults.js';
import { initOf, WatcherClosedError } from '../model/errors.js';
import type { JobReader } from '../model/job-reader.js';
import { wireMap } from '../model/outputs.js';
import type { JobErrorInfo, JobResult, JobStatusInfo, NodeErrors } from '../model/types.js';
import type { WatcherStats } from './events.js';
import { JobPoll, type Link } from './job-poll.js';
import { openWatcher, type JobWatcher, type WatcherSink } from './job-watcher.js';
import { JobRouter, type TerminalEnd } from './router.js';
import { ReconnectingSocket, socketUrl, type SocketDown, type WebSocketConstructor } from './socket.js';
import { Track } from './track.js';

/**
 * What a `WatchHub` needs from its client.
 *
 * @example
 * ```ts
 * new WatchHub({ http, clientId, WebSocket: undefined, reader, policy: resolvePolicy() });
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
  random?: (() => number) | undefined;
}

/**
 * How one job is watched: the caller's signal and deadline, a per-job poll backoff, and the
 * submission's `node_errors`.
 *
 * @example
 * ```ts
 * hub.watch(promptId, { waitTimeout: 600_000, nodeErrors: submitted.nodeErrors }, since);
 * ```
 */
export interface HubWatchOptions {
  signal?: AbortSignal | undefined;
  waitTimeout?: number | false | undefined;
  poll?: Partial<Backoff> | undefined;
  nodeErrors?: Record<string, NodeErrors> | undefined;
}

type State = 'idle' | 'connecting' | 'open' | 'down';
type End = Pick<JobResult, 'status' | 'error' | 'via' | 'outputsComplete'>;

/**
 * The one shared socket of a `CloudClient` and everything attached to it: the router, one poll
 * loop per watched job (on the core wait engine, sharing one `Limiter`), the watchers. Opens
 * lazily, reconnects, falls back to polling, and closes after a short idle delay once no job is
 * watched and no submission is pending. Closes for good with the client's transport.
 *
 * @example
 * ```ts
 * const hub = new WatchHub({ http, clientId, WebSocket: undefined, reader, policy });
 * const epoch = await hub.ready();
 * const watcher = hub.watch(promptId, {}, epoch);
 * ```
 */
export class WatchHub {
  readonly stats: WatcherStats = { received: 0, ignored: 0, held: 0, dropped: 0, connections: 0, polls: 0 };
  readonly #options: WatchHubOptions;
  readonly #router: JobRouter;
  readonly #limiter: Limiter;
  readonly #tracks = new Map<string, Track>();
  readonly #waiters = new Set<{ resolve: (epoch: number) => void; reject: (error: unknown) => void }>();
  #socket: ReconnectingSocket | undefined;
  #state: State = 'idle';
  #redactedUrl = '';
  #refused: ((promptId?: string) => AuthenticationError) | undefined;
  #leases = 0;
  #idle: AbortController | undefined;

  constructor(options: WatchHubOptions) {
    this.#options = options;
    this.#router = new JobRouter({ hold: options.policy.hold, stats: this.stats });
    this.#limiter = new Limiter(options.policy.poll.concurrency);
    options.http.closed.addEventListener('abort', () => this.#close(), { once: true });
  }

  /** The socket state: `open`, `down` (polling while reconnecting), `connecting` or `idle`. */
  get state(): State {
    return this.#state;
  }

  /** Messages currently held for unclaimed prompt ids. */
  get heldCount(): number {
    return this.#router.heldCount;
  }

  /**
   * Opens the socket if needed and resolves once it is open, or has failed (jobs are then
   * polled), with the current disconnect epoch. Rejects when the server refused the credential,
   * or with the `ClientClosedError` once the client is closed.
   */
  ready(signal?: AbortSignal): Promise<number> {
    const closed = this.#options.http.closed;
    if (closed.aborted) return Promise.reject(closed.reason);
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#cancelIdle();
    this.#ensureSocket();
    if (this.#refused) return Promise.reject(this.#refused());
    if (this.#state === 'open' || this.#state === 'down') return Promise.resolve(this.#router.epoch);
    return new Promise<number>((resolve, reject) => {
      const onAbort = () => {
        this.#waiters.delete(waiter);
        reject(signal?.reason);
        this.#maybeIdle();
      };
      const waiter = {
        resolve: (epoch: number) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(epoch);
        },
        reject: (error: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /** Keeps the socket open (a submission is in flight); call the returned function when done. */
  retain(): () => void {
    this.#leases++;
    this.#cancelIdle();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#leases--;
      this.#maybeIdle();
    };
  }

  /**
   * Watches a prompt. `since` is the epoch `ready()` returned before the submission: a
   * disconnect since then means messages may have been missed, so the job is read at once.
   * Without it (a job submitted elsewhere) the job is read once the socket is up.
   *
   * @throws {ClientClosedError} once the client is closed.
   */
  watch(promptId: string, options: HubWatchOptions, since?: number): JobWatcher {
    this.#options.http.throwIfClosed();
    this.#cancelIdle();
    this.#ensureSocket();
    const track = this.#tracks.get(promptId) ?? this.#follow(promptId, options.poll);
    const waitTimeout = options.waitTimeout ?? this.#options.policy.waitTimeout;
    const sink: WatcherSink = openWatcher(promptId, { signal: options.signal, waitTimeout, nodeErrors: options.nodeErrors }, () => this.#release(track, sink));
    track.sinks.add(sink);
    if (since === undefined || since !== this.#router.epoch || this.#state !== 'open') {
      if (since !== undefined) this.#router.markGap(promptId);
      track.poll.readWhenReady();
    }
    if (this.#refused) sink.fail(this.#refused(promptId));
    // Held messages go out after the caller attached its listeners (same tick, before any frame).
    queueMicrotask(() => this.#router.drain(promptId));
    return sink.watcher;
  }

  #follow(promptId: string, backoff: Partial<Backoff> | undefined): Track {
    const { reader, policy, random } = this.#options;
    const seen = this.#router.follow(promptId, {
      event: (event) => {
        for (const sink of track.sinks) sink.deliver(event);
      },
      end: (end) => this.#onSocketEnd(track, end),
    });
    const link = (): Link => (this.#state === 'open' ? 'open' : this.#state === 'down' ? 'down' : 'waiting');
    const read = (signal: AbortSignal) => {
      this.stats.polls++;
      return reader.status(promptId, { signal, retry: false });
    };
    const poll = new JobPoll({ promptId, read, policy: { ...policy.poll, ...defined(backoff) }, limiter: this.#limiter, link, lastActivity: () => seen.lastActivity, random });
    const track = new Track(promptId, seen, poll);
    this.#tracks.set(promptId, track);
    poll.run().then(
      (status) => status && this.#onPolledEnd(track, status),
      (error: unknown) => this.#onPollFailure(track, error),
    );
    return track;
  }

  #close(): void {
    const reason: unknown = this.#options.http.closed.reason;
    this.#cancelIdle();
    this.#shutdown();
    for (const waiter of this.#waiters) waiter.reject(reason);
    this.#waiters.clear();
    for (const track of [...this.#tracks.values()]) this.#fail(track, () => new WatcherClosedError(track.promptId, reason));
  }

  #ensureSocket(): void {
    if (this.#socket || this.#state !== 'idle' || this.#options.http.closed.aborted) return;
    this.#refused = undefined;
    const WebSocket = this.#options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WebSocket) {
      // No WebSocket in this runtime: poll only.
      this.#setState('down');
      return;
    }
    this.#state = 'connecting';
    const { http, clientId, policy, random } = this.#options;
    this.#socket = new ReconnectingSocket({
      url: async () => {
        const built = socketUrl(http.baseUrl, clientId, await http.credential());
        this.#redactedUrl = built.redacted;
        return built.url;
      },
      WebSocket,
      policy: policy.socket,
      random,
      handlers: {
        onOpen: () => this.#onOpen(),
        onText: (text) => this.#router.handleText(text),
        onBinary: (bytes) => this.#router.handleBinary(bytes),
        onDown: (down) => this.#onDown(down),
        onRefused: (down) => this.#onRefused(down),
      },
    });
    this.#socket.start();
  }

  #setState(state: State): void {
    this.#state = state;
    if (state !== 'open' && state !== 'down') return;
    for (const waiter of this.#waiters) waiter.resolve(this.#router.epoch);
    this.#waiters.clear();
  }

  #onOpen(): void {
    this.stats.connections++;
    const reconnected = this.#state === 'down';
    this.#setState('open');
    // A completion sent while the socket was down is lost (no replay): read every job's state.
    for (const track of this.#tracks.values()) {
      if (reconnected || track.seen.gap) track.poll.readNow();
      else track.poll.replan();
    }
  }

  #onDown(_down: SocketDown): void {
    // Failed reconnect attempts while already down keep the poll schedule (and its backoff).
    if (this.#state === 'down') return;
    if (this.#state === 'open') this.#router.disconnected();
    this.#setState('down');
    for (const track of this.#tracks.values()) track.poll.readNow();
  }

  #onRefused(down: SocketDown): void {
    const url = this.#redactedUrl;
    const message = `The WebSocket refused the credential (close code ${down.code}${down.reason ? `: ${down.reason}` : ''})`;
    this.#refused = (promptId) => {
      const error = new AuthenticationError({ status: 401, method: 'GET', url, body: { message } });
      return promptId === undefined ? error : (withSubmitted(error, { kind: 'job', promptId }) as AuthenticationError);
    };
    const refused = this.#refused;
    this.#socket = undefined;
    this.#state = 'idle';
    for (const waiter of this.#waiters) waiter.reject(refused());
    this.#waiters.clear();
    for (const track of [...this.#tracks.values()]) this.#fail(track, () => refused(track.promptId));
  }

  #onSocketEnd(track: Track, end: TerminalEnd): void {
    if (end.verify) {
      track.poll.readNow();
      return;
    }
    const fetch = end.status === 'completed' && !end.wholeRun;
    void this.#settle(track, { status: end.status, error: end.error, via: 'socket', outputsComplete: end.wholeRun }, fetch);
  }

  #onPolledEnd(track: Track, info: JobStatusInfo): void {
    const status = info.status === 'completed' ? 'completed' : info.status === 'cancelled' ? 'cancelled' : 'failed';
    const error: JobErrorInfo | undefined = status === 'completed' ? undefined : { message: info.errorMessage ?? `Job ${status} (server status ${info.raw})` };
    // Fetch outputs whatever the end: a failed run keeps the outputs of the nodes that did run.
    void this.#settle(track, { status, error, via: 'poll', outputsComplete: false }, true);
  }

  #onPollFailure(track: Track, error: unknown): void {
    if (!(error instanceof AuthenticationError)) return this.#fail(track, () => error);
    // The key was refused: every job of this client fails, each naming its own job.
    for (const each of [...this.#tracks.values()]) this.#fail(each, () => (each === track ? error : new AuthenticationError(initOf(error))));
  }

  async #settle(track: Track, end: End, fetch: boolean): Promise<void> {
    if (track.settling) return;
    this.#retire(track);
    let outputs = wireMap(track.seen.outputs);
    let outputsComplete = end.outputsComplete;
    if (fetch) {
      try {
        const fetched = await this.#options.reader.outputs(track.promptId, { signal: this.#options.http.closed });
        // The server's record is authoritative; outputs seen on the socket fill in what it lacks.
        outputs = wireMap(track.seen.outputs, fetched.outputs);
        outputsComplete = fetched.complete;
      } catch {
        outputsComplete = false;
      }
    }
    const result = { promptId: track.promptId, ...end, outputs, outputsComplete };
    for (const sink of [...track.sinks]) sink.finish(result);
    this.#maybeIdle();
  }

  #fail(track: Track, error: () => unknown): void {
    if (track.settling) return;
    this.#retire(track);
    for (const sink of [...track.sinks]) sink.fail(withSubmitted(error(), { kind: 'job', promptId: track.promptId }));
    this.#maybeIdle();
  }

  /** The end is known: no more messages, no more reads; the sinks settle next. */
  #retire(track: Track): void {
    track.settling = true;
    track.poll.stop();
    this.#router.unfollow(track.promptId);
    if (this.#tracks.get(track.promptId) === track) this.#tracks.delete(track.promptId);
  }

  #release(track: Track, sink: WatcherSink): void {
    track.sinks.delete(sink);
    if (track.sinks.size === 0 && !track.settling) this.#retire(track);
    this.#maybeIdle();
  }

  #maybeIdle(): void {
    if (this.#idle || this.#tracks.size > 0 || this.#leases > 0 || this.#waiters.size > 0) return;
    if (!this.#socket && this.#state === 'idle') return;
    const idle = new AbortController();
    this.#idle = idle;
    sleep(this.#options.policy.socket.idleCloseMs, idle.signal).then(
      () => {
        this.#idle = undefined;
        this.#shutdown();
      },
      () => undefined,
    );
  }

  #cancelIdle(): void {
    this.#idle?.abort();
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
}

