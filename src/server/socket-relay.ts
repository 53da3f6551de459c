import { decodeBinaryFrame } from '../cloud/watch/router.js';
import { holdsSecret } from './answers.js';
import { scrubDecodable } from './scrub-body.js';
import type { RelayConfig, RelaySocketPolicy } from './config.js';
import { callSafely, HoldBuffer } from '../core/index.js';
import { UpstreamSocket, type UpstreamState } from './socket-upstream.js';
import type { TokenSigner } from './tokens.js';
import type { UpstreamClient } from './upstream.js';

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

/**
 * Counters of a relay instance's sockets.
 *
 * @example
 * ```ts
 * const { browsers, subscriptions, upstream } = relay.stats();
 * ```
 */
export interface RelaySocketStats {
  /** Browser sockets open now. */
  browsers: number;
  /** Jobs followed across them. */
  subscriptions: number;
  /** The shared upstream socket. */
  upstream: UpstreamState;
  /** Upstream messages received. */
  received: number;
  /** Messages passed to browsers, counted once per browser. */
  forwarded: number;
  /** Messages held for jobs nobody follows yet. */
  held: {
    /** Jobs with held messages. */
    prompts: number;
    /** Bytes held. */
    bytes: number;
    /** Held messages the bounds (`socket.hold`) dropped. */
    dropped: number;
  };
  /** Upstream messages dropped: naming no job, unreadable, or holding a credential. */
  dropped: number;
  /**
   * Previews and node text without a prompt id (binary types 1 and 3) dropped because not exactly
   * one job was running on the upstream socket: they could have been any of them.
   */
  unattributed: number;
}

/** Close code for a socket the relay gives up on for now (its upstream is reconnecting, a reader too slow). */
const TRY_AGAIN_LATER = 1013;

// Messages that show a run going on: its previews without a prompt id may be attributed to it
// while it is the only one (docs/wire-protocol.md#cloud-binary-frames).
const ACTIVITY = new Set(['execution_start', 'execution_cached', 'progress', 'progress_state', 'executing', 'executed']);
// Runs tracked at once; beyond, previews without a prompt id are dropped until the socket reconnects.
const MAX_ACTIVE = 1024;

// Messages that end a run (docs/wire-protocol.md#cloud-websocket-messages-and-their-order).
function ends(type: string, data: Record<string, unknown>): boolean {
  if (type === 'execution_success' || type === 'execution_interrupted') return true;
  if (type === 'executing') return data.node === null;
  return type === 'execution_error' && !(data.exception_type === 'ExecutionBlocked' && data.timestamp === undefined);
}

/**
 * The socket side of one relay instance: ONE upstream socket (the key added there, opened when a
 * browser connects, reconnected with backoff, closed after `idleCloseMs` without browsers), shared
 * by every browser socket of the instance, each of which receives only the messages of the jobs it
 * subscribed to with their tokens. The cloud sends every job of the account on every socket, so
 * this filter is what keeps visitors apart (docs/wire-protocol.md#cloud-websocket-messages-and-their-order):
 * text frames by `data.prompt_id`, `status` frames to everyone, type-4 previews by their metadata's
 * `prompt_id` (the upstream socket asks for them with `feature_flags`), type-1 and type-3 frames
 * (no prompt id) to the one job running on the socket, and to nobody while several run: on one
 * account two visitors' jobs can run at once (docs/wire-protocol.md#cloud-binary-frames). Frames that hold a credential are scrubbed (text) or
 * dropped (binary).
 *
 * When the upstream socket drops, every browser socket is closed with code 1013: the browsers'
 * SDKs reconnect and read their jobs' status, as after any outage (messages sent meanwhile are lost).
 *
 * @example
 * ```ts
 * const sockets = new SocketRelay(config, signer, upstream);
 * if (await sockets.ready()) sockets.open(peer);
 * ```
 */
export class SocketRelay {
  readonly #config: RelayConfig;
  readonly #signer: TokenSigner;
  readonly #upstream: UpstreamClient;
  readonly #socket: UpstreamSocket;
  readonly #sessions = new Set<BrowserSession>();
  readonly #followers = new Map<string, Set<BrowserSession>>();
  readonly #hold: HoldBuffer<string | Uint8Array>;
  readonly #counts = { received: 0, forwarded: 0, dropped: 0, unattributed: 0 };
  /** The runs going on upstream (started, not ended): a type 1 or 3 frame belongs to the only one. */
  readonly #active = new Set<string>();
  /** More runs than MAX_ACTIVE were seen since the socket opened: no frame is attributed. */
  #saturated = false;

