// The queue's Redis beside BullMQ's jobs: the connections (every one waits through a Redis restart,
// `maxRetriesPerRequest: null`: a run's stored id or result is written late, never dropped), the
// queue's own keys (the reason a worker paused the queue, cancel requests any process writes and
// the worker holding the run reads, the guard that makes a cloud job's cancel happen once, the
// tombstone of a queued run removed by a cancel, state events), and who holds a run.
import { Redis, type RedisOptions } from 'ioredis';
import type { ConnectionOptions, Queue } from 'bullmq';
import { QUEUE_DEFAULTS } from './options.js';
import type { PauseReason, RedisConnection, RunState } from './types.js';

/** The name of the state events workers publish on the queue's event stream. */
export const STATE_EVENT = 'graphcloud:state';
/** Events kept in the stream (BullMQ's own default). */
export const MAX_EVENTS = 10_000;

/**
 * The connection as BullMQ takes it.
 *
 * @example
 * ```ts
 * new Queue(name, { connection: bullConnection('redis://127.0.0.1:6379') });
 * ```
 */
export function bullConnection(connection: RedisConnection): ConnectionOptions {
  const base = typeof connection === 'string' ? { url: connection } : { ...connection };
  return { ...base, maxRetriesPerRequest: null } as ConnectionOptions;
}

/**
 * A plain ioredis client for the queue's own keys (cancel requests, pause reason, tombstones).
 *
 * @example
 * ```ts
 * const redis = openRedis({ host: '127.0.0.1', port: 6379 });
 * ```
 */
export function openRedis(connection: RedisConnection): Redis {
  const options: RedisOptions = { maxRetriesPerRequest: null, lazyConnect: false };
  return typeof connection === 'string' ? new Redis(connection, options) : new Redis({ ...(connection as RedisOptions), ...options });
}

const MARK = `if redis.call('EXISTS', KEYS[3]) == 1 then return 2 end
if redis.call('GET', KEYS[1]) ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'data', ARGV[2])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', unpack(ARGV, 4))
return 1`;
// Stores a submission's answer and its state event in one step, whoever holds the job now; returns
// { whether a cancel is requested, whether the caller's token still is the job's lock }.
const ANSWER = `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'data', ARGV[2]) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', unpack(ARGV, 4))
return { redis.call('EXISTS', KEYS[3]), redis.call('GET', KEYS[4]) == ARGV[1] and 1 or 0 }`;

/** The ids a state event carries once the run's job is known. */
type StateIds = { promptId?: string | undefined; taskId?: string | undefined };

/**
 * Reads and writes the queue's own keys under `<prefix>:<name>:gc:`.
 *
 * @example
 * ```ts
 * const store = new RunStore(redis, 'graphcloud', 'renders', 604_800);
 * await store.requestCancel('order-1234');
 * ```
 */
export class RunStore {
  readonly #redis: Redis;
  readonly #base: string;
  readonly #ttl: number;
  readonly #jobs: string;

  constructor(redis: Redis, prefix: string, name: string, keepSeconds: number) {
    this.#redis = redis;
    this.#base = `${prefix}:${name}:gc:`;
    this.#jobs = `${prefix}:${name}:`;
    this.#ttl = keepSeconds;
  }

  /**
   * Marks a run "submitting" before its request leaves, in one step (a script): `'cancel'` when a
   * cancel is requested (nothing written), `'lost'` when `token` no longer holds the job's lock (a
   * Redis outage, a stall: whoever took the run over reads what was there), else `'marked'`, with
   * the state event published in the same step.
   */
  async mark(runId: string, token: string, data: unknown): Promise<'marked' | 'cancel' | 'lost'> {
    const key = `${this.#jobs}${runId}`;
    const answer = await this.#redis.eval(MARK, 4, `${key}:lock`, key, `${this.#base}cancel:${runId}`, `${this.#jobs}events`, token, JSON.stringify(data), MAX_EVENTS, ...stateFields(runId, 'submitting'));
    return answer === 1 ? 'marked' : answer === 2 ? 'cancel' : 'lost';
  }

