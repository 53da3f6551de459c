import type { RunFaults } from '../faults/run-faults.js';
import { encodePng } from '../files/png.js';
import type { FileStore } from '../files/store.js';
import { sleep } from '../server/sleep.js';
import type { JobSnapshot } from '../types/public.js';
import { executeNode, NodeFailure, type NodeResult, type PartnerCall } from './node-behaviour.js';
import type { NodeDefinition } from './nodes.js';
import type { PromptNode } from './prompt-validation.js';
import { describeInputs, executionOrder, isBlocked, resolveInputs, signaturesOf } from './run-graph.js';
import type { Audience, SocketHub } from './socket-hub.js';

/**
 * A submitted workflow and everything the simulator knows about it.
 *
 * @example
 * runner.get(promptId)?.status; // 'completed'
 */
export interface Job extends JobSnapshot {
  userId: string;
  prompt: Record<string, PromptNode>;
  outputNodes: string[];
  extraData: Record<string, unknown>;
  /** Fault decisions fixed at submission. */
  faults: RunFaults;
  createdAt: number;
  updatedAt: number;
  startedAt?: number;
  endedAt?: number;
  messages: [string, Record<string, unknown>][];
  interrupted: boolean;
}

/**
 * Dependencies of the {@link CloudRunner}.
 *
 * @example
 * new CloudRunner({ hub, store, defs, signal, stepDelayMs: 5, progressSteps: 3, partner, log });
 */
export interface RunnerDeps {
  hub: SocketHub;
  store: FileStore;
  defs: () => Record<string, NodeDefinition>;
  signal: AbortSignal;
  stepDelayMs: number;
  progressSteps: number;
  partner: PartnerCall;
  log: (line: string) => void;
  /** Jobs of the account run at once; the others wait (`pending`), as on the cloud. @default 1 */
  accountConcurrency?: number;
}

/**
 * The most jobs the simulator saw at once: `running` (executing) and `unfinished` (submitted and
 * not ended: pending or running).
 *
 * @example
 * sim.state.peaks(); // { running: 2, unfinished: 5 }
 */
export interface JobPeaks {
  running: number;
  unfinished: number;
}

/**
 * Runs submitted workflows, `accountConcurrency` at a time (one by default), and streams their
 * events in the order of the real runtime.
 *
 * @example
 * const job = runner.create({ ... });
 * await runner.enqueue(job);
 */
export class CloudRunner {
  readonly #deps: RunnerDeps;
  readonly #jobs = new Map<string, Job>();
  readonly #queue: Job[] = [];
  readonly #cache = new Map<string, NodeResult>();
  readonly #counters = new Map<string, number>();
  readonly #idle: (() => void)[] = [];
  readonly #preview = encodePng(8, 8, [32, 96, 160]);
  readonly #running = new Set<Job>();
  readonly #peaks: JobPeaks = { running: 0, unfinished: 0 };
  #number = 0;

  constructor(deps: RunnerDeps) {
    this.#deps = deps;
  }

  /** The socket hub the runner streams to. */
  get hub(): SocketHub {
    return this.#deps.hub;
  }

