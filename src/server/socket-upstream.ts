import { callSafely, GraphcloudError, sleep } from '../core/index.js';
import { CLOUD_DEFAULTS } from '../cloud/shared/defaults.js';
import { ReconnectingSocket, socketUrl, type SocketDown, type WebSocketConstructor } from '../cloud/watch/socket.js';
import type { RelayConfig } from './config.js';
import { secretPatterns } from './scrub-body.js';
import type { UpstreamClient } from './upstream.js';

/**
 * The state of a relay instance's upstream socket.
 *
 * @example
 * ```ts
 * const state: UpstreamState = 'open';
 * ```
 */
export type UpstreamState = 'idle' | 'connecting' | 'open' | 'down' | 'refused';

/**
 * What the upstream socket tells its owner.
 *
 * @example
 * ```ts
 * const handlers: UpstreamHandlers = { text, binary, lost: () => closeBrowsers(1013), refused: () => closeBrowsers(1011) };
 * ```
 */
export interface UpstreamHandlers {
  text(raw: string): void;
  binary(bytes: Uint8Array<ArrayBuffer>): void;
  /** The socket went down (it reconnects): what was sent meanwhile is lost. */
  lost(): void;
  /** The cloud refused the key: no more attempts for a while. */
  refused(): void;
}

/**
 * The one upstream socket of a relay instance: the SDK's reconnecting socket (capped backoff with
 * jitter; it asks for previews with metadata on every connection), with the key in its URL and a
 * lifecycle of its own: opened on demand, closed `idleCloseMs` after its owner says it is idle,
 * tried again after a refused key no sooner than the longest reconnect delay.
 *
 * @example
 * ```ts
 * const socket = new UpstreamSocket(config, upstream, handlers);
 * if (await socket.ready()) acceptBrowser();
 * ```
 */
export class UpstreamSocket {
  readonly #config: RelayConfig;
  readonly #upstream: UpstreamClient;
  readonly #handlers: UpstreamHandlers;
  readonly #waiters = new Set<() => void>();
  #socket: ReconnectingSocket | undefined;
  #state: UpstreamState = 'idle';
  #refusedAt = 0;
  #idle: AbortController | undefined;
  #closed = false;
  /** The credentials in UTF-8 and UTF-16, for finding them in binary frames. */
  secretBytes: Uint8Array[] = [];

  constructor(config: RelayConfig, upstream: UpstreamClient, handlers: UpstreamHandlers) {
    this.#config = config;
    this.#upstream = upstream;
    this.#handlers = handlers;
  }

  get state(): UpstreamState {
    return this.#state;
  }

  /** Opens the socket if needed; true once it is open, false when it did not open within `openTimeoutMs` (or the key was refused). */
  async ready(signal?: AbortSignal): Promise<boolean> {
    if (this.#closed) return false;
    this.cancelIdle();
    this.#ensure();
    if (this.#state === 'open') return true;
    if (this.#state === 'refused') return false;
    const wait = new AbortController();
    const stop = signal ? AbortSignal.any([signal, wait.signal]) : wait.signal;
    const waiter = () => wait.abort();
    this.#waiters.add(waiter);
    await sleep(this.#config.socket.openTimeoutMs, stop).catch(() => undefined);
    this.#waiters.delete(waiter);
    return this.#isOpen();
  }

  /** Closes the socket after `idleCloseMs`, unless it is needed again before. */
  idle(): void {
    if (this.#idle || !this.#socket || this.#waiters.size > 0) return;
    const idle = new AbortController();
    this.#idle = idle;
    sleep(this.#config.socket.idleCloseMs, idle.signal).then(
      () => {
        this.#idle = undefined;
        this.#stop();
      },
      () => undefined,
    );
  }

  /** Keeps the socket: a browser came. */
  cancelIdle(): void {
    this.#idle?.abort();
    this.#idle = undefined;
  }

  /** Closes for good. */
  close(): void {
    this.#closed = true;
    this.cancelIdle();
    this.#stop();
    this.#wake();
  }

  #isOpen(): boolean {
    return this.#state === 'open';
  }

  #ensure(): void {
    if (this.#socket) return;
    if (this.#state === 'refused' && Date.now() - this.#refusedAt < this.#config.socket.reconnect.maxDelayMs) return;
    const WebSocket = this.#config.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WebSocket) {
      callSafely(this.#config.onError, new GraphcloudError('The relay found no WebSocket constructor for its upstream socket: pass the WebSocket option'));
      return;
    }
    this.#state = 'connecting';
    const cloudUrl = this.#config.upstreams.cloud?.url ?? '';
    this.#socket = new ReconnectingSocket({
      url: async () => {
        const key = await this.#upstream.apiKey();
        if (key) this.secretBytes = secretPatterns([key, ...this.#upstream.secrets]);
        return socketUrl(cloudUrl, this.#config.clientId, key).url;
      },
      WebSocket,
      policy: { ...this.#config.socket.reconnect, authCloseCodes: CLOUD_DEFAULTS.socket.authCloseCodes },
      handlers: {
        onOpen: () => {
          this.#state = 'open';
          this.#wake();
        },
        onText: (text) => this.#handlers.text(text),
        onBinary: (bytes) => this.#handlers.binary(bytes),
        onDown: (down) => this.#onDown(down),
        onRefused: (down) => this.#onRefused(down),
      },
    });
    this.#socket.start();
  }

  #onDown(down: SocketDown): void {
    if (this.#state === 'open') callSafely(this.#config.onError, new GraphcloudError(`The relay's upstream socket closed (code ${down.code}); reconnecting`));
    this.#state = 'down';
    this.#handlers.lost();
  }

  #onRefused(down: SocketDown): void {
    this.#socket = undefined;
    this.#state = 'refused';
    this.#refusedAt = Date.now();
    callSafely(this.#config.onError, new GraphcloudError(`The cloud refused the relay's key on its socket (close code ${down.code}): check the apiKey option`));
    this.#handlers.refused();
    this.#wake();
  }

  #stop(): void {
    this.#socket?.stop();
    this.#socket = undefined;
    this.#state = 'idle';
    this.#handlers.lost();
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
    this.#waiters.clear();
  }
}
