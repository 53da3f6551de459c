import { backoffDelay, callSafely, redactUrl, setTimer, sleep } from '../../core/index.js';
import type { SocketPolicy } from '../shared/defaults.js';

// The client's one socket: `ReconnectingSocket`, one reconnecting WebSocket, also used by the relay
// (graphcloud/server); its lifecycle for the watcher (opened lazily, `ready()` for a submission,
// kept open while jobs are watched, closed when idle) is the hub's (hub.ts).

/**
 * The part of the WebSocket API the watcher uses: the global `WebSocket` (Node 22+, browsers,
 * Deno, Bun) and the `ws` package both fit.
 *
 * @example
 * ```ts
 * import WebSocket from 'ws';
 * new CloudClient({ baseUrl, apiKey, WebSocket });
 * ```
 */
export interface WebSocketLike {
  /** `0` connecting, `1` open, `2` closing, `3` closed. */
  readonly readyState: number;
  /** Set to `arraybuffer` by the watcher, so binary frames (previews) arrive as bytes. */
  binaryType: string;
  /** Sends a text message (the watcher sends JSON). */
  send(data: string): void;
  /** Closes the connection with an optional close code and reason. */
  close(code?: number, reason?: string): void;
  /** Registers a listener; the watcher listens to all four events and reads `data`, `code` and `reason` from them. */
  // `any`: the DOM and `ws` declare different event classes; the socket reads `data`, `code` and `reason` defensively.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: any) => void): void;
}

/**
 * A WebSocket constructor: `globalThis.WebSocket` by default, or `ws` for runtimes without one.
 *
 * @example
 * ```ts
 * const ctor: WebSocketConstructor = globalThis.WebSocket;
 * ```
 */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/**
 * How a connection ended.
 *
 * @example
 * ```ts
 * handlers.onDown = (down: SocketDown) => console.log(down.opened, down.code);
 * ```
 */
export interface SocketDown {
  /** Whether it had opened before it closed. */
  opened: boolean;
  code: number;
  reason: string;
  /** How long it stayed open, in ms. */
  uptimeMs: number;
}

/**
 * What the owner of a socket is told. Callbacks must not throw; if they do, the error is dropped.
 *
 * @example
 * ```ts
 * const handlers: SocketHandlers = { onOpen, onText, onBinary, onDown, onRefused };
 * ```
 */
export interface SocketHandlers {
  /** A connection opened (the owner tells a reconnection by its own state). */
  onOpen(): void;
  onText(text: string): void;
  onBinary(bytes: Uint8Array<ArrayBuffer>): void;
  onDown(down: SocketDown): void;
  /** The server refused the credential (close code in `authCloseCodes`): no more attempts. */
  onRefused(down: SocketDown): void;
}

/**
 * What a `ReconnectingSocket` needs.
 *
 * @example
 * ```ts
 * new ReconnectingSocket({ url: async () => wsUrl, WebSocket: globalThis.WebSocket, policy, handlers });
 * ```
 */
export interface ReconnectingSocketOptions {
  /** Builds the URL of each attempt (the credential may rotate). */
  url: () => Promise<string>;
  WebSocket: WebSocketConstructor;
  policy: Omit<SocketPolicy, 'idleCloseMs'>;
  handlers: SocketHandlers;
  /** Source of jitter. @default Math.random */
  random?: () => number;
}

/**
 * One reconnecting WebSocket: capped exponential backoff with jitter between attempts, a
 * connection timeout, and an uptime after which the backoff resets (after partysocket). Sends
 * `feature_flags` on every open so the server sends type-4 previews with metadata.
 *
 * @example
 * ```ts
 * const socket = new ReconnectingSocket({ url: async () => wsUrl, WebSocket: globalThis.WebSocket, policy, handlers });
 * socket.start();
 * socket.stop();
 * ```
 */
export class ReconnectingSocket {
  readonly #options: ReconnectingSocketOptions;
  #controller: AbortController | undefined;
  #current: WebSocketLike | undefined;

  constructor(options: ReconnectingSocketOptions) {
    this.#options = options;
  }