  /** Releases `waitForIdle()` callers when the simulator closes. */
  dispose(): void {
    this.#queue.length = 0;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Registers a validated job (status `pending`). */
  create(fields: Pick<Job, 'id' | 'userId' | 'clientId' | 'prompt' | 'outputNodes' | 'extraData' | 'faults'>): Job {
    const now = Date.now();
    const job: Job = { ...fields, number: this.#number++, status: 'pending', outputs: {}, createdAt: now, updatedAt: now, messages: [], interrupted: false };
    this.#jobs.set(job.id, job);
    return job;
  }

  get(id: string): Job | undefined {
    return this.#jobs.get(id);
  }

  all(): Job[] {
    return [...this.#jobs.values()];
  }

  /** Jobs waiting or running. */
  queueRemaining(): number {
    return this.#queue.length + this.#running.size;
  }

  /** The most jobs seen at once, running and unfinished. */
  peaks(): JobPeaks {
    return { ...this.#peaks };
  }

  #notePeaks(): void {
    this.#peaks.running = Math.max(this.#peaks.running, this.#running.size);
    this.#peaks.unfinished = Math.max(this.#peaks.unfinished, this.queueRemaining());
  }

  /** Queues a job; with `finishBeforeResponse` the whole run happens before this resolves. */
  async enqueue(job: Job): Promise<void> {
    if (job.faults.beforeResponse) {
      await this.#run(job, 0);
      return;
    }
    this.#queue.push(job);
    this.#notePeaks();
    await this.#status({ userId: job.userId });
    void this.#pump();
  }

  /** Flags the running jobs of a user (optionally only the one of a given id) for interruption. */
  interrupt(userId: string, promptId?: string): boolean {
    let flagged = false;
    for (const job of this.#running) {
      if (job.userId !== userId || (promptId && job.id !== promptId)) continue;
      job.interrupted = true;
      flagged = true;
    }
    return flagged;
  }

  /** Removes pending jobs from the queue (they become `cancelled`); returns their ids. */
  cancelPending(userId: string, ids: string[] | 'all'): string[] {
    const removed: string[] = [];
    for (const job of [...this.#queue]) {
      if (job.userId !== userId || (ids !== 'all' && !ids.includes(job.id))) continue;
      this.#queue.splice(this.#queue.indexOf(job), 1);
      this.#finish(job, 'cancelled');
      removed.push(job.id);
    }
    return removed;
  }

  /** Resolves when nothing is queued or running. */
  waitForIdle(): Promise<void> {
    if (this.queueRemaining() === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async #pump(): Promise<void> {
    if (this.#running.size >= (this.#deps.accountConcurrency ?? 1)) return;
    const job = this.#queue.shift();
    if (!job) {
      if (this.#running.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
      return;
    }
    this.#running.add(job);
    this.#notePeaks();
    // Start the next one too, up to the account's limit.
    void this.#pump();
    try {
      await this.#run(job, this.#deps.stepDelayMs);
    } catch (error) {
      if (!this.#deps.signal.aborted) this.#deps.log(`[cloud] run ${job.id} crashed: ${String(error)}`);
    } finally {
      this.#running.delete(job);
    }
    if (!this.#deps.signal.aborted) void this.#pump();
  }

  #finish(job: Job, status: Job['status'], errorMessage?: string): void {
    job.status = status;
    job.updatedAt = Date.now();
    job.endedAt = job.updatedAt;
    if (errorMessage !== undefined) job.errorMessage = errorMessage;
  }

  async #status(audience: Audience): Promise<void> {
    await this.#deps.hub.sendJson(audience, 'status', { status: { exec_info: { queue_remaining: this.queueRemaining() } } });
  }

  async #run(job: Job, delay: number): Promise<void> {
    const { hub, signal } = this.#deps;
    const defs = this.#deps.defs();
    const audience: Audience = { userId: job.userId, clientId: job.clientId };
    const emit = async (type: string, data: Record<string, unknown>, history = false): Promise<void> => {
      if (history) job.messages.push([type, data]);
      // Lost on the way (the record keeps it): see docs/simulator.md#faults.
      if (job.faults.dropsMessage(type)) return;
      await hub.sendJson(audience, type, data);
    };
    const pause = (): Promise<void> => (delay > 0 ? sleep(delay, signal) : Promise.resolve());
    const prompt_id = job.id;
    job.status = 'in_progress';
    job.startedAt = job.updatedAt = Date.now();

    const order = executionOrder(job.prompt, job.outputNodes);
    const signatures = signaturesOf(job.prompt, order, this.#deps.store);
    const cached = order.filter((id) => this.#cache.has(signatures.get(id) ?? ''));
    await emit('execution_start', { prompt_id, timestamp: Date.now() }, true);
    if (job.faults.garbageFrames) await hub.sendGarbage(audience);
    await emit('execution_cached', { nodes: cached, prompt_id, timestamp: Date.now() }, true);

    const results = new Map<string, NodeResult>();
    const executed: string[] = [];
    const states: Record<string, Record<string, unknown>> = {};
    let outcome: 'completed' | 'failed' | 'cancelled' = 'completed';
    for (const id of order) {
      const node = job.prompt[id];
      const signature = signatures.get(id) ?? id;
      if (!node) continue;
      if (job.interrupted) {
        outcome = 'cancelled';
        await emit('execution_interrupted', { prompt_id, node_id: id, node_type: node.class_type, executed, timestamp: Date.now() }, true);
        break;
      }
      const hit = cached.includes(id) ? this.#cache.get(signature) : undefined;
      if (hit) {
        results.set(id, hit);
        if (hit.ui) {
          job.outputs[id] = hit.ui;
          if (!job.faults.cachedWithoutExecuted) await emit('executed', { node: id, display_node: id, output: hit.ui, prompt_id });
        }
        continue;
      }
      const inputs = resolveInputs(node, results);
      const blocked = Object.values(inputs).find((value) => isBlocked(value));
      if (blocked) {
        // An ExecutionBlocker skips the consuming node; its message is a non-terminal error (no timestamp).
        results.set(id, { value: { kind: 'blocked', message: '' }, ui: undefined });
        if (blocked.message) {
          await emit('execution_error', {
            prompt_id, node_id: id, node_type: node.class_type, executed: [...executed],
            exception_message: `Execution Blocked: ${blocked.message}`, exception_type: 'ExecutionBlocked',
            traceback: [], current_inputs: [], current_outputs: [],
          });
        }
        continue;
      }
      const steps = this.#deps.progressSteps;
      states[id] = { value: 0, max: steps, state: 'running', node_id: id, prompt_id, display_node_id: id, parent_node_id: null, real_node_id: id };
      await pause();
      await emit('progress_state', { prompt_id, nodes: structuredClone(states) });
      await emit('executing', { node: id, display_node: id, prompt_id });
      // Loading a file shows no preview; nodes that compute an image do.
      const makesImage = node.class_type !== 'LoadImage' && (defs[node.class_type]?.output.includes('IMAGE') ?? false);
      for (let value = 1; value <= steps; value += 1) {
        await pause();
        await emit('progress', { value, max: steps, prompt_id, node: id });
        if (makesImage) {
          await hub.sendPreview(audience, this.#preview, { node_id: id, prompt_id, display_node_id: id, parent_node_id: null, real_node_id: id, image_type: 'image/png' });
        }
      }
      let result: NodeResult;
      try {
        result = await executeNode(node.class_type, inputs, {
          nodeId: id, signature, store: this.#deps.store, extraData: job.extraData, partner: this.#deps.partner,
          nextCounter: (folder) => this.#next(folder),
          onText: (text) => hub.sendText(audience, id, text),
        });
      } catch (error) {
        if (!(error instanceof NodeFailure)) throw error;
        outcome = 'failed';
        job.errorMessage = error.message;
        states[id] = { ...states[id], state: 'error' };
        await emit('execution_error', {
          prompt_id, node_id: id, node_type: node.class_type, executed: [...executed],
          exception_message: error.message, exception_type: error.exceptionType,
          traceback: ['Traceback (most recent call last):\n', `  File "execution.py", line 496, in execute\n`, `${error.exceptionType}: ${error.message}\n`],
          current_inputs: describeInputs(inputs), current_outputs: {}, timestamp: Date.now(),
        }, true);
        break;
      }
      states[id] = { ...states[id], value: steps, state: 'finished' };
      results.set(id, result);
      this.#cache.set(signature, result);
      executed.push(id);
      if (result.ui) {
        job.outputs[id] = result.ui;
        await emit('executed', { node: id, display_node: id, output: result.ui, prompt_id });
      }
      if (job.faults.dropSocketsNow()) hub.drop(audience);
    }
    if (outcome === 'completed') await emit('execution_success', { prompt_id, timestamp: Date.now() }, true);
    this.#finish(job, outcome);
    this.#running.delete(job);
    await this.#status(audience);
    await emit('executing', { node: null, display_node: null, prompt_id });
    job.faults.end();
  }

  #next(folder: string): number {
    const value = (this.#counters.get(folder) ?? 0) + 1;
    this.#counters.set(folder, value);
    return value;
  }
}
