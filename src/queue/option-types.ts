// The options and answers of RunQueue and RunWorker (types only: nothing here loads BullMQ).
import type { CloudClientOptions } from '../cloud/client.js';
import type { ProxyClientOptions } from '../proxy/options.js';
import type { RunErrorInfo } from './errors/run-failed-error.js';
import type { RunInfo, RunState } from './types.js';
import type { BudgetStatus } from './budget.js';

/**
 * Where Redis is: ioredis options (`{ host, port, password, tls, db }`) or a `redis://` /
 * `rediss://` URL.
 *
 * @example
 * ```ts
 * const connection: RedisConnection = { host: 'redis.internal', port: 6379 };
 * ```
 */
export type RedisConnection =
  | string
  | {
      /** @default '127.0.0.1' */
      host?: string | undefined;
      /** @default 6379 */
      port?: number | undefined;
      /** The ACL user. */
      username?: string | undefined;
      /** The password (never printed by the SDK). */
      password?: string | undefined;
      /** The database number. @default 0 */
      db?: number | undefined;
      /** TLS options (`{}` for defaults), as Node's `tls.connect` takes them. */
      tls?: object | undefined;
      /** Any other ioredis option. */
      [option: string]: unknown;
    };

/**
 * Options of `new RunQueue()`.
 *
 * @example
 * ```ts
 * new RunQueue({ connection: 'redis://redis.internal:6379', name: 'renders', cloud: { baseUrl, apiKey } });
 * ```
 */
export interface RunQueueOptions {
  /** Where Redis is. */
  connection: RedisConnection;
  /** The queue's name: every queue and worker of one name share its runs. */
  name: string;
  /** The cloud uploads go to when a run is added, and that converts UI-format workflows. */
  cloud?: CloudClientOptions | undefined;
  /** Prefix of the queue's Redis keys. @default QUEUE_DEFAULTS.prefix */
  prefix?: string | undefined;
  /** The most bytes of one run's data in Redis. @default QUEUE_DEFAULTS.maxRunBytes */
  maxRunBytes?: number | undefined;
  /** How long finished runs are kept, in seconds. @default QUEUE_DEFAULTS.keepFinishedSeconds */
  keepFinishedSeconds?: number | undefined;
}

/**
 * Options of `queue.add()`.
 *
 * @example
 * ```ts
 * await queue.add(spec, { id: 'order-1234', priority: 1 });
 * ```
 */
export interface AddRunOptions {
  /** The run's id, unique in the queue: adding an id twice gives the run already there. @default a UUID */
  id?: string | undefined;
  /** 1 (first) to 2,097,152; runs without a priority come first. */
  priority?: number | undefined;
  /** Aborts the uploads before the run is added. */
  signal?: AbortSignal | undefined;
}

/**
 * Options of `queue.list()`.
 *
 * @example
 * ```ts
 * const { runs, hasMore } = await queue.list({ state: 'failed', offset: 0, limit: 50 });
 * ```
 */
export interface ListRunsOptions {
  /** Only runs in this state. @default 'queued' */
  state?: RunState | undefined;
  /** Runs to skip. @default 0 */
  offset?: number | undefined;
  /** Runs per page, 1 to 1000. @default 100 */
  limit?: number | undefined;
}

/**
 * One page of `queue.list()`.
 *
 * @example
 * ```ts
 * for (const run of (await queue.list({ state: 'running' })).runs) console.log(run.id, run.promptId);
 * ```
 */
export interface RunPage {
  /** The runs of this page in that state (a page can hold fewer than `limit`: see docs/queue.md). */
  runs: RunInfo[];
  /** The offset asked. */
  offset: number;
  /** More runs follow. */
  hasMore: boolean;
}

/**
 * Why the queue is paused: an account-level refusal a worker met (authentication, payment
 * required, subscription inactive), readable from any process.
 *
 * @example
 * ```ts
 * const reason = await queue.getPauseReason();
 * if (reason) console.log(`paused: ${reason.error.name} (${reason.error.status})`);
 * ```
 */
