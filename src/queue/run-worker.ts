/// <reference lib="esnext.disposable" preserve="true" />
// The consumer side of graphcloud/queue: a BullMQ Worker whose processor is processRun(), plus
// what BullMQ does not know: the cancel requests of other processes, the queue-wide pause on an
// account-level refusal, and, on a local runtime, the probe that pauses this worker while its
// runtime does not answer and resumes it after. See docs/queue.md.
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { callSafely, ConnectionError, sleep, TimeoutError } from '../core/index.js';
import { CloudClient } from '../cloud/client.js';
import { ProxyClient } from '../proxy/client.js';
import { checkClientOptions, QUEUE_DEFAULTS, WORKER_RULES } from './options.js';
import { processRun, type ProcessDeps, type RunControl } from './process-run.js';
import { bullConnection, openRedis, RunStore } from './store.js';
import { RunBudget } from './budget.js';
import type { CloseWorkerOptions, RunWorkerOptions } from './types.js';

/** Failed probes in a row after which the runs in flight on a local runtime are handed back. */
const PROBES_BEFORE_HAND_BACK = 2;

/**
 * Runs the queue's runs: submits each once, stores its prompt or task id the moment it is known,
 * watches it, and stores its result. Any number of workers, on any machines, share one queue; one
 * worker per local runtime URL forms a pool.
 *
 * @example
 * ```ts
 * import { RunWorker } from 'graphcloud/queue';
 * await using worker = new RunWorker({ connection: 'redis://127.0.0.1:6379', name: 'renders', cloud: { baseUrl, apiKey }, concurrency: 8 });
 * ```
 */
export class RunWorker {
  /** The queue's name. */
  readonly name: string;
  readonly #worker: Worker;
  readonly #queue: Queue;
  /** Cancel requests of other processes, on the store's pub/sub channel. */
  readonly #cancels: Redis;
  readonly #subscribed: Promise<unknown>;
  readonly #redis: Redis;
  readonly #cloud: CloudClient | undefined;
  readonly #proxy: ProxyClient | undefined;
  /** The runs this worker holds, by id: where a cancel request reaches them (BullMQ aborts their signals, cancelJob()). */
  readonly #inFlight = new Map<string, RunControl>();
  readonly #closing = new AbortController();
  readonly #probeIntervalMs: number;
  readonly #log: (line: string) => void;
  #down = false;
  #closed: Promise<void> | undefined;

