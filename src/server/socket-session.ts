import { callSafely } from '../core/index.js';
import type { RelaySocketPolicy } from './config.js';
import type { TokenSigner } from './tokens.js';

/**
 * A browser's socket as a runtime adapter hands it to the relay: how to send to it and close it.
 *
 * @example
 * ```ts
 * const peer: RelayPeer = { send: (data) => ws.send(data), close: (code, reason) => ws.close(code, reason), bufferedAmount: () => ws.bufferedAmount };
 * ```
 */
export interface RelayPeer {
  /** Sends a message to the browser (text, or a binary preview frame). */
  send(data: string | Uint8Array): void;
  /** Closes the browser's socket with a close code and reason. */
  close(code: number, reason: string): void;
  /** Bytes queued and not yet sent, when the runtime tells (a slow reader is closed past a bound). */
  bufferedAmount?(): number;
}

/**
 * The relay's side of one browser socket: the adapter calls `receive()` with each message the
 * browser sends and `closed()` once it closed.
 *
 * @example
 * ```ts
 * ws.on('message', (data, binary) => socket.receive(binary ? new Uint8Array(data) : String(data)));
 * ws.on('close', () => socket.closed());
 * ```
 */
export interface RelaySocket {
  /** Hands the relay one message the browser sent. */
  receive(data: string | Uint8Array): void;
  /** Tells the relay the browser's socket closed: it stops following that socket's jobs. */
  closed(): void;
}

/** What a session asks of the socket relay it belongs to. */
export interface SessionHost {
  /** Follows a prompt for this session (held messages first); false when it follows as many running jobs as allowed. */
  subscribe(session: BrowserSession, promptId: string): boolean;
  /** The session ended: it follows nothing any more. */
  leave(session: BrowserSession): void;
}

/** Close code for a socket the relay gives up on for now (its upstream is reconnecting, a reader too slow). */
export const TRY_AGAIN_LATER = 1013;

/**
 * One browser's socket: the prompts it follows (each subscribed with its job's token), and the
 * sending side with its bound of queued bytes. Messages from the browser other than
 * `{"type":"graphcloud_subscribe","data":{"token":"…"}}` are ignored (the relay asks upstream for
 * previews with metadata on its own).
 *
 * @example
 * ```ts
 * const session = new BrowserSession(host, peer, signer, policy);
 * session.receive('{"type":"graphcloud_subscribe","data":{"token":"…"}}');
 * ```
 */
export class BrowserSession implements RelaySocket {
  /** Followed prompt ids, oldest first; `true` once the job ended. */
  readonly follows = new Map<string, boolean>();
  readonly #host: SessionHost;
  readonly #peer: RelayPeer;
  readonly #signer: TokenSigner;
  readonly #policy: RelaySocketPolicy;
  #open = true;

  constructor(host: SessionHost, peer: RelayPeer, signer: TokenSigner, policy: RelaySocketPolicy) {
    this.#host = host;
    this.#peer = peer;
    this.#signer = signer;
    this.#policy = policy;
  }

  /** A message from the browser. */
  receive(data: string | Uint8Array): void {
    if (!this.#open || typeof data !== 'string' || data.length > this.#policy.maxMessageBytes) return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    const { type, data: body } = (message ?? {}) as { type?: unknown; data?: { token?: unknown } };
    if (type !== 'graphcloud_subscribe') return;
    void this.#subscribe(body?.token);
  }

  /** The browser's socket closed. */
  closed(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#host.leave(this);
  }

  /** Sends a frame; a browser that lets too much queue up is closed (code 1013) rather than buffered without bound. */
  send(frame: string | Uint8Array): void {
    if (!this.#open) return;
    const queued = this.#peer.bufferedAmount?.() ?? 0;
    if (queued > this.#policy.maxBufferedBytes) {
      this.close(TRY_AGAIN_LATER, 'reading too slowly');
      return;
    }
    callSafely(() => this.#peer.send(frame));
  }

  /** Closes the browser's socket and leaves. */
  close(code: number, reason: string): void {
    if (!this.#open) return;
    callSafely(() => this.#peer.close(code, reason));
    this.closed();
  }

  /** The job of a followed prompt ended: a new subscription beyond the cap may replace it. */
  ended(promptId: string): void {
    if (this.follows.has(promptId)) this.follows.set(promptId, true);
  }

  async #subscribe(token: unknown): Promise<void> {
    const promptId = await this.#signer.verify(token, 'job');
    if (!this.#open) return;
    if (promptId === undefined) {
      this.send(JSON.stringify({ type: 'graphcloud_error', data: { code: 'job_token_invalid', message: 'The job token is malformed, expired, or not a job token' } }));
      return;
    }
    if (this.#host.subscribe(this, promptId)) {
      this.send(JSON.stringify({ type: 'graphcloud_subscribed', data: { job: promptId } }));
    } else {
      this.send(JSON.stringify({ type: 'graphcloud_error', data: { code: 'subscription_limit', message: `This socket follows ${this.#policy.maxSubscriptions} running jobs already (the relay's socket.maxSubscriptions)`, job: promptId } }));
    }
  }
}
