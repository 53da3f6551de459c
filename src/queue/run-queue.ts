/// <reference lib="esnext.disposable" preserve="true" />
// The producer side of graphcloud/queue: adds runs (uploads first, then the job), tells where
// runs stand, cancels them from any process, and sets the one concurrency limit of every worker
// (BullMQ's global concurrency). See docs/queue.md.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Checker, ClientClosedError, type GraphcloudError } from '../core/index.js';
import { CloudClient } from '../cloud/client.js';
import { assertRunBytes, checkRunSpec, listRuns, prepareWork, readRunData, tombstoneInfo, toRunInfo, type JobPlace, type RunData } from './run.js';
import { checkClientOptions, checkRunId, QUEUE_DEFAULTS, QUEUE_RULES } from './options.js';
import { RunFailedError, toRunError } from './errors.js';
import { Run, RunFeed } from './run-handle.js';
import { bullConnection, connectedWorkers, lostHold, openRedis, RunStore } from './store.js';
import { RunBudget } from './budget.js';
import { ENDED_STATES, type AddRunOptions, type Budget, type CancelRunResult, type ListRunsOptions, type PauseReason, type QueueStatus, type RunInfo, type RunPage, type RunQueueOptions, type RunSpec } from './types.js';

/** How long one read of the connected workers serves `get()`, in ms. */
const WORKERS_READ_MS = 1_000;

/**
 * A queue of runs in Redis, shared by every process that names it: any process adds runs, reads
 * them, cancels them; `RunWorker`s on any machine run them.
 *
 * @example
 * ```ts
 * import { RunQueue } from 'graphcloud/queue';
 * await using queue = new RunQueue({ connection: { host: '127.0.0.1', port: 6379 }, name: 'renders', cloud: { baseUrl, apiKey } });
 * const run = await queue.add({ workflow, inputs: { 'KSampler.seed': 42 } }, { id: 'order-1234' });
 * console.log(await run.result());
 * ```
 */
export class RunQueue {
  /** The queue's name. */
  readonly name: string;
  readonly #queue: Queue;
  readonly #redis: Redis;
  readonly #store: RunStore;
  readonly #budget: RunBudget;
  readonly #feed: RunFeed;
  readonly #cloudOptions: RunQueueOptions['cloud'];
  readonly #maxRunBytes: number;
  readonly #keepSeconds: number;
  #cloud: CloudClient | undefined;
  #closed = false;
  /** The workers connected, as last read (`get()` of many running runs reads them once). */
  #workers: { at: number; names: Promise<Set<string> | undefined> } | undefined;
  /** Settles once the run last given to add() is stored (or failed): the next one is stored after it. */
  #storing: Promise<void> = Promise.resolve();

  constructor(options: RunQueueOptions) {
    checkClientOptions('new RunQueue()', options, QUEUE_RULES);
    const prefix = options.prefix ?? QUEUE_DEFAULTS.prefix;
    this.name = options.name;
    this.#keepSeconds = options.keepFinishedSeconds ?? QUEUE_DEFAULTS.keepFinishedSeconds;
    this.#maxRunBytes = options.maxRunBytes ?? QUEUE_DEFAULTS.maxRunBytes;
    this.#cloudOptions = options.cloud;
    this.#redis = openRedis(options.connection);
    this.#redis.on('error', () => undefined);
    const connection = bullConnection(options.connection);
    this.#queue = new Queue(options.name, { connection, prefix });
    this.#queue.on('error', () => undefined);
    this.#store = new RunStore(this.#redis, prefix, options.name, this.#keepSeconds);
    this.#budget = new RunBudget(this.#redis, prefix, options.name);
    this.#feed = new RunFeed(options.name, { prefix, connection });
  }