export interface PauseReason {
  /**
   * `account`: a refusal of the account (`error` says which); `budget`: the next run's estimate
   * would cross the queue's budget (`queue.setBudget()`; `error` names the amounts).
   */
  kind: 'account' | 'budget';
  /** The refusal. */
  error: RunErrorInfo;
  /** The run whose submission met it (it went back to waiting). */
  runId: string;
  /** When, in ms since the epoch. */
  at: number;
}

/**
 * The queue at a glance (`queue.status()`).
 *
 * @example
 * ```ts
 * const { counts, paused, pauseReason, concurrency, budget } = await queue.status();
 * ```
 */
export interface QueueStatus {
  /** Runs per place in the queue: waiting, active (submitting or running), completed, failed, delayed. */
  counts: Record<'waiting' | 'active' | 'completed' | 'failed' | 'delayed', number>;
  /** Whether workers take no new runs. */
  paused: boolean;
  /** Why, when a worker paused it. */
  pauseReason: PauseReason | undefined;
  /** The queue's concurrency across every worker (`setConcurrency()`), or `undefined` for none. */
  concurrency: number | undefined;
  /** Workers connected to the queue now, or `undefined` where Redis does not list its clients (CLIENT LIST refused). */
  workers: number | undefined;
  /** The queue's budget in USD (`setBudget()`): its limit, what the window spent, what runs in flight reserved; `undefined` for none. */
  budget: BudgetStatus | undefined;
}

/**
 * What `queue.cancel()` did: `removed` (it was queued: it is never submitted), `requested` (it is
 * submitting or running: the worker that holds it cancels its job once), or `ended` (nothing to
 * do: it had ended or is unknown).
 *
 * @example
 * ```ts
 * const { action } = await queue.cancel('order-1234');
 * ```
 */
export interface CancelRunResult {
  /** The run. */
  runId: string;
  /** What was done. */
  action: 'removed' | 'requested' | 'ended';
  /** Its state before. */
  state: RunState | undefined;
}

/**
 * Options of `new RunWorker()`.
 *
 * @example
 * ```ts
 * new RunWorker({ connection, name: 'renders', cloud: { baseUrl, apiKey }, concurrency: 8 });
 * new RunWorker({ connection, name: 'renders', runtime: 'http://gpu-box-1:8188' });
 * ```
 */
export interface RunWorkerOptions {
  /** Where Redis is. */
  connection: RedisConnection;
  /** The queue's name. */
  name: string;
  /** The cloud the worker submits to. Give this or `runtime`. */
  cloud?: CloudClientOptions | undefined;
  /** A local runtime's URL: the worker submits there (one worker per runtime forms a pool). */
  runtime?: string | undefined;
  /** The media proxy, for task runs. */
  proxy?: ProxyClientOptions | undefined;
  /** Runs this worker holds at once. @default QUEUE_DEFAULTS.workerConcurrency */
  concurrency?: number | undefined;
  /** Prefix of the queue's Redis keys. @default QUEUE_DEFAULTS.prefix */
  prefix?: string | undefined;
  /** @default QUEUE_DEFAULTS.lockDurationMs */
  lockDurationMs?: number | undefined;
  /** @default QUEUE_DEFAULTS.stalledIntervalMs */
  stalledIntervalMs?: number | undefined;
  /** @default QUEUE_DEFAULTS.probeIntervalMs */
  probeIntervalMs?: number | undefined;
  /**
   * How long after a run was marked "submitting" its request may still create the job: a worker
   * that takes such a run over and finds no tagged job looks again at the end of this window
   * before the run ends `unknown`. Keep it above `QUEUE_DEFAULTS.submitTimeoutMs`.
   * @default QUEUE_DEFAULTS.recoverWindowMs
   */
  recoverWindowMs?: number | undefined;
  /** @default QUEUE_DEFAULTS.progressIntervalMs */
  progressIntervalMs?: number | undefined;
  /** Called with what the worker does (taken over, handed back, paused...). What it throws is dropped. */
  onLog?: ((line: string) => unknown) | undefined;
}

/**
 * Options of `worker.close()`.
 *
 * @example
 * ```ts
 * await worker.close({ finish: true });
 * ```
 */
export interface CloseWorkerOptions {
  /**
   * Wait for the runs in flight to end. By default they are handed back at once with their stored
   * prompt or task ids: the next worker watches them, never submits them again.
   * @default false
   */
  finish?: boolean | undefined;
}