  /** Starts connecting (no-op when already running). */
  start(): void {
    if (this.#controller) return;
    this.#controller = new AbortController();
    void this.#loop(this.#controller.signal);
  }

  /** Sends a text message when a connection is open; dropped otherwise. */
  send(text: string): void {
    const socket = this.#current;
    if (socket?.readyState === 1) callSafely(() => socket.send(text));
  }

  /** Closes the connection and stops reconnecting. */
  stop(): void {
    const socket = this.#current;
    this.#current = undefined;
    this.#controller?.abort();
    this.#controller = undefined;
    if (socket) callSafely(() => socket.close(1000, 'client closed'));
  }

  async #loop(signal: AbortSignal): Promise<void> {
    const { policy, handlers } = this.#options;
    let failures = 0;
    while (!signal.aborted) {
      let down: SocketDown;
      try {
        const url = await this.#options.url();
        // Stopped while the URL (the credential) was being resolved: open nothing.
        if (signal.aborted) return;
        down = await this.#connectOnce(url, signal);
      } catch (error) {
        down = { opened: false, code: 1006, reason: error instanceof Error ? error.message : String(error), uptimeMs: 0 };
      }
      if (signal.aborted) return;
      if (policy.authCloseCodes.includes(down.code)) {
        this.#controller = undefined;
        callSafely(() => handlers.onRefused(down));
        return;
      }
      callSafely(() => handlers.onDown(down));
      failures = down.opened && down.uptimeMs >= policy.minUptimeMs ? 0 : failures + 1;
      // Stopped during the pause: the sleep rejects, and the loop ends on the aborted signal.
      await sleep(backoffDelay(Math.max(1, failures), policy, this.#options.random), signal).catch(() => undefined);
    }
  }

  #connectOnce(url: string, signal: AbortSignal): Promise<SocketDown> {
    const { handlers, policy } = this.#options;
    return new Promise<SocketDown>((resolve) => {
      let openedAt = 0;
      let settled = false;
      const finish = (code: number, reason: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        signal.removeEventListener('abort', onStop);
        if (this.#current === socket) this.#current = undefined;
        resolve({ opened: openedAt > 0, code, reason, uptimeMs: openedAt > 0 ? Date.now() - openedAt : 0 });
      };
      const onStop = () => finish(1000, 'stopped');
      // A constructor that throws (a malformed URL) rejects this promise: the loop counts a failed attempt.
      const socket = new this.#options.WebSocket(url);
      socket.binaryType = 'arraybuffer';
      this.#current = socket;
      signal.addEventListener('abort', onStop, { once: true });
      // A deadline nobody awaits (cleared by `finish`): a timer, not the abortable sleep.
      const deadline = setTimer(() => {
        if (openedAt > 0) return;
        callSafely(() => socket.close());
        finish(1006, `no connection within ${policy.connectionTimeoutMs} ms`);
      }, policy.connectionTimeoutMs);
      socket.addEventListener('open', () => {
        if (settled) return;
        openedAt = Date.now();
        // Ask for type-4 previews, which name their prompt and node (docs/wire-protocol.md#cloud-binary-frames).
        callSafely(() => socket.send(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } })));
        callSafely(() => handlers.onOpen());
      });
      socket.addEventListener('message', (event: { data: unknown }) => {
        if (settled) return;
        const data = event.data;
        // Thousands of frames a second pass here: the handlers are called directly, in one guard.
        try {
          if (typeof data === 'string') handlers.onText(data);
          else if (data instanceof ArrayBuffer) handlers.onBinary(new Uint8Array(data));
          else if (ArrayBuffer.isView(data)) handlers.onBinary(bytesOf(data));
          else if (data instanceof Blob) data.arrayBuffer().then((buffer) => !settled && callSafely(() => handlers.onBinary(new Uint8Array(buffer))), () => undefined);
        } catch {
          // A handler must not throw; if one does, the frame is dropped and the next is read.
        }
      });
      socket.addEventListener('close', (event: { code?: number; reason?: string }) => finish(event.code ?? 1006, event.reason ?? ''));
      // After open, an error is always followed by close. Before open, Node 22.12's WebSocket fires
      // `error` alone on a refused upgrade (a 5xx) and stays CONNECTING, so the attempt ends here
      // rather than after connectionTimeoutMs (docs/cloud.md, "Socket cannot be opened").
      socket.addEventListener('error', () => {
        if (settled || openedAt > 0) return;
        finish(1006, 'the connection failed before it opened');
        callSafely(() => socket.close());
      });
    });
  }
}

/** The bytes of a view (a Node `Buffer` from `ws`), copied when they are not in a plain `ArrayBuffer`. */
function bytesOf(view: ArrayBufferView): Uint8Array<ArrayBuffer> {
  return view.buffer instanceof ArrayBuffer ? new Uint8Array(view.buffer, view.byteOffset, view.byteLength) : new Uint8Array(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
}

/**
 * The socket URL of a client, built in one place: `/ws` on the base URL with the `ws(s)` scheme,
 * `clientId`, and the key as `token` (docs/wire-protocol.md#authentication); `redacted` is the
 * same URL with the token hidden, for errors.
 *
 * @example
 * ```ts
 * socketUrl('https://cloud.example.com', 'c1', key); // { url: 'wss://cloud.example.com/ws?clientId=c1&token=…', redacted: '…token=[REDACTED]' }
 * ```
 */
export function socketUrl(baseUrl: string, clientId: string, token: string | undefined): { url: string; redacted: string } {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/ws`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('clientId', clientId);
  if (token) url.searchParams.set('token', token);
  return { url: url.toString(), redacted: redactUrl(url) };
}
