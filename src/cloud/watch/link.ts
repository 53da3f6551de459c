import { AuthenticationError, sleep, STOPPED, withSubmitted, type HttpClient } from '../../core/index.js';
import type { SocketPolicy } from '../model/defaults.js';
import type { Link } from './job-poll.js';
import type { JobRouter } from './router.js';
import { ReconnectingSocket, socketUrl, type SocketDown, type WebSocketConstructor } from './socket.js';

/**
 * The error a refused credential gives, one new instance per job (each names its own job).
 *
 * @example
 * ```ts
 * const refused: Refusal = (promptId) => new AuthenticationError({ ... });
 * ```
 */
export type Refusal = (promptId?: string) => AuthenticationError;

/**
 * What a `SocketLink` needs: the client's transport and id, the router its frames go to, and
 * what to tell its owner.
 *
 * @example
 * ```ts
 * new SocketLink({ http, clientId, WebSocket: undefined, policy, router, busy: () => tracks.size > 0, on });
 * ```
 */
export interface SocketLinkOptions {
  http: HttpClient;
  clientId: string;
  WebSocket: WebSocketConstructor | undefined;
  policy: SocketPolicy;
  router: JobRouter;
  /** True while a job is watched: the socket stays open. */
  busy(): boolean;
  on: {
    /** The socket opened; `reconnected` after an outage (messages may have been lost). */
    open(reconnected: boolean): void;
    /** The socket went down (polling takes over while it reconnects). */
    down(): void;
    /** The server refused the credential: no more attempts. */
    refused(refusal: Refusal): void;
  };
  random?: (() => number) | undefined;
}

type State = 'idle' | 'connecting' | 'open' | 'down';

/**
 * The lifecycle of a client's one shared socket: opened lazily, reconnected, `ready()` for a
 * submission, kept open while a job is watched or a submission is pending (`retain()`), and
 * closed after `idleCloseMs` once neither is left. It owns the socket state and the epoch moves.
 *
 * @example
 * ```ts
 * const link = new SocketLink(options);
 * const epoch = await link.ready();
 * ```
 */
export class SocketLink {
  readonly #options: SocketLinkOptions;
  readonly #waiters = new Set<{ resolve: (epoch: number) => void; reject: (error: unknown) => void }>();
  #socket: ReconnectingSocket | undefined;
  #state: State = 'idle';
  #redactedUrl = '';
  #refused: Refusal | undefined;
  #leases = 0;
  #idle: AbortController | undefined;

  constructor(options: SocketLinkOptions) {
    this.#options = options;
  }

  /** The socket state: `open`, `down` (polling while reconnecting), `connecting` or `idle`. */
  get state(): State {
    return this.#state;
  }

  /** The socket as polls see it. */
  get link(): Link {
    return this.#state === 'open' ? 'open' : this.#state === 'down' ? 'down' : 'waiting';
  }

  /** Set once the server refused the credential, until the next attempt. */
  get refused(): Refusal | undefined {
    return this.#refused;
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
    this.ensure();
    if (this.#refused) return Promise.reject(this.#refused());
    if (this.#state === 'open' || this.#state === 'down') return Promise.resolve(this.#options.router.epoch);
    return new Promise<number>((resolve, reject) => {
      const onAbort = () => {
        this.#waiters.delete(waiter);
        reject(signal?.reason);
        this.maybeIdle();
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
      this.maybeIdle();
    };
  }

  /** Opens the socket unless it is open, opening or polled for; cancels a pending idle close. */
  ensure(): void {
    this.#cancelIdle();
    if (this.#socket || this.#state !== 'idle' || this.#options.http.closed.aborted) return;
    this.#refused = undefined;
    const WebSocket = this.#options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WebSocket) {
      // No WebSocket in this runtime: poll only.
      this.#setState('down');
      return;
    }
    this.#state = 'connecting';
    const { http, clientId, policy, router, random } = this.#options;
    this.#socket = new ReconnectingSocket({
      url: async () => {
        const token = await http.credential();
        const built = socketUrl(http.baseUrl, clientId, token);
        this.#redactedUrl = built.redacted;
        return built.url;
      },
      WebSocket,
      policy,
      random,
      handlers: {
        onOpen: () => this.#onOpen(),
        onText: (text) => router.handleText(this.#scrub(text)),
        onBinary: (bytes) => router.handleBinary(bytes, (text) => this.#scrub(text)),
        onDown: (down) => this.#onDown(down),
        onRefused: (down) => this.#onRefused(down),
      },
    });
    this.#socket.start();
  }

  /** Sends a text message on the socket when it is open (a relay subscription); dropped otherwise. */
  send(text: string): void {
    this.#socket?.send(text);
  }

  /** Closes the socket after `idleCloseMs` once no job is watched and nothing waits for it. */
  maybeIdle(): void {
    if (this.#idle || this.#options.busy() || this.#leases > 0 || this.#waiters.size > 0) return;
    if (!this.#socket && this.#state === 'idle') return;
    const idle = new AbortController();
    this.#idle = idle;
    sleep(this.#options.policy.idleCloseMs, idle.signal).then(
      () => {
        this.#idle = undefined;
        this.#shutdown();
      },
      () => undefined,
    );
  }

  /** Stops for good (the client closed): waiters reject with `reason`, the socket and timers go. */
  close(reason: unknown): void {
    this.#cancelIdle();
    this.#shutdown();
    for (const waiter of this.#waiters) waiter.reject(reason);
    this.#waiters.clear();
  }

  #setState(state: State): void {
    this.#state = state;
    if (state !== 'open' && state !== 'down') return;
    for (const waiter of this.#waiters) waiter.resolve(this.#options.router.epoch);
    this.#waiters.clear();
  }

  #onOpen(): void {
    const reconnected = this.#state === 'down';
    this.#setState('open');
    this.#options.on.open(reconnected);
  }

  #onDown(_down: SocketDown): void {
    // Failed reconnect attempts while already down keep the poll schedule (and its backoff).
    if (this.#state === 'down') return;
    if (this.#state === 'open') this.#options.router.disconnected();
    this.#setState('down');
    this.#options.on.down();
  }

  /**
   * The text with every secret the client was given replaced (the key in the socket URL, a partner
   * key a submission carried), should the server echo one (a traceback, a reason, `extra_data`).
   */
  #scrub(text: string): string {
    return this.#options.http.scrub(text);
  }

  #onRefused(raw: SocketDown): void {
    const down = { ...raw, reason: this.#scrub(raw.reason) };
    const url = this.#redactedUrl;
    const message = `The WebSocket refused the credential (close code ${down.code}${down.reason ? `: ${down.reason}` : ''})`;
    const refused: Refusal = (promptId) => {
      const error = new AuthenticationError({ status: 401, method: 'GET', url, body: { message } });
      return promptId === undefined ? error : (withSubmitted(error, { kind: 'job', promptId }) as AuthenticationError);
    };
    this.#refused = refused;
    this.#socket = undefined;
    this.#state = 'idle';
    for (const waiter of this.#waiters) waiter.reject(refused());
    this.#waiters.clear();
    this.#options.on.refused(refused);
  }

  #cancelIdle(): void {
    this.#idle?.abort(STOPPED);
    this.#idle = undefined;
  }

  #shutdown(): void {
    if (this.#socket) {
      this.#socket.stop();
      this.#socket = undefined;
      // Messages sent while closed are lost: runs that straddle this are not "whole".
      this.#options.router.disconnected();
    }
    this.#state = 'idle';
  }
}