  constructor(config: RelayConfig, signer: TokenSigner, upstream: UpstreamClient) {
    this.#config = config;
    this.#signer = signer;
    this.#upstream = upstream;
    this.#hold = new HoldBuffer(config.socket.hold);
    this.#socket = new UpstreamSocket(config, upstream, {
      text: (raw) => this.#onText(raw),
      binary: (bytes) => this.#onBinary(bytes),
      // Messages sent until the reconnect are lost: the browsers reconnect and read their jobs' status.
      lost: () => this.#closeAll(TRY_AGAIN_LATER, 'upstream socket reconnecting'),
      refused: () => this.#closeAll(1011, 'the relay could not connect upstream'),
    });
  }

  /** Counters of this instance's sockets. */
  stats(): RelaySocketStats {
    let subscriptions = 0;
    for (const session of this.#sessions) subscriptions += session.follows.size;
    const held = { prompts: this.#hold.prompts, bytes: this.#hold.bytes, dropped: this.#hold.dropped };
    return { browsers: this.#sessions.size, subscriptions, upstream: this.#socket.state, ...this.#counts, held };
  }

  /** Opens the upstream socket if needed; true once it is open, false when it did not open within `openTimeoutMs`. */
  async ready(signal?: AbortSignal): Promise<boolean> {
    const open = await this.#socket.ready(signal);
    if (!open && this.#sessions.size === 0) this.#socket.idle();
    return open;
  }

  /** Attaches an accepted browser socket. Closed at once (code 1013) when the upstream went down meanwhile. */
  open(peer: RelayPeer): RelaySocket {
    const session = new BrowserSession(this, peer, this.#signer, this.#config.socket);
    this.#socket.cancelIdle();
    this.#sessions.add(session);
    if (this.#socket.state !== 'open') session.close(TRY_AGAIN_LATER, 'upstream socket not open');
    return session;
  }

  /** @internal Called by a session once its token is verified: follows the prompt (held messages first); false when it follows as many running jobs as allowed. */
  subscribe(session: BrowserSession, promptId: string): boolean {
    if (!this.#sessions.has(session)) return false;
    if (!session.follows.has(promptId)) {
      if (session.follows.size >= this.#config.socket.maxSubscriptions && !this.#forgetEnded(session)) return false;
      session.follows.set(promptId, false);
      let followers = this.#followers.get(promptId);
      if (!followers) this.#followers.set(promptId, (followers = new Set()));
      followers.add(session);
    }
    for (const frame of this.#hold.take(promptId)?.items ?? []) {
      this.#counts.forwarded++;
      session.send(frame);
      if (typeof frame === 'string' && endsFrame(frame)) session.ended(promptId);
    }
    return true;
  }

  /** @internal Called by a session that closed: it follows nothing any more. */
  leave(session: BrowserSession): void {
    if (!this.#sessions.delete(session)) return;
    for (const promptId of session.follows.keys()) this.#unfollow(session, promptId);
    if (this.#sessions.size === 0) this.#socket.idle();
  }

  /** Closes every browser socket (code 1001) and the upstream socket; later upgrades are refused. */
  close(): void {
    this.#closeAll(1001, 'relay closed');
    this.#socket.close();
    this.#hold.clear();
  }

  #closeAll(code: number, reason: string): void {
    this.#active.clear();
    this.#saturated = false;
    for (const session of [...this.#sessions]) session.close(code, reason);
  }

  #onText(raw: string): void {
    this.#counts.received++;
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      this.#counts.dropped++;
      return;
    }
    const { type, data } = (message ?? {}) as { type?: unknown; data?: unknown };
    if (typeof type !== 'string' || typeof data !== 'object' || data === null || Array.isArray(data)) {
      this.#counts.dropped++;
      return;
    }
    // Parsed, a `\u` escape spells the key as plainly as the key: escapes are written plain first.
    const text = scrubDecodable(raw, this.#upstream.secrets);
    // The queue state names no job: every browser gets it.
    if (type === 'status') {
      for (const session of this.#sessions) session.send(text);
      this.#counts.forwarded += this.#sessions.size;
      return;
    }
    const fields = data as Record<string, unknown>;
    const promptId = fields.prompt_id;
    // A message that names no job (logs, notifications, node packs' own) could be about anyone's: dropped.
    if (typeof promptId !== 'string' || promptId === '') {
      this.#counts.dropped++;
      return;
    }
    const ended = ends(type, fields);
    if (ended) this.#active.delete(promptId);
    else if (ACTIVITY.has(type)) this.#activity(promptId);
    const followers = this.#followers.get(promptId);
    if (!followers) {
      this.#hold.add(promptId, text, text.length);
      return;
    }
    for (const session of followers) {
      session.send(text);
      if (ended) session.ended(promptId);
    }
    this.#counts.forwarded += followers.size;
  }

  #onBinary(bytes: Uint8Array<ArrayBuffer>): void {
    this.#counts.received++;
    const kind = bytes.byteLength >= 4 ? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0) : 0;
    // Type 4 names its prompt; types 1 and 3 belong to the one run going on, if only one is.
    let promptId: string | undefined;
    if (kind === 4) promptId = decodeBinaryFrame(bytes)?.data.promptId;
    else if (kind === 1 || kind === 3) {
      promptId = this.#active.size === 1 && !this.#saturated ? (this.#active.values().next().value as string) : undefined;
      if (promptId === undefined) {
        this.#counts.unattributed++;
        return;
      }
    }
    if (promptId === undefined || holdsSecret(bytes, this.#socket.secretBytes)) {
      this.#counts.dropped++;
      return;
    }
    const followers = this.#followers.get(promptId);
    if (!followers) {
      // Held apart from the text, within their own bound: the first previews of a run come before its subscription.
      this.#hold.add(promptId, bytes.slice(), bytes.byteLength, { preview: true });
      return;
    }
    for (const session of followers) session.send(bytes);
    this.#counts.forwarded += followers.size;
  }

  #activity(promptId: string): void {
    if (this.#active.has(promptId)) return;
    if (this.#active.size >= MAX_ACTIVE) {
      this.#saturated = true;
      return;
    }
    this.#active.add(promptId);
  }

  #unfollow(session: BrowserSession, promptId: string): void {
    session.follows.delete(promptId);
    const followers = this.#followers.get(promptId);
    followers?.delete(session);
    if (followers?.size === 0) this.#followers.delete(promptId);
  }

  /** Makes room for one subscription by forgetting the oldest followed job that ended. */
  #forgetEnded(session: BrowserSession): boolean {
    for (const [promptId, ended] of session.follows) {
      if (!ended) continue;
      this.#unfollow(session, promptId);
      return true;
    }
    return false;
  }
}

/**
 * One browser's socket, made by `SocketRelay.open()`: the prompts it follows (each subscribed with
 * its job's token), and the sending side with its bound of queued bytes. Messages from the browser
 * other than `{"type":"graphcloud_subscribe","data":{"token":"…"}}` are ignored (the relay asks
 * upstream for previews with metadata on its own).
 */
class BrowserSession implements RelaySocket {
  /** Followed prompt ids, oldest first; `true` once the job ended. */
  readonly follows = new Map<string, boolean>();
  readonly #relay: SocketRelay;
  readonly #peer: RelayPeer;
  readonly #signer: TokenSigner;
  readonly #policy: RelaySocketPolicy;
  #open = true;

  constructor(relay: SocketRelay, peer: RelayPeer, signer: TokenSigner, policy: RelaySocketPolicy) {
    this.#relay = relay;
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
    this.#relay.leave(this);
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
    if (this.#relay.subscribe(this, promptId)) {
      this.send(JSON.stringify({ type: 'graphcloud_subscribed', data: { job: promptId } }));
    } else {
      this.send(JSON.stringify({ type: 'graphcloud_error', data: { code: 'subscription_limit', message: `This socket follows ${this.#policy.maxSubscriptions} running jobs already (the relay's socket.maxSubscriptions)`, job: promptId } }));
    }
  }
}

function endsFrame(frame: string): boolean {
  try {
    const { type, data } = JSON.parse(frame) as { type: string; data: Record<string, unknown> };
    return ends(type, data);
  } catch {
    return false;
  }
}
