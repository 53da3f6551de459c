import type { HoldPolicy } from '../shared/defaults.js';
import { mergeOutput, wireMap } from '../shared/outputs.js';
import type { JobErrorInfo, NodeOutput } from '../shared/types.js';
import { errorFields } from '../shared/wire.js';
import { parsePriceText } from './price-text.js';
import { PROMPT_MESSAGE_TYPES, type PreviewData, type TextData, type WatchEvent, type WatcherStats } from './events.js';
import { HoldBuffer, isRecord } from '../../core/index.js';

/**
 * What the socket's messages told about one job. The router is its only writer; everyone else
 * holds it as `Readonly<Seen>`.
 *
 * @example
 * ```ts
 * const seen: Readonly<Seen> = router.follow(promptId);
 * if (seen.sawStart && !seen.gap) console.log('whole run seen so far');
 * ```
 */
export interface Seen {
  /** Outputs of `executed` messages by node id (a prototype-free map), from the first one. */
  outputs: Record<string, NodeOutput> | undefined;
  /** The nodes `execution_cached` named, from the first such message: they do not run, and some servers send no `executed` for them. */
  cached: Set<string> | undefined;
  /** `execution_start` was seen. */
  sawStart: boolean;
  /** The router's epoch when it was seen (a run seen across two epochs has a gap). */
  startEpoch: number;
  /** Messages of this job may have been missed (a disconnect, the hold bound, a late watch). */
  gap: boolean;
  /** When the last message of this job arrived (`Date.now()`). */
  lastActivity: number;
  /** Credits by node id (a prototype-free map): each priced node's last `Price:` line attributed to this job, from the first one. */
  spent: Record<string, number> | undefined;
}

/**
 * How a run ended, as the socket told it.
 *
 * @example
 * ```ts
 * const end: TerminalEnd = { status: 'completed', wholeRun: true, verify: false };
 * ```
 */
export interface TerminalEnd {
  status: 'completed' | 'failed' | 'cancelled';
  error?: JobErrorInfo | undefined;
  /** True when the whole run (from `execution_start`, without a disconnect) was seen. */
  wholeRun: boolean;
  /**
   * True when the message closes the run without saying how it ended (`executing {node: null}`,
   * which closes failed runs too): the job's record decides, and `status` means nothing.
   */
  verify: boolean;
}

/**
 * What one message means, as the router returns it: an event of the followed job `job` (the
 * value it was followed with; `undefined` for a message of every followed job: `status` and
 * `notification`), and the end of the run when the message tells it. The caller applies it; the
 * router calls nobody.
 *
 * @example
 * ```ts
 * const routed: Routed<string> = { job: 'p', event: { type: 'execution_success', data: { prompt_id: 'p' } }, end: { status: 'completed', wholeRun: true, verify: false } };
 * ```
 */
export interface Routed<J> {
  /** The followed job the message belongs to, as given to `follow()`; `undefined` for a message of every followed job. */
  job: J | undefined;
  event: WatchEvent;
  end?: TerminalEnd | undefined;
}

/** A followed prompt: what its messages told, and the value it was followed with. */
interface Followed<J> extends Seen {
  readonly job: J;
}

/**
 * What the router needs from its owner.
 *
 * @example
 * ```ts
 * new JobRouter({ hold: CLOUD_DEFAULTS.hold, stats });
 * ```
 */
export interface RouterOptions {
  /** `maxPreviewBytes` bounds held previews apart from the other messages. */
  hold: HoldPolicy;
  stats: WatcherStats;
}

const RECENT_LIMIT = 2_048;
/** A held price of a prompt nobody followed yet (no message type of the server's: those are lower-case words). */
const PRICE = 'graphcloud:price';

/**
 * Routes socket messages to the jobs followed by their `prompt_id` (the cloud sends every job of
 * a user to every socket of that user, so filtering by prompt id is the only routing; see
 * docs/wire-protocol.md#cloud-websocket-messages-and-their-order). Messages of a prompt nobody
 * follows yet are held, bounded in bytes and age, because a run can finish before the submit
 * response names its id; previews are held apart, in their own byte bound. It is the only writer of what messages tell (`Seen`), and of the epoch.
 * It calls nobody: each frame returns what it means (`Routed`), for its owner to apply.
 * Never throws on bad input: it counts it.
 *
 * @example
 * ```ts
 * const router = new JobRouter<string>({ hold: CLOUD_DEFAULTS.hold, stats });
 * const seen = router.follow('p', 'job p');
 * const routed = router.handleText('{"type":"execution_success","data":{"prompt_id":"p"}}');
 * if (routed?.end) console.log(routed.job, routed.end.status, seen.sawStart);
 * ```
 */
