import { mergeOutput } from '../cloud/outputs.js';
import type { JobErrorInfo, NodeOutput } from '../cloud/types.js';
import { PROMPT_MESSAGE_TYPES, type ExecutionErrorData, type WatchEvent, type WatcherStats } from './events.js';
import { decodeBinaryFrame } from './frames.js';

/**
 * What a watcher of one prompt receives from the router.
 *
 * @example
 * ```ts
 * track.sinks.add({ deliver: (event) => console.log(event.type) });
 * ```
 */
export interface JobSink {
  deliver(event: WatchEvent): void;
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
  /** True when the end must be confirmed by polling (`executing {node: null}` after a gap). */
  verify: boolean;
}

/**
 * The per-prompt state the router, the poller and the hub share.
 *
 * @example
 * ```ts
 * const track = router.attach('prompt-1');
 * track.sinks.add(watcher);
 * ```
 */
export class Track {
  readonly promptId: string;
  readonly sinks = new Set<JobSink>();
  readonly outputs: Record<string, NodeOutput> = {};
  sawStart = false;
  startEpoch = -1;
  /** Messages of this prompt may have been missed (disconnect, hold-buffer overflow, late watch). */
  gap = false;
  /** The end is known and being finalised: later messages are ignored. */
  finishing = false;
  lastActivity: number;
  nextPollAt = 0;
  pollNow = false;
  failures = 0;
  notFound = 0;

  constructor(promptId: string, now: number) {
    this.promptId = promptId;
    this.lastActivity = now;
  }
}

interface Held {
  firstAt: number;
  epoch: number;
  gap: boolean;
  messages: [type: string, data: Record<string, unknown>][];
}

/**
 * What the router needs from its owner.
 *
 * @example
 * ```ts
 * new JobRouter({ hold: CLOUD_DEFAULTS.hold, stats, onEnd: (track, end) => finish(track, end) });
 * ```
 */
export interface RouterOptions {
  hold: { maxMessages: number; maxAgeMs: number };
  stats: WatcherStats;
  /** A run ended (the hub finalises it: outputs, settlement). */
  onEnd(track: Track, end: TerminalEnd): void;
}

const RECENT_LIMIT = 2_048;

/**
 * Routes socket messages to the watchers of their `prompt_id` (the cloud sends every job of a
 * user to every socket of that user, so filtering by prompt id is the only routing). Messages
 * of a prompt no watcher has claimed yet are held, bounded in count and age, because a run can
 * finish before the submit response names its id. Never throws on bad input: it counts it.
 *
 * @example
 * ```ts
 * const router = new JobRouter({ hold: CLOUD_DEFAULTS.hold, stats, onEnd });
 * router.handleText('{"type":"execution_success","data":{"prompt_id":"p"}}');
 * ```
 */
export class JobRouter {
  /** Incremented by the owner on every disconnect; a run seen across two epochs has a gap. */
  epoch = 0;
  readonly tracks = new Map<string, Track>();
  readonly #held = new Map<string, Held>();
  readonly #recent = new Set<string>();
  readonly #options: RouterOptions;
  #heldCount = 0;
  /** The prompt that last reported activity: previews without metadata belong to it. */
  #current: string | undefined;

  constructor(options: RouterOptions) {
    this.#options = options;
  }

  /** Number of messages currently held. */
  get heldCount(): number {
    return this.#heldCount;
  }

  /** Returns the track of a prompt, creating it. Call `drain()` once its sinks are attached. */
  attach(promptId: string): Track {
    let track = this.tracks.get(promptId);
    if (!track) {
      track = new Track(promptId, Date.now());
      this.tracks.set(promptId, track);
      this.#recent.delete(promptId);
    }
    return track;
  }

  /** Delivers the messages held for a prompt to its track, in arrival order. */
  drain(promptId: string): void {
    const held = this.#held.get(promptId);
    if (!held) return;
    this.#held.delete(promptId);
    this.#heldCount -= held.messages.length;
    const track = this.tracks.get(promptId);
    if (!track) return;
    if (held.gap) track.gap = true;
    for (const [type, data] of held.messages) {
      if (track.finishing) break;
      this.#apply(track, type, data, held.epoch);
    }
  }

