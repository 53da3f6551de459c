import type { CloudClient, WatchEvent, Workflow } from '../../index.js';

/** Where a run is. */
export type RunPhase = 'preparing' | 'pending' | 'running' | 'cancelling' | 'finished';

/**
 * What the progress display shows of a run, kept up to date from the job's events: the phase,
 * the node running and its steps, the queue position while pending, and the job's overall
 * progress as the SDK reports it (`job_progress`).
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
  /** The node running, as the SDK's overall progress names it. */
  node: string | undefined;
  /** The running node's steps (its last `progress` message). */
  value = 0;
  max = 0;
  readonly startedAt: number;
  readonly #names = new Map<string, string>();
  #progress: CloudClient.JobProgress | undefined;

  constructor(workflow: Workflow | undefined, startedAt: number) {
    this.startedAt = startedAt;
    for (const [id, node] of Object.entries(workflow ?? {})) {
      const title = node._meta?.title;
      this.#names.set(id, title && title !== node.class_type ? `${title} (${node.class_type})` : node.class_type);
    }
  }

  /** Nodes done (run or cached) and the number of nodes of the workflow (0 when unknown). */
  get counts(): { done: number; total: number } {
    return { done: this.#progress?.done ?? 0, total: this.#progress?.total ?? this.#names.size };
  }

  /** A node's name for people: `KSampler #3`, `Positive (CLIPTextEncode) #6`. */
  nodeName(id: string): string {
    const name = this.#names.get(id);
    return name ? `${name} #${id}` : `node ${id}`;
  }

  /** Overall progress from 0 to 1 (the SDK's `job_progress`), or undefined when unknown. */
  fraction(): number | undefined {
    if (this.#names.size === 0) return undefined;
    if (this.phase === 'finished') return 1;
    return this.#progress?.fraction ?? 0;
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
      case 'execution_cached':
      case 'executing':
        this.#run();
        return;
      case 'progress':
        this.#run();
        this.value = event.data.value;
        this.max = event.data.max;
        return;
      case 'job_progress':
        this.#progress = event.data;
        if (event.data.node !== this.node) {
          this.node = event.data.node;
          // The new node's steps come with its own `progress` messages.
          if (event.data.nodeFraction === 0) this.value = this.max = 0;
        }
        return;
      default:
        return;
    }
  }

  #run(): void {
    if (this.phase === 'pending' || this.phase === 'preparing') this.phase = 'running';
    this.queuePosition = undefined;
  }
}