export class JobRouter<J> {
  readonly #followed = new Map<string, Followed<J>>();
  readonly #held: HoldBuffer<[type: string, data: Record<string, unknown>]>;
  readonly #recent = new Set<string>();
  readonly #options: RouterOptions;
  #epoch = 0;
  /** The prompt that last reported activity: previews without metadata belong to it. */
  #current: string | undefined;
  /** The node each prompt is running, as `executing` told it (every prompt of the socket, followed or not): a price text belongs to the one running its node. */
  readonly #running = new Map<string, string>();

  constructor(options: RouterOptions) {
    this.#options = options;
    this.#held = new HoldBuffer(options.hold, options.stats);
  }

  /** Incremented on every disconnect: a run seen across two epochs has a gap. */
  get epoch(): number {
    return this.#epoch;
  }

  /** Bytes of messages currently held. */
  get heldBytes(): number {
    return this.#held.bytes;
  }

  /** Frees every held message (the client closed). */
  clear(): void {
    this.#held.clear();
  }

  /**
   * Follows a prompt: its messages are routed (`Routed`, carrying `job`) rather than held, and what
   * they tell is recorded in the returned (read-only) `Seen`. Call `drain()` for the messages held
   * before. Following a followed prompt again changes nothing.
   */
  follow(promptId: string, job: J): Readonly<Seen> {
    const existing = this.#followed.get(promptId);
    if (existing) return existing;
    // Outputs and cached nodes are made at their first message: most jobs watched are waiting.
    const lastActivity = Date.now();
    const followed: Followed<J> = { job, outputs: undefined, cached: undefined, sawStart: false, startEpoch: -1, gap: false, lastActivity, spent: undefined };
    this.#followed.set(promptId, followed);
    this.#recent.delete(promptId);
    return followed;
  }

