// The queue's own Redis keys, beside BullMQ's: the reason a worker paused the queue, cancel
// requests (any process writes them, the worker holding the run reads them), the guard that makes
// a cloud job's cancel happen once, and the tombstone of a queued run removed by a cancel.
import type { Redis } from 'ioredis';
import type { PauseReason } from './option-types.js';

// Writes a job's data only while the caller's token is its lock (BullMQ keeps the lock at `<job key>:lock`).
const HOLDING_WRITE = `if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('EXISTS', KEYS[2]) == 1 then redis.call('HSET', KEYS[2], 'data', ARGV[2]) return 1 end return 0`;

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
   * Writes a run's data on its BullMQ job only while `token` still holds the job's lock, in one
   * step (a script): a worker whose hold lapsed (a Redis outage, a stall) writes nothing, and
   * whoever took the run over reads what was there. Returns whether it was written.
   */
  async writeIfHolding(runId: string, token: string, data: unknown): Promise<boolean> {
    const key = `${this.#jobs}${runId}`;
    const written = await this.#redis.eval(HOLDING_WRITE, 2, `${key}:lock`, key, token, JSON.stringify(data));
    return written === 1;
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

  /** Asks whichever worker holds the run (now or later) to cancel it. */
  async requestCancel(runId: string): Promise<void> {
    await this.#redis.set(`${this.#base}cancel:${runId}`, String(Date.now()), 'EX', this.#ttl);
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