  /**
   * Adds a run: uploads its files to the cloud, then stores it (JSON only, at most `maxRunBytes`).
   * Adding an id already in the queue gives that run, without uploading or storing anything. Runs
   * added at once are stored, and so started, in the order `add()` was called; their uploads
   * overlap, and each distinct file is uploaded once (the client keeps what it uploaded).
   *
   * @throws `ValidationError` for a bad spec, option or a run beyond `maxRunBytes` (nothing is stored).
   * @example
   * ```ts
   * const run = await queue.add({ workflow, uploads: { 'Photo.image': './in.png' } }, { id: 'order-1234' });
   * ```
   */
  async add(spec: RunSpec, options?: AddRunOptions): Promise<Run> {
    const check = new Checker();
    checkRunSpec(check, spec);
    if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) check.fail('options', 'an options object', typeof options);
    if (options?.id !== undefined) checkRunId(check, 'options.id', options.id);
    if (options?.priority !== undefined) check.integer('options.priority', options.priority, { min: 1, max: 2_097_152 });
    check.throwIfInvalid('queue.add()');
    this.#throwIfClosed();
    const id = options?.id ?? globalThis.crypto.randomUUID();
    // Runs are stored in the order add() was called (workers take them in that order), while
    // their preparations (uploads) overlap: each waits for the one called before it to be stored.
    const previous = this.#storing;
    let stored!: () => void;
    this.#storing = new Promise<void>((resolve) => (stored = resolve));
    try {
      if (options?.id !== undefined && (await this.#queue.getJob(id))) return this.run(id);
      const work = await prepareWork(spec, this.#cloudClient(), { signal: options?.signal });
      const data: RunData = { v: 1, work, addedAt: Date.now() };
      assertRunBytes(data, this.#maxRunBytes);
      const keep = { age: this.#keepSeconds };
      await previous;
      await this.#queue.add(work.kind, data, { jobId: id, priority: options?.priority, attempts: 1, removeOnComplete: keep, removeOnFail: keep });
      return this.run(id);
    } finally {
      stored();
    }
  }

  /**
   * A handle on a run already in the queue (added by any process).
   *
   * @example
   * ```ts
   * const result = await queue.run('order-1234').result();
   * ```
   */
  run(id: string): Run {
    const check = new Checker();
    checkRunId(check, 'id', id);
    check.throwIfInvalid('queue.run()');
    return new Run(id, { feed: this.#feed, get: (runId) => this.get(runId), error: (runId) => this.#errorOf(runId) });
  }

  /**
   * Where a run stands: state, prompt or task id once known, progress, result or error, and
   * `workerLost` while the worker holding it is gone; `undefined` for an id the queue does not
   * know (or no longer keeps: `keepFinishedSeconds`).
   *
   * @example
   * ```ts
   * const { state, promptId, progress } = (await queue.get('order-1234')) ?? {};
   * ```
   */
  async get(id: string): Promise<RunInfo | undefined> {
    const check = new Checker();
    checkRunId(check, 'id', id);
    check.throwIfInvalid('queue.get()');
    this.#throwIfClosed();
    // The place first, then the job: a job read first could complete before its place is read,
    // and read as completed without its result.
    const place = await this.#queue.getJobState(id);
    const job = place === 'unknown' ? undefined : await this.#queue.getJob(id);
    if (job) {
      const info = toRunInfo(job, place as JobPlace);
      if (place === 'active') info.workerLost = await lostHold(this.#redis, this.#queue, id, (fresh) => this.#connectedWorkers(fresh));
      return info;
    }
    const tombstone = await this.#store.readTombstone(id);
    return tombstone ? tombstoneInfo(id, tombstone) : undefined;
  }

  /**
   * One page of the runs in a state, oldest first.
   *
   * @example
   * ```ts
   * for (const run of (await queue.list({ state: 'failed', limit: 50 })).runs) console.log(run.id, run.error?.message);
   * ```
   */
  async list(options?: ListRunsOptions): Promise<RunPage> {
    this.#throwIfClosed();
    return listRuns(this.#queue, options);
  }

  /**
   * Cancels a run from any process: a queued run is removed and never submitted; a submitting or
   * running one is cancelled by the worker that holds it (or takes it over), its cloud job once.
   *
   * @example
   * ```ts
   * const { action } = await queue.cancel('order-1234'); // 'removed' | 'requested' | 'ended'
   * ```
   */
  async cancel(id: string): Promise<CancelRunResult> {
    const info = await this.get(id);
    if (!info || ENDED_STATES.has(info.state)) return { runId: id, action: 'ended', state: info?.state };
    const job = await this.#queue.getJob(id);
    if (info.state === 'queued' && job) {
      // Removal is atomic and refused while a worker holds the run: then the worker is asked.
      const removed = await job.remove().then(() => true, () => false);
      if (removed) {
        await this.#store.writeTombstone(id, { kind: info.kind, addedAt: info.addedAt, endedAt: Date.now() });
        // Put back in line unsent after a reservation (a hand-back): it is never sent now.
        await this.#budget.settle(id, 0);
        await this.#store.publishState(id, 'cancelled');
        return { runId: id, action: 'removed', state: info.state };
      }
    }
    await this.#store.requestCancel(id);
    return { runId: id, action: 'requested', state: info.state };
  }

  /**
   * The most runs submitted at once across every worker of the queue (the account's limit: plan
   * tiers run 1, 3 or 5 jobs at once), or `null` for no limit beyond each worker's concurrency.
   *
   * @example
   * ```ts
   * await queue.setConcurrency(5);
   * ```
   */
  async setConcurrency(limit: number | null): Promise<void> {
    const check = new Checker();
    if (limit !== null) check.integer('limit', limit, { min: 1, required: true });
    check.throwIfInvalid('queue.setConcurrency()');
    this.#throwIfClosed();
    if (limit === null) await this.#queue.removeGlobalConcurrency();
    else await this.#queue.setGlobalConcurrency(limit);
  }

  /**
   * A budget in USD across every worker of the queue, over a sliding window, or `null` to remove
   * it. Before a worker sends a run it reserves the run's estimate (its maximum, from
   * `cloud.estimateCost()`) in one atomic step with the sum of what the window spent and what is
   * reserved; a run that would cross the budget is not sent: the queue pauses with the reason
   * `budget` (raise the budget or wait for the window, then `resume()`). The run's end settles its
   * reservation with what it spent (`result.cost`), or the estimate when no price arrived.
   * See docs/cost.md#a-budget-across-workers.
   *
   * @throws `ValidationError` for a budget that is not `{ usd: a number from 0 to 1e9, windowSeconds?: an integer >= 1 }` or `null`.
   * @example
   * ```ts
   * await queue.setBudget({ usd: 50, windowSeconds: 86_400 }); // $50 a day
   * ```
   */
  async setBudget(budget: Budget | null): Promise<void> {
    const check = new Checker();
    if (budget !== null) {
      if (typeof budget !== 'object' || budget === undefined || Array.isArray(budget)) check.fail('budget', '{ usd, windowSeconds? } or null', budget);
      else {
        for (const key of Object.keys(budget)) if (key !== 'usd' && key !== 'windowSeconds') check.fail(`budget.${key}`, 'no such option: usd or windowSeconds', (budget as unknown as Record<string, unknown>)[key]);
        // At most a billion dollars: its micro-dollars stay exact in Lua's numbers.
        check.number('budget.usd', budget.usd, { min: 0, max: 1e9, required: true });
        check.integer('budget.windowSeconds', budget.windowSeconds, { min: 1 });
      }
    }
    check.throwIfInvalid('queue.setBudget()');
    this.#throwIfClosed();
    await this.#budget.set(budget);
  }

  /**
   * Stops every worker from taking new runs (runs in flight go on).
   *
   * @example
   * ```ts
   * await queue.pause();
   * ```
   */
  async pause(): Promise<void> {
    this.#throwIfClosed();
    await this.#queue.pause();
  }

  /**
   * Lets workers take runs again, and forgets why the queue was paused.
   *
   * @example
   * ```ts
   * if (await queue.getPauseReason()) { await topUpCredits(); await queue.resume(); }
   * ```
   */
  async resume(): Promise<void> {
    this.#throwIfClosed();
    await this.#store.clearPauseReason();
    await this.#queue.resume();
  }

  /**
   * Why a worker paused the queue (an account-level refusal: authentication, payment required,
   * subscription inactive), or `undefined`.
   *
   * @example
   * ```ts
   * const reason = await queue.getPauseReason();
   * ```
   */
  async getPauseReason(): Promise<PauseReason | undefined> {
    this.#throwIfClosed();
    return this.#store.getPauseReason();
  }

  /**
   * Counts, pause, concurrency and the workers connected, at a glance.
   *
   * @example
   * ```ts
   * const { counts } = await queue.status();
   * console.log(`${counts.waiting} waiting, ${counts.active} in flight`);
   * ```
   */
  async status(): Promise<QueueStatus> {
    this.#throwIfClosed();
    const raw = await this.#queue.getJobCounts('waiting', 'prioritized', 'active', 'completed', 'failed', 'delayed');
    const [paused, pauseReason, concurrency, workers, budget] = await Promise.all([this.#queue.isPaused(), this.#store.getPauseReason(), this.#queue.getGlobalConcurrency(), connectedWorkers(this.#queue), this.#budget.status()]);
    const n = (key: string) => raw[key] ?? 0;
    return {
      counts: { waiting: n('waiting') + n('prioritized'), active: n('active'), completed: n('completed'), failed: n('failed'), delayed: n('delayed') },
      paused,
      pauseReason,
      concurrency: concurrency ?? undefined,
      workers: workers?.size,
      budget,
    };
  }

  /**
   * Closes the queue's connections (runs go on in Redis and in the workers).
   *
   * @example
   * ```ts
   * await queue.close();
   * ```
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([this.#feed.close(), this.#queue.close(), this.#cloud?.close()]);
    this.#redis.disconnect();
  }

  /**
   * Calls `close()`: `await using queue = new RunQueue(...)`.
   *
   * @example
   * ```ts
   * { await using queue = new RunQueue({ connection, name: 'renders' }); await queue.add(spec); }
   * ```
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #errorOf(id: string): Promise<GraphcloudError> {
    const job = await this.#queue.getJob(id);
    if (job) return toRunError(id, readRunData(job.data), job.failedReason);
    const tombstone = await this.#store.readTombstone(id);
    const info = tombstone ? tombstoneInfo(id, tombstone) : undefined;
    return new RunFailedError(id, 'cancelled', info?.error ?? { name: 'Error', message: 'the queue does not know this run (never added, or no longer kept)' }, undefined, undefined);
  }

  #cloudClient(): CloudClient | undefined {
    if (this.#cloudOptions === undefined) return undefined;
    this.#cloud ??= new CloudClient(this.#cloudOptions);
    return this.#cloud;
  }

  /** The workers connected, read at most once a second (CLIENT LIST is one line per connection of Redis), or now when `fresh`. */
  #connectedWorkers(fresh: boolean): Promise<Set<string> | undefined> {
    const now = Date.now();
    if (fresh || this.#workers === undefined || now - this.#workers.at > WORKERS_READ_MS) this.#workers = { at: now, names: connectedWorkers(this.#queue) };
    return this.#workers.names;
  }

  #throwIfClosed(): void {
    if (this.#closed) throw new ClientClosedError('RunQueue');
  }
}