  /**
   * Stores the answer of a submission (the run's data with its prompt or task id) and publishes
   * its `running` event, in one step; resolves whether a cancel is requested for the run and
   * whether `token` still holds it (BullMQ's lock manager extends a held lock on its own).
   */
  async storeAnswer(runId: string, token: string | undefined, data: unknown, ids: StateIds): Promise<{ cancel: boolean; held: boolean }> {
    const key = `${this.#jobs}${runId}`;
    const [cancel, held] = (await this.#redis.eval(ANSWER, 4, key, `${this.#jobs}events`, `${this.#base}cancel:${runId}`, `${key}:lock`, token ?? '', JSON.stringify(data), MAX_EVENTS, ...stateFields(runId, 'running', ids))) as [number, number];
    return { cancel: cancel === 1, held: token === undefined || held === 1 };
  }

  /** Publishes a run's state on the queue's event stream, where every follower reads it (`RunFeed`). */
  async publishState(runId: string, state: RunState, ids: StateIds = {}): Promise<void> {
    await this.#redis.xadd(`${this.#jobs}events`, 'MAXLEN', '~', MAX_EVENTS, '*', ...stateFields(runId, state, ids));
  }

  /** The reason the queue was paused, or `undefined`. */
  async getPauseReason(): Promise<PauseReason | undefined> {
    const raw = await this.#redis.get(`${this.#base}pause`);
    return raw === null ? undefined : (JSON.parse(raw) as PauseReason);
  }

  /** Records why the queue is paused; the first reason stays until `clearPauseReason()`. */
  async setPauseReason(reason: PauseReason): Promise<void> {
    await this.#redis.set(`${this.#base}pause`, JSON.stringify(reason), 'NX');
  }

  async clearPauseReason(): Promise<void> {
    await this.#redis.del(`${this.#base}pause`);
  }

  /**
   * Asks whichever worker holds the run (now or later) to cancel it: a flag every worker reads
   * before sending and when it starts watching, and a message on the cancel channel for the worker
   * watching it now.
   */
  async requestCancel(runId: string): Promise<void> {
    await this.#redis.multi().set(`${this.#base}cancel:${runId}`, String(Date.now()), 'EX', this.#ttl).publish(this.cancelChannel, runId).exec();
  }

  /** The pub/sub channel of cancel requests (its messages are run ids). */
  get cancelChannel(): string {
    return `${this.#base}cancel`;
  }

  /** The runs among `runIds` with a cancel requested (one round trip). */
  async cancelsRequested(runIds: readonly string[]): Promise<string[]> {
    if (runIds.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const runId of runIds) pipeline.exists(`${this.#base}cancel:${runId}`);
    const answers = (await pipeline.exec()) ?? [];
    return runIds.filter((_, i) => answers[i]?.[1] === 1);
  }

  async cancelRequested(runId: string): Promise<boolean> {
    return (await this.#redis.exists(`${this.#base}cancel:${runId}`)) === 1;
  }

  /** True for the one caller that may cancel the run's cloud job; every later caller gets false. */
  async claimCloudCancel(runId: string): Promise<boolean> {
    return (await this.#redis.set(`${this.#base}cancelled-job:${runId}`, '1', 'EX', this.#ttl, 'NX')) === 'OK';
  }

  /** Keeps what is known of a queued run removed by a cancel, so `get()` still tells it. */
  async writeTombstone(runId: string, tombstone: Tombstone): Promise<void> {
    await this.#redis.set(`${this.#base}removed:${runId}`, JSON.stringify(tombstone), 'EX', this.#ttl);
  }

  async readTombstone(runId: string): Promise<Tombstone | undefined> {
    const raw = await this.#redis.get(`${this.#base}removed:${runId}`);
    return raw === null ? undefined : (JSON.parse(raw) as Tombstone);
  }
}

/**
 * What is kept of a queued run removed by a cancel.
 *
 * @example
 * ```ts
 * const tombstone: Tombstone = { kind: 'workflow', addedAt, endedAt: Date.now() };
 * ```
 */
export interface Tombstone {
  kind: 'workflow' | 'task';
  addedAt: number;
  endedAt: number;
}

/** The stream fields of a run's state event: `event`, the run's id and state, the ids known. */
function stateFields(runId: string, state: RunState, ids: StateIds = {}): string[] {
  const out = ['event', STATE_EVENT, 'jobId', runId, 'state', state];
  if (ids.promptId !== undefined) out.push('promptId', ids.promptId);
  if (ids.taskId !== undefined) out.push('taskId', ids.taskId);
  return out;
}

// Which workers are connected to a queue, and whether the worker holding a run still is. BullMQ
// names each worker's Redis connections after the worker (CLIENT SETNAME, read back with CLIENT
// LIST: `queue.getWorkers()`) and writes that name on the job it takes (`processedBy`); RunWorker
// gives each of its workers a name of its own. A run whose worker is gone waits for its lock to
// lapse and for the next stalled check of a live worker: that is when it is taken over.

/**
 * The names of the workers connected to the queue now (`''` for one without a name), or
 * `undefined` where Redis does not list its clients (some managed services refuse CLIENT LIST).
 *
 * @example
 * ```ts
 * const names = await connectedWorkers(queue); // Set { 'w-5d1e2c3a-…' }
 * ```
 */
export async function connectedWorkers(queue: Queue): Promise<Set<string> | undefined> {
  let clients: Record<string, string>[];
  try {
    clients = (await queue.getWorkers()) as Record<string, string>[];
  } catch {
    return undefined;
  }
  const names = new Set<string>();
  for (const client of clients) {
    // BullMQ answers one entry without `rawname` where CLIENT LIST is refused.
    if (typeof client.rawname !== 'string') return undefined;
    const at = client.rawname.indexOf(':w:');
    names.add(at < 0 ? '' : client.rawname.slice(at + 3));
  }
  return names;
}

/**
 * Whether the worker that holds an active run is lost, read in one transaction (the run's place
 * in the active list, its lock's time to live, the name of the worker that took it), then the
 * connected workers (`workers(false)` may answer a list read a moment ago; a holder missing from
 * it is looked for again in a list read now, `workers(true)`, as it may have connected since):
 * `takeoverWithinMs` is the most time before another worker takes it over (the rest of its lock,
 * plus one stalled check at the default interval). `undefined` when the run is not active, or its
 * worker still holds it.
 *
 * @example
 * ```ts
 * const lost = await lostHold(redis, queue, 'order-1234', () => connectedWorkers(queue)); // { takeoverWithinMs: 41_200 }
 * ```
 */
export async function lostHold(redis: Redis, queue: Queue, id: string, workers: (fresh: boolean) => Promise<Set<string> | undefined>): Promise<{ takeoverWithinMs: number } | undefined> {
  const answers = await redis.multi().lpos(queue.toKey('active'), id).pttl(`${queue.toKey(id)}:lock`).hget(queue.toKey(id), 'pb').exec();
  if (!answers || answers.some(([error]) => error)) return undefined;
  const [position, ttl, holder] = answers.map(([, value]) => value as unknown);
  if (position === null || typeof ttl !== 'number') return undefined;
  // -2: no lock left on an active run (its worker stopped renewing it); -1 never happens to a lock.
  const unlocked = ttl === -2;
  const named = typeof holder === 'string' && holder !== '';
  const gone = !unlocked && named && (await workers(false))?.has(holder) === false && (await workers(true))?.has(holder) === false;
  if (!unlocked && !gone) return undefined;
  return { takeoverWithinMs: Math.max(0, ttl) + QUEUE_DEFAULTS.stalledIntervalMs };
}