  constructor(options: RunWorkerOptions) {
    checkClientOptions('new RunWorker()', options, WORKER_RULES, (check, given) => {
      if (given.cloud === undefined && given.runtime === undefined && given.proxy === undefined) check.fail('options.cloud', 'cloud options, a runtime URL, or proxy options: where the worker sends runs', undefined);
    });
    const prefix = options.prefix ?? QUEUE_DEFAULTS.prefix;
    this.name = options.name;
    this.#probeIntervalMs = options.probeIntervalMs ?? QUEUE_DEFAULTS.probeIntervalMs;
    this.#log = (line) => callSafely(options.onLog, `[worker ${options.name}] ${line}`);
    const local = options.runtime !== undefined;
    this.#cloud = local ? new CloudClient({ ...options.cloud, baseUrl: options.runtime as string, runtime: 'local' }) : options.cloud ? new CloudClient(options.cloud) : undefined;
    this.#proxy = options.proxy ? new ProxyClient(options.proxy) : undefined;
    this.#redis = openRedis(options.connection);
    this.#redis.on('error', () => undefined);
    const connection = bullConnection(options.connection);
    const store = new RunStore(this.#redis, prefix, options.name, QUEUE_DEFAULTS.keepFinishedSeconds);
    this.#queue = new Queue(options.name, { connection, prefix });
    this.#queue.on('error', () => undefined);
    const deps: ProcessDeps = {
      cloud: this.#cloud,
      proxy: this.#proxy,
      runtime: this.#cloud?.baseUrl ?? this.#proxy?.baseUrl ?? '',
      local,
      store,
      publish: (runId, state, ids) => store.publishState(runId, state, ids).catch(() => undefined),
      pauseQueue: async (reason) => {
        // Paused first: whoever reads the reason finds the queue paused.
        await this.#queue.pause();
        await store.setPauseReason(reason);
      },
      runtimeDown: () => this.#markDown(),
      progressIntervalMs: options.progressIntervalMs ?? QUEUE_DEFAULTS.progressIntervalMs,
      recoverScanLimit: QUEUE_DEFAULTS.recoverScanLimit,
      submitTimeoutMs: QUEUE_DEFAULTS.submitTimeoutMs,
      recoverWindowMs: options.recoverWindowMs ?? QUEUE_DEFAULTS.recoverWindowMs,
      log: this.#log,
      budget: new RunBudget(this.#redis, prefix, options.name),
    };
    // Three parameters: BullMQ then gives each run a signal of its own, aborted by cancelJob().
    this.#worker = new Worker(options.name, (job: Job, token: string | undefined, signal: AbortSignal | undefined) => this.#process(deps, job, token, signal), {
      connection,
      prefix,
      concurrency: options.concurrency ?? QUEUE_DEFAULTS.workerConcurrency,
      lockDuration: options.lockDurationMs ?? QUEUE_DEFAULTS.lockDurationMs,
      stalledInterval: options.stalledIntervalMs ?? QUEUE_DEFAULTS.stalledIntervalMs,
      maxStalledCount: QUEUE_DEFAULTS.maxStalledCount,
      // A name of its own, on its Redis connections and on each run it takes: whoever reads the
      // queue tells a run whose worker is gone (lostHold(), store.ts).
      name: `w-${globalThis.crypto.randomUUID()}`,
    });
    this.#worker.on('error', (error) => this.#log(`error: ${error.message}`));
    // Cancel requests of other processes, for the runs this worker holds: a message each; after a
    // reconnect (messages sent meanwhile are lost) the flags of the runs in flight are read again.
    this.#cancels = this.#redis.duplicate();
    this.#cancels.on('error', () => undefined);
    this.#cancels.on('message', (_channel: string, runId: string) => this.#inFlight.get(runId)?.cancel());
    let connections = 0;
    this.#cancels.on('ready', () => {
      connections += 1;
      if (connections > 1) void this.#readCancels(store);
    });
    this.#subscribed = this.#cancels.subscribe(store.cancelChannel);
    this.#subscribed.catch(() => undefined);
    if (local) void this.#monitor();
  }

  /**
   * Resolves once the worker is connected and takes runs.
   *
   * @example
   * ```ts
   * await worker.ready();
   * ```
   */
  async ready(): Promise<void> {
    await Promise.all([this.#worker.waitUntilReady(), this.#subscribed]);
  }

  /**
   * Runs this worker holds now.
   *
   * @example
   * ```ts
   * console.log(worker.inFlight);
   * ```
   */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Stops taking runs, then hands the runs in flight back to the queue with their stored prompt or
   * task ids (the next worker watches them; none is sent again), or with `finish: true` waits for
   * them to end. Closes every connection.
   *
   * @example
   * ```ts
   * process.on('SIGTERM', () => void worker.close());
   * ```
   */
  async close(options?: CloseWorkerOptions): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing.abort('close');
      if (options?.finish !== true) this.#worker.cancelAllJobs('close');
      await this.#worker.close();
      this.#cancels.disconnect();
      await Promise.allSettled([this.#queue.close(), this.#cloud?.close(), this.#proxy?.close()]);
      this.#redis.disconnect();
    })();
    await this.#closed;
  }

  /**
   * Calls `close()`: `await using worker = new RunWorker(...)`.
   *
   * @example
   * ```ts
   * { await using worker = new RunWorker({ connection, name: 'renders', runtime: 'http://127.0.0.1:8188' }); await untilSignal(); }
   * ```
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #process(deps: ProcessDeps, job: Job, token: string | undefined, signal: AbortSignal | undefined): Promise<unknown> {
    // Until the run's watch takes over `cancel`, a request is remembered for it.
    const control: RunControl = { signal: signal ?? new AbortController().signal, cancel: () => void (control.cancelRequested = true) };
    const runId = String(job.id);
    this.#inFlight.set(runId, control);
    // Taken as the worker began to close: handed back at once (BullMQ tracks it by now).
    if (this.#closing.signal.aborted) this.#worker.cancelJob(runId, 'close');
    try {
      return await processRun(deps, job, token, control);
    } finally {
      this.#inFlight.delete(runId);
    }
  }

  /** Cancels the runs in flight whose cancel was requested while the channel was down. */
  async #readCancels(store: RunStore): Promise<void> {
    const requested = await store.cancelsRequested([...this.#inFlight.keys()]).catch(() => []);
    for (const runId of requested) this.#inFlight.get(runId)?.cancel();
  }

  /** The local runtime stopped answering: take no runs here until it answers again. */
  #markDown(): void {
    if (this.#down || this.#closing.signal.aborted) return;
    this.#down = true;
    this.#log(`runtime ${this.#cloud?.baseUrl ?? ''} does not answer: paused, probing`);
    void this.#worker.pause(true).catch(() => undefined);
  }

  /** Probes the local runtime while runs are in flight or while paused for it; hands back, resumes. */
  async #monitor(): Promise<void> {
    const cloud = this.#cloud as CloudClient;
    let failures = 0;
    while (!this.#closing.signal.aborted) {
      await sleep(this.#probeIntervalMs, this.#closing.signal).catch(() => undefined);
      if (this.#closing.signal.aborted) return;
      if (!this.#down && this.#inFlight.size === 0) continue;
      const up = await cloud.jobs.getQueue({ timeout: QUEUE_DEFAULTS.probeTimeoutMs, retry: false }).then(
        () => true,
        (error: unknown) => !(error instanceof ConnectionError || error instanceof TimeoutError),
      );
      failures = up ? 0 : failures + 1;
      if (failures >= PROBES_BEFORE_HAND_BACK) {
        this.#markDown();
        this.#worker.cancelAllJobs('runtime-down');
      }
      if (up && this.#down) {
        this.#down = false;
        this.#log(`runtime ${cloud.baseUrl} answers again: resumed`);
        this.#worker.resume();
      }
    }
  }
}