  /** Stops following a prompt (settled or released); its late messages are dropped, not held. */
  unfollow(promptId: string): void {
    if (!this.#followed.delete(promptId)) return;
    this.#recent.add(promptId);
    if (this.#recent.size > RECENT_LIMIT) this.#recent.delete(this.#recent.values().next().value as string);
  }

  /** Messages of this prompt may have been missed (it was watched after a disconnect). */
  markGap(promptId: string): void {
    const followed = this.#followed.get(promptId);
    if (followed) followed.gap = true;
  }

  /** The socket went down: a new epoch, and a gap for every run that had started. */
  disconnected(): void {
    this.#epoch++;
    // What runs now is unknown until the next `executing`: no text is attributed on a stale guess.
    this.#running.clear();
    for (const followed of this.#followed.values()) followed.gap ||= followed.sawStart;
  }

  /**
   * What the messages held for a followed prompt mean, previews among them, in arrival order, up to
   * the first that ends the run. A preview dropped by its bound is no gap: the run's outputs are
   * whole without it.
   */
  drain(promptId: string): Routed<J>[] {
    const followed = this.#followed.get(promptId);
    const held = followed && this.#held.take(promptId);
    if (!held || !followed) return [];
    if (held.gap) followed.gap = true;
    const routed: Routed<J>[] = [];
    for (const [type, data] of held.items) {
      // Previews and texts too: they change nothing but the last activity.
      const each = this.#apply(followed, type, data, held.epoch);
      if (!each) continue;
      routed.push(each);
      if (each.end) break;
    }
    return routed;
  }

  /** Routes one text frame: what it means for a followed job, or `undefined` (held, ignored, not followed). */
  handleText(text: string): Routed<J> | undefined {
    this.#options.stats.received++;
    const { type, data }: Record<string, unknown> = parseRecord(text) ?? {};
    if (typeof type !== 'string' || !isRecord(data)) return this.#ignore();
    if (type === 'status' || type === 'notification') return this.#followed.size > 0 ? { job: undefined, event: { type, data } as WatchEvent } : undefined;
    if (!PROMPT_MESSAGE_TYPES.has(type) || typeof data.prompt_id !== 'string' || !readable(type, data)) return this.#ignore();
    const promptId = data.prompt_id;
    if (type === 'execution_start' || type === 'progress' || (type === 'executing' && data.node !== null)) this.#current = promptId;
    this.#trackRunning(type, promptId, data);
    const followed = this.#followed.get(promptId);
    if (followed) return this.#apply(followed, type, data, this.#epoch);
    if (!this.#recent.has(promptId)) this.#held.add(promptId, [type, data], text.length, { epoch: this.#epoch });
    return undefined;
  }

  /**
   * Routes one binary frame: a preview or a text of a prompt nobody follows yet is held in its
   * own byte bound (`hold.maxPreviewBytes`). `scrub` cleans the frame's texts (a type 3 text, the
   * metadata of a preview) of the key, as the text frames are cleaned before they reach the router.
   */
  handleBinary(bytes: Uint8Array<ArrayBuffer>, scrub: (text: string) => string = (text) => text): Routed<J> | undefined {
    this.#options.stats.received++;
    const frame = decodeBinaryFrame(bytes);
    if (!frame) return this.#ignore();
    // A text names its node: it belongs to the one prompt running that node, if there is one.
    const owner = frame.kind === 'text' ? this.#runnerOf(frame.data.nodeId) : undefined;
    if (frame.kind === 'text') this.#price(frame.data, owner);
    const promptId = frame.data.promptId ?? owner ?? this.#current;
    if (promptId === undefined) return undefined;
    const followed = this.#followed.get(promptId);
    if (!followed && this.#recent.has(promptId)) return undefined;
    const texts = frame.data as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(texts)) if (typeof value === 'string') texts[key] = scrub(value);
    frame.data.promptId = promptId;
    if (followed) {
      followed.lastActivity = Date.now();
      return { job: followed.job, event: { type: frame.kind, data: frame.data } as WatchEvent };
    }
    this.#held.add(promptId, [frame.kind, texts], bytes.byteLength, { preview: true, epoch: this.#epoch });
    return undefined;
  }


  /** The one prompt running `nodeId` now (by its last `executing`), or `undefined` for none or several. */
  #runnerOf(nodeId: string | undefined): string | undefined {
    if (nodeId === undefined) return undefined;
    let runner: string | undefined;
    for (const [prompt, node] of this.#running) {
      if (node !== nodeId) continue;
      if (runner !== undefined) return undefined;
      runner = prompt;
    }
    return runner;
  }

  /**
   * Charges a node's `Price:` line to `owner`. A text frame names a node, not a prompt: when no
   * prompt, or several (two runs of one workflow at once), run that node, the price is counted as
   * unattributed (`stats.unattributedPrices`), never given to a guess.
   */
  #price(data: TextData, owner: string | undefined): void {
    const credits = parsePriceText(data.data);
    if (credits === undefined) return;
    if (owner === undefined || data.nodeId === undefined) this.#options.stats.unattributedPrices++;
    else this.#spend(owner, data.nodeId, credits);
  }

  /** Records a node's price on its prompt; held with its messages when nobody follows it yet. */
  #spend(promptId: string, nodeId: string, credits: number): void {
    const followed = this.#followed.get(promptId);
    if (followed) (followed.spent ??= wireMap<number>())[nodeId] = credits;
    else if (!this.#recent.has(promptId)) this.#held.add(promptId, [PRICE, { nodeId, credits }], 64, { epoch: this.#epoch });
  }

  /** Which node each prompt runs: from `executing`, until its end. */
  #trackRunning(type: string, promptId: string, data: Record<string, unknown>): void {
    if (type === 'executing') {
      const node = str(data.node);
      this.#running.delete(promptId);
      // Re-inserted last: the oldest entry is dropped first when the bound is reached.
      if (node !== undefined) this.#running.set(promptId, node);
      if (this.#running.size > RECENT_LIMIT) this.#running.delete(this.#running.keys().next().value as string);
    } else if (type === 'execution_success' || type === 'execution_interrupted' || (type === 'execution_error' && !(data.exception_type === 'ExecutionBlocked' && data.timestamp === undefined))) {
      this.#running.delete(promptId);
    }
  }

  /** Records what a message of a followed job tells, and returns what it means. */
  #apply(seen: Followed<J>, type: string, data: Record<string, unknown>, epoch: number): Routed<J> | undefined {
    if (type === PRICE) {
      (seen.spent ??= wireMap<number>())[data.nodeId as string] = data.credits as number;
      return undefined;
    }
    seen.lastActivity = Date.now();
    if (type === 'execution_start') {
      seen.sawStart = true;
      seen.startEpoch = epoch;
    } else if (type === 'execution_cached' && Array.isArray(data.nodes)) {
      for (const node of data.nodes) if (typeof node === 'string' || typeof node === 'number') (seen.cached ??= new Set()).add(String(node));
    } else if (type === 'executed') {
      mergeOutput((seen.outputs ??= wireMap<NodeOutput>()), String(data.node), data.output as NodeOutput);
    }
    // A blocked branch is reported as an error without a timestamp; the run goes on.
    const blocked = type === 'execution_error' && data.exception_type === 'ExecutionBlocked' && data.timestamp === undefined;
    const event = { type: blocked ? 'execution_blocked' : type, data } as WatchEvent;
    // The whole run was seen: its start, in this epoch, without a gap.
    const end = blocked ? undefined : endOf(type, data, seen.sawStart && !seen.gap && seen.startEpoch === epoch);
    return end ? { job: seen.job, event, end } : { job: seen.job, event };
  }

  #ignore(): undefined {
    this.#options.stats.ignored++;
    return undefined;
  }
}