  /** Forgets a track (settled or released); late messages of its prompt are dropped, not held. */
  remove(track: Track): void {
    if (this.tracks.get(track.promptId) !== track) return;
    this.tracks.delete(track.promptId);
    this.#recent.add(track.promptId);
    if (this.#recent.size > RECENT_LIMIT) this.#recent.delete(this.#recent.values().next().value as string);
  }

  /** Routes one text frame. */
  handleText(text: string): void {
    const stats = this.#options.stats;
    stats.received++;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      stats.ignored++;
      return;
    }
    if (!isRecord(message) || typeof message.type !== 'string' || !isRecord(message.data)) {
      stats.ignored++;
      return;
    }
    const { type, data } = message;
    if (type === 'status' || type === 'notification') {
      this.#broadcast({ type, data } as WatchEvent);
      return;
    }
    if (!PROMPT_MESSAGE_TYPES.has(type) || typeof data.prompt_id !== 'string' || !readable(type, data)) {
      stats.ignored++;
      return;
    }
    const promptId = data.prompt_id;
    if (type === 'execution_start' || type === 'progress' || (type === 'executing' && data.node !== null)) this.#current = promptId;
    const track = this.tracks.get(promptId);
    if (track) this.#apply(track, type, data, this.epoch);
    else if (!this.#recent.has(promptId)) this.#hold(promptId, type, data);
  }

  /** Routes one binary frame (previews are not held: they are large and only of live interest). */
  handleBinary(bytes: Uint8Array): void {
    const stats = this.#options.stats;
    stats.received++;
    const frame = decodeBinaryFrame(bytes);
    if (!frame) {
      stats.ignored++;
      return;
    }
    const promptId = frame.data.promptId ?? this.#current;
    const track = promptId === undefined ? undefined : this.tracks.get(promptId);
    if (!track || track.finishing) return;
    frame.data.promptId = promptId;
    track.lastActivity = Date.now();
    const event = (frame.kind === 'preview' ? { type: 'preview', data: frame.data } : { type: 'text', data: frame.data }) as WatchEvent;
    for (const sink of track.sinks) sink.deliver(event);
  }

  #apply(track: Track, type: string, data: Record<string, unknown>, epoch: number): void {
    if (track.finishing) return;
    track.lastActivity = Date.now();
    const wholeRun = () => track.sawStart && !track.gap && track.startEpoch === epoch;
    switch (type) {
      case 'execution_start':
        track.sawStart = true;
        track.startEpoch = epoch;
        break;
      case 'executed':
        mergeOutput(track.outputs, String(data.node), data.output as NodeOutput);
        break;
      case 'execution_error': {
        const error = data as ExecutionErrorData;
        // A blocked branch is reported as an error without a timestamp; the run goes on.
        if (error.exception_type === 'ExecutionBlocked' && error.timestamp === undefined) {
          this.#emit(track, { type: 'execution_blocked', data: error });
          return;
        }
        this.#emit(track, { type: 'execution_error', data: error });
        this.#options.onEnd(track, { status: 'failed', error: errorInfo(error), wholeRun: wholeRun(), verify: false });
        return;
      }
      case 'execution_success':
        this.#emit(track, { type, data } as WatchEvent);
        this.#options.onEnd(track, { status: 'completed', wholeRun: wholeRun(), verify: false });
        return;
      case 'execution_interrupted':
        this.#emit(track, { type, data } as WatchEvent);
        this.#options.onEnd(track, { status: 'cancelled', error: { message: 'Execution was interrupted', nodeId: str(data.node_id), nodeType: str(data.node_type) }, wholeRun: wholeRun(), verify: false });
        return;
      case 'executing':
        this.#emit(track, { type, data } as WatchEvent);
        // The documented end marker; servers that send execution_success send it first.
        if (data.node === null) this.#options.onEnd(track, { status: 'completed', wholeRun: wholeRun(), verify: !wholeRun() });
        return;
      default:
        break;
    }
    this.#emit(track, { type, data } as WatchEvent);
  }

  #emit(track: Track, event: WatchEvent): void {
    for (const sink of track.sinks) sink.deliver(event);
  }

  #broadcast(event: WatchEvent): void {
    for (const track of this.tracks.values()) if (!track.finishing) this.#emit(track, event);
  }

  #hold(promptId: string, type: string, data: Record<string, unknown>): void {
    const now = Date.now();
    let held = this.#held.get(promptId);
    if (!held) {
      held = { firstAt: now, epoch: this.epoch, gap: false, messages: [] };
      this.#held.set(promptId, held);
    } else if (held.epoch !== this.epoch) {
      held.gap = true;
    }
    held.messages.push([type, data]);
    this.#heldCount++;
    this.#options.stats.held++;
    this.#prune(now);
  }

  #prune(now: number): void {
    const { maxMessages, maxAgeMs } = this.#options.hold;
    for (const [promptId, held] of this.#held) {
      const tooMany = this.#heldCount > maxMessages;
      if (!tooMany && now - held.firstAt <= maxAgeMs) return;
      if (tooMany && this.#held.size === 1) {
        // One prompt alone exceeds the bound: keep its latest messages (the end matters most).
        const excess = this.#heldCount - maxMessages;
        held.messages.splice(0, excess);
        held.gap = true;
        this.#heldCount -= excess;
        this.#options.stats.dropped += excess;
        return;
      }
      this.#held.delete(promptId);
      this.#heldCount -= held.messages.length;
      this.#options.stats.dropped += held.messages.length;
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields the SDK reads must have their documented types, or the message is ignored. */
function readable(type: string, data: Record<string, unknown>): boolean {
  if (type === 'executing') return data.node === null || data.node === undefined || typeof data.node === 'string' || typeof data.node === 'number';
  if (type === 'executed') return (typeof data.node === 'string' || typeof data.node === 'number') && isRecord(data.output);
  return true;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

function errorInfo(data: ExecutionErrorData): JobErrorInfo {
  return {
    message: str(data.exception_message) ?? 'Execution failed',
    exceptionType: str(data.exception_type),
    nodeId: str(data.node_id),
    nodeType: str(data.node_type),
    traceback: data.traceback,
  };
}
