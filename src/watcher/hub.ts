import { AuthenticationError, GraphcloudError, sleep } from '../core/index.js';
import type { WatcherPolicy } from '../cloud/defaults.js';
import { WatcherClosedError } from '../cloud/errors.js';
import type { JobErrorInfo, JobResult, JobStatusInfo } from '../cloud/types.js';
import type { WatcherStats } from './events.js';
import { JobWatcher, type WatchOptions } from './job-watcher.js';
import { Poller, type JobSource } from './poller.js';
import { JobRouter, type TerminalEnd, type Track } from './router.js';
import { ReconnectingSocket, type SocketDown, type WebSocketConstructor } from './socket.js';

/**
 * What a `WatchHub` needs from its client.
 *
 * @example
 * ```ts
 * new WatchHub({ socketUrl, redactedUrl, WebSocket: globalThis.WebSocket, source, policy: resolvePolicy() });
 * ```
 */
export interface WatchHubOptions {
  /** Builds the socket URL (with `clientId` and `token`) for each attempt. */
  socketUrl: () => Promise<string>;
  /** The socket URL with its credential redacted, for error messages. */
  redactedUrl: string;
  /** `undefined` when the runtime has none: the hub then polls only. */
  WebSocket: WebSocketConstructor | undefined;
  source: JobSource;
  policy: WatcherPolicy;
}

type State = 'idle' | 'connecting' | 'open' | 'down';

/**
 * The one shared socket of a `CloudClient` and everything attached to it: the router, the
 * poller, the watchers. Opens lazily, reconnects, falls back to polling, and closes after a short
 * idle delay once no job is watched and no submission is pending.
 *
 * @example
 * ```ts
 * const hub = new WatchHub({ socketUrl, redactedUrl, WebSocket: globalThis.WebSocket, source, policy });
 * const epoch = await hub.ready();
 * const watcher = hub.watch(promptId, {}, epoch);
 * ```
 */
export class WatchHub {
  readonly stats: WatcherStats = { received: 0, ignored: 0, held: 0, dropped: 0, connections: 0, polls: 0 };
  readonly #options: WatchHubOptions;
  readonly #router: JobRouter;
  readonly #poller: Poller;
  readonly #life = new AbortController();
  #socket: ReconnectingSocket | undefined;
  #state: State = 'idle';
  #refused: Error | undefined;
  #waiters = new Set<{ resolve: (epoch: number) => void; reject: (error: unknown) => void }>();
  #leases = 0;
  #idle: AbortController | undefined;

