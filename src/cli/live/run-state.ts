import type { WatchEvent, Workflow } from '../../index.js';

/** Where a run is. */
export type RunPhase = 'preparing' | 'pending' | 'running' | 'cancelling' | 'finished';

/**
 * What the progress display shows of a run, kept up to date from the job's events: the phase,
 * the node running and its steps, how many nodes are done, the queue position while pending.
 *
 * @example
 * ```ts
 * const state = new RunState(workflow, Date.now());
 * state.onEvent(event);
 * state.fraction(); // 0.42
 * ```
 */
export class RunState {
  phase: RunPhase = 'preparing';
  /** What is being prepared, while `preparing` (checking, uploading). */
  activity = 'checking the workflow';
  promptId: string | undefined;
  /** 1-based position in the queue while pending, when the server tells it. */
  queuePosition: number | undefined;
  /** Jobs left in the server's queue (`status` messages), when no position is known. */
  queueRemaining: number | undefined;
  node: string | undefined;
  value = 0;
  max = 0;
  readonly startedAt: number;
  readonly #names = new Map<string, string>();
  readonly #done = new Set<string>();
  #total: number;

  constructor(workflow: Workflow | undefined, startedAt: number) {
    this.startedAt = startedAt;
    for (const [id, node] of Object.entries(workflow ?? {})) {
      const title = node._meta?.title;
      this.#names.set(id, title && title !== node.class_type ? `${title} (${node.class_type})` : node.class_type);
    }
    this.#total = this.#names.size;
  }

  /** Nodes done (run or cached) and the number of nodes of the workflow (0 when unknown). */
  get counts(): { done: number; total: number } {
    return { done: this.#done.size, total: this.#total };
  }

  /** A node's name for people: `KSampler #3`, `Positive (CLIPTextEncode) #6`. */
  nodeName(id: string): string {
    const name = this.#names.get(id);
    return name ? `${name} #${id}` : `node ${id}`;
  }

  /** Overall progress from 0 to 1 (nodes done plus the running node's share), or undefined when unknown. */
  fraction(): number | undefined {
    if (this.#names.size === 0) return undefined;
    if (this.phase === 'finished') return 1;
    const current = this.node && !this.#done.has(this.node) && this.max > 0 ? this.value / this.max : 0;
    return Math.min(1, (this.#done.size + current) / this.#total);
  }

  /** The job was accepted. */
  submitted(promptId: string): void {
    this.promptId = promptId;
    if (this.phase === 'preparing') this.phase = 'pending';
  }

  /** Feeds one event of the job. */
  onEvent(event: WatchEvent): void {
    switch (event.type) {
      case 'status': {
        const remaining = event.data.status?.exec_info?.queue_remaining;
        if (typeof remaining === 'number') this.queueRemaining = remaining;
        return;
      }
      case 'execution_start':
        this.#run();
        return;
      case 'execution_cached':
        this.#run();
        for (const id of event.data.nodes ?? []) this.#finishNode(id);
        return;
      case 'executing':
        if (event.data.node === null) {
          if (this.node) this.#finishNode(this.node);
          this.node = undefined;
          return;
        }
        this.#run();
        if (this.node && this.node !== event.data.node) this.#finishNode(this.node);
        this.node = event.data.node;
        this.value = 0;
        this.max = 0;
        return;
      case 'progress':
        this.#run();
        if (event.data.node && event.data.node !== this.node) {
          if (this.node) this.#finishNode(this.node);
          this.node = event.data.node;
        }
        this.value = event.data.value;
        this.max = event.data.max;
        return;
      case 'executed':
        this.#finishNode(event.data.node);
        return;
      case 'execution_success':
        if (this.node) this.#finishNode(this.node);
        this.node = undefined;
        return;
      default:
        return;
    }
  }

  #run(): void {
    if (this.phase === 'pending' || this.phase === 'preparing') this.phase = 'running';
    this.queuePosition = undefined;
  }

  #finishNode(id: string): void {
    this.#done.add(id);
    // A node the workflow does not list (a server-side expansion) still counts.
    if (this.#names.size > 0 && !this.#names.has(id) && this.#done.size > this.#total) this.#total = this.#done.size;
  }
}