/** How a message ends the run, if it does. */
function endOf(type: string, data: Record<string, unknown>, wholeRun: boolean): TerminalEnd | undefined {
  switch (type) {
    case 'execution_error':
      return { status: 'failed', error: errorFields(data, str, str(data.exception_message) ?? 'Execution failed'), wholeRun, verify: false };
    case 'execution_success':
      return { status: 'completed', wholeRun, verify: false };
    case 'execution_interrupted':
      return { status: 'cancelled', error: { message: 'Execution was interrupted', nodeId: str(data.node_id), nodeType: str(data.node_type) }, wholeRun, verify: false };
    case 'executing':
      // It closes every run, failed ones too, after its end message (docs/wire-protocol.md): here
      // that message was missed (or this server sends none), so only the job's record can tell.
      return data.node === null ? { status: 'completed', wholeRun, verify: true } : undefined;
    default:
      return undefined;
  }
}

/** The fields the SDK reads must have their documented types, or the message is ignored. */
function readable(type: string, data: Record<string, unknown>): boolean {
  if (type === 'executing') return data.node === null || data.node === undefined || str(data.node) !== undefined;
  if (type === 'executed') return str(data.node) !== undefined && isRecord(data.output);
  return true;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

// Binary frames (docs/wire-protocol.md#cloud-binary-frames), decoded here and nowhere else: the
// relay (graphcloud/server) reads them with the same function.

/**
 * A decoded binary frame.
 *
 * @example
 * ```ts
 * const frame: DecodedFrame | undefined = decodeBinaryFrame(bytes);
 * ```
 */
export type DecodedFrame = { kind: 'preview'; data: PreviewData } | { kind: 'text'; data: TextData };

const IMAGE_FORMATS: Record<number, string> = { 1: 'image/jpeg', 2: 'image/png' };
const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * Decodes a binary WebSocket frame (integers are 4-byte big-endian; see docs/wire-protocol.md#cloud-binary-frames):
 * type 1 preview image, type 3 text, type 4 preview with JSON metadata. Returns `undefined` for
 * any other type and for truncated or malformed frames; never throws.
 *
 * @example
 * ```ts
 * const frame = decodeBinaryFrame(new Uint8Array(event.data));
 * if (frame?.kind === 'preview') show(frame.data.mimeType, frame.data.data);
 * ```
 */
export function decodeBinaryFrame(bytes: Uint8Array<ArrayBuffer>): DecodedFrame | undefined {
  if (bytes.byteLength < 8) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = view.getUint32(0);
  const second = view.getUint32(4);
  if (type === 1) {
    const mimeType = IMAGE_FORMATS[second];
    return mimeType ? { kind: 'preview', data: { mimeType, data: bytes.subarray(8) } } : undefined;
  }
  // Types 3 and 4: `second` is the length of the node id (3) or of the metadata (4) before the body.
  if ((type !== 3 && type !== 4) || 8 + second > bytes.byteLength) return undefined;
  const head = utf8.decode(bytes.subarray(8, 8 + second));
  const body = bytes.subarray(8 + second);
  if (type === 3) return { kind: 'text', data: { nodeId: head || undefined, mimeType: 'text/plain', data: utf8.decode(body) } };
  const meta = parseRecord(head);
  if (!meta) return undefined;
  const mimeType = typeof meta.image_type === 'string' ? meta.image_type : 'image/png';
  const ids = { promptId: metaString(meta.prompt_id), nodeId: metaString(meta.node_id), displayNodeId: metaString(meta.display_node_id) };
  return { kind: 'preview', data: { ...ids, mimeType, data: body } };
}

/** A JSON object, or `undefined` for malformed JSON or any other value. */
function parseRecord(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function metaString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