  constructor(options: WatchHubOptions) {
    this.#options = options;
    this.#router = new JobRouter({ hold: options.policy.hold, stats: this.stats, onEnd: (track, end) => this.#onSocketEnd(track, end) });
    this.#poller = new Poller({
      source: options.source,
      policy: options.policy.poll,
      stats: this.stats,
      tracks: () => (this.#state === 'open' || this.#state === 'down' ? this.#router.tracks.values() : []),
      fallback: () => this.#state === 'down',
      onTerminal: (track, info) => this.#onPolledEnd(track, info),
      onFailure: (track, error) => this.#onPollFailure(track, error),
    });
  }

  /** The socket state: `open`, `down` (polling while reconnecting), `connecting` or `idle`. */
  get state(): State {
    return this.#state;
  }

  /** Aborts (reason: a `GraphcloudError`) when the client is closed: work in flight for it stops. */
  get closed(): AbortSignal {
    return this.#life.signal;
  }

  /** Messages currently held for unclaimed prompt ids. */
  get heldCount(): number {
    return this.#router.heldCount;
  }

  /**
   * Opens the socket if needed and resolves once it is open, or has failed (jobs are then
   * polled), with the current disconnect epoch. Rejects when the server refused the credential.
   */
  ready(signal?: AbortSignal): Promise<number> {
    if (this.#life.signal.aborted) return Promise.reject(new GraphcloudError('The client was closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#cancelIdle();
    this.#ensureSocket();
    if (this.#refused) return Promise.reject(this.#refused);
    if (this.#state === 'open' || this.#state === 'down') return Promise.resolve(this.#router.epoch);
    return new Promise<number>((resolve, reject) => {
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
      const onAbort = () => {
        this.#waiters.delete(waiter);
        reject(signal?.reason);
        this.#maybeIdle();
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
   * disconnect since then means messages may have been missed, so the job is polled at once.
   * Without it (watching a job submitted elsewhere) the job is polled once the socket is up.
   */
  watch(promptId: string, options: WatchOptions, since?: number): JobWatcher {
    if (this.#life.signal.aborted) throw new GraphcloudError('The client was closed');
    this.#cancelIdle();
    this.#ensureSocket();
    const track = this.#router.attach(promptId);
    const timeout = options.timeout ?? this.#options.policy.watch.timeoutMs;
    const watcher: JobWatcher = new JobWatcher(promptId, { ...options, timeout }, () => this.#release(track, watcher));
    track.sinks.add(watcher);
    if (since === undefined || since !== this.#router.epoch || this.#state !== 'open') {
      if (since !== undefined) track.gap = true;
      track.pollNow = true;
    }
    if (this.#refused) watcher.fail(this.#refused);
    // Held messages go out after the caller attached its listeners (same tick, before any frame).
    queueMicrotask(() => this.#router.drain(promptId));
    this.#poller.start();
    this.#poller.wake();
    return watcher;
  }

  /** Stops everything: every unsettled watcher rejects with `WatcherClosedError`, the socket closes. */
  close(): void {
    if (this.#life.signal.aborted) return;
    this.#life.abort(new GraphcloudError('The client was closed'));
    this.#cancelIdle();
    this.#shutdown();
    for (const waiter of this.#waiters) waiter.reject(new GraphcloudError('The client was closed'));
    this.#waiters.clear();
    for (const track of [...this.#router.tracks.values()]) this.#failTrack(track, new WatcherClosedError(track.promptId));
  }

  #ensureSocket(): void {
    if (this.#socket || this.#life.signal.aborted) return;
    this.#refused = undefined;
    const WebSocket = this.#options.WebSocket;
    if (!WebSocket) {
      // No WebSocket in this runtime: poll only.
      this.#setState('down');
      return;
    }
    this.#state = 'connecting';
    this.#socket = new ReconnectingSocket({
      url: this.#options.socketUrl,
      WebSocket,
      policy: this.#options.policy.socket,
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
    if (state === 'open' || state === 'down') {
      for (const waiter of this.#waiters) waiter.resolve(this.#router.epoch);
      this.#waiters.clear();
    }
    this.#poller.wake();
  }

  #onOpen(): void {
    this.stats.connections++;
    // A completion sent while the socket was down is lost (no replay): ask for every job's state.
    for (const track of this.#router.tracks.values()) {
      if (this.#state === 'down' || track.gap) track.pollNow = true;
      track.failures = 0;
    }
    this.#setState('open');
  }

  #onDown(_down: SocketDown): void {
    // Failed reconnect attempts while already down keep the poll schedule (and its backoff).
    if (this.#state === 'down') return;
    if (this.#state === 'open') this.#router.epoch++;
    const next = Date.now() + this.#options.policy.poll.minIntervalMs;
    for (const track of this.#router.tracks.values()) {
      track.gap = track.gap || track.sawStart;
      track.nextPollAt = Math.max(track.nextPollAt, next);
      track.failures = 0;
    }
    this.#setState('down');
  }

  #onRefused(down: SocketDown): void {
    const error = new AuthenticationError({
      status: 401,
      method: 'GET',
      url: this.#options.redactedUrl,
      body: { message: `The WebSocket refused the credential (close code ${down.code}${down.reason ? `: ${down.reason}` : ''})` },
    });
    this.#refused = error;
    this.#socket = undefined;
    this.#state = 'idle';
    for (const waiter of this.#waiters) waiter.reject(error);
    this.#waiters.clear();
    for (const track of [...this.#router.tracks.values()]) this.#failTrack(track, error);
  }

  #onSocketEnd(track: Track, end: TerminalEnd): void {
    if (end.verify) {
      track.pollNow = true;
      this.#poller.wake();
      return;
    }
    const fetch = end.status === 'completed' && !end.wholeRun;
    void this.#finalize(track, { status: end.status, error: end.error, via: 'socket', outputsComplete: end.wholeRun }, fetch);
  }

  #onPolledEnd(track: Track, info: JobStatusInfo): void {
    const status = info.status === 'completed' ? 'completed' : info.status === 'cancelled' ? 'cancelled' : 'failed';
    const error: JobErrorInfo | undefined = status === 'completed' ? undefined : { message: info.errorMessage ?? `Job ${status} (server status ${info.raw})` };
    // Fetch outputs whatever the end: a failed run keeps the outputs of the nodes that did run.
    void this.#finalize(track, { status, error, via: 'poll', outputsComplete: false }, true);
  }

  #onPollFailure(track: Track, error: Error): void {
    if (error instanceof AuthenticationError) {
      for (const each of [...this.#router.tracks.values()]) this.#failTrack(each, error);
    } else this.#failTrack(track, error);
  }

  async #finalize(track: Track, end: Omit<JobResult, 'nodeErrors' | 'outputs' | 'promptId'>, fetch: boolean): Promise<void> {
    if (track.finishing) return;
    track.finishing = true;
    let outputs = track.outputs;
    let outputsComplete = end.outputsComplete;
    if (fetch) {
      try {
        const fetched = await this.#options.source.getJobOutputs(track.promptId, { signal: this.#life.signal });
        // The server's record is authoritative; outputs seen on the socket fill in what it lacks.
        outputs = { ...track.outputs, ...fetched.outputs };
        outputsComplete = fetched.complete;
      } catch {
        outputsComplete = false;
      }
    }
    this.#router.remove(track);
    const result = { promptId: track.promptId, ...end, outputs, outputsComplete };
    for (const sink of [...track.sinks]) (sink as JobWatcher).finish(result);
    this.#maybeIdle();
  }

  #failTrack(track: Track, error: unknown): void {
    track.finishing = true;
    this.#router.remove(track);
    for (const sink of [...track.sinks]) (sink as JobWatcher).fail(error);
    this.#maybeIdle();
  }

  #release(track: Track, watcher: JobWatcher): void {
    track.sinks.delete(watcher);
    if (track.sinks.size === 0) this.#router.remove(track);
    this.#maybeIdle();
  }

  #maybeIdle(): void {
    if (this.#idle || this.#router.tracks.size > 0 || this.#leases > 0 || this.#waiters.size > 0) return;
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
    this.#poller.stop();
    if (this.#socket) {
      this.#socket.stop();
      this.#socket = undefined;
      // Messages sent while closed are lost: runs that straddle this are not "whole".
      this.#router.epoch++;
    }
    this.#state = 'idle';
  }
}
