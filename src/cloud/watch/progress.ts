import type { JobProgress, WatchEvent } from './events.js';

/**
 * Follows how far along a whole job is from its events: nodes done (run, or served from cache),
 * the node running and its share, over the nodes of the workflow when they are known. The hub
 * keeps one per watched job (its record's `progress`); every watcher of the job reads the same
 * snapshots.
 *
 * @example
 * ```ts
 * const progress = new ProgressTracker('p1');
 * progress.setNodes(Object.keys(workflow));
 * if (progress.update(event)) console.log(progress.progress.fraction);
 * ```
 */
export class ProgressTracker {
  /** The id of the job. */
  readonly promptId: string;
  // Made at the first node done or cached: a job mostly sends `progress` before either.
  #done: Set<string> | undefined;
  #cached: Set<string> | undefined;
  #total: number | undefined;
  #node: string | undefined;
  #share = 0;
  #finished = false;
  // What the last change reported: an update compares against it and builds nothing; the frozen
  // snapshot is built when it is read (progress messages nobody reads the job's progress for build none).
  #reportedDone = 0;
  #reportedCached = 0;
  #reportedTotal: number | undefined;
  #reportedNode: string | undefined;
  #reportedShare = 0;
  #reportedFraction: number | undefined;
  #snapshot: JobProgress | undefined;

  constructor(promptId: string) {
    this.promptId = promptId;
  }

  /** The latest overall progress (a new frozen object after every change). */
  get progress(): JobProgress {
    this.#snapshot ??= Object.freeze({
      promptId: this.promptId,
      done: this.#reportedDone,
      cached: this.#reportedCached,
      total: this.#reportedTotal,
      node: this.#reportedNode,
      nodeFraction: this.#reportedShare,
      fraction: this.#reportedFraction,
    });
    return this.#snapshot;
  }

  /** The ids of the workflow's nodes: the first call sets the total, later ones are ignored; true when the overall progress changed. */
  setNodes(ids: readonly string[]): boolean {
    // Only `setNodes` sets a total (the nodes done raise it once set): a later call finds it set.
    if (this.#total !== undefined) return false;
    this.#total = Math.max(new Set(ids).size, this.#done?.size ?? 0);
    return this.#refresh();
  }

  /** Feeds one event of the job; true when the overall progress changed. */
  update(event: WatchEvent): boolean {
    switch (event.type) {
      case 'execution_cached':
        for (const id of event.data.nodes ?? []) {
          if (!this.#done?.has(String(id))) (this.#cached ??= new Set()).add(String(id));
          this.#finishNode(String(id));
        }
        break;
      case 'executing':
        if (event.data.node === null) this.#finishRunning();
        else this.#start(String(event.data.node));
        break;
      case 'progress': {
        if (event.data.node !== undefined && event.data.node !== null) this.#start(String(event.data.node));
        const { value, max } = event.data;
        // A node reports `value` of `max` steps; anything else leaves its share as it was.
        if (Number.isFinite(value) && Number.isFinite(max) && max > 0) this.#share = Math.min(1, Math.max(0, value / max));
        break;
      }
      case 'executed':
        this.#finishNode(String(event.data.node));
        break;
      case 'execution_success':
        return this.complete();
      default:
        // `execution_start` and the others change nothing this tracker reports.
        return false;
    }
    return this.#refresh();
  }

  /** The job completed (its `execution_success`, or learned by polling without any message): every node counts as done. */
  complete(): boolean {
    this.#finishRunning();
    this.#finished = true;
    return this.#refresh();
  }

  #start(id: string): void {
    if (this.#node === id) return;
    this.#finishRunning();
    this.#node = id;
  }

  /** The running node is done (`#finishNode` lets it go), and the share goes back to 0. */
  #finishRunning(): void {
    if (this.#node !== undefined) this.#finishNode(this.#node);
    this.#share = 0;
  }

  #finishNode(id: string): void {
    const done = (this.#done ??= new Set());
    done.add(id);
    if (this.#node === id) {
      this.#node = undefined;
      this.#share = 0;
    }
    // A node the workflow does not list (expanded by the server) still counts.
    if (this.#total !== undefined && done.size > this.#total) this.#total = done.size;
  }

  #refresh(): boolean {
    const total = this.#total;
    const doneNow = this.#done?.size ?? 0;
    const done = this.#finished && total !== undefined ? Math.max(total, doneNow) : doneNow;
    let fraction: number | undefined;
    if (this.#finished) fraction = 1;
    else if (total !== undefined && total > 0) fraction = Math.min(1, (done + this.#share) / total);
    const cached = this.#cached?.size ?? 0;
    const node = this.#node;
    const share = this.#share;
    if (done === this.#reportedDone && cached === this.#reportedCached && total === this.#reportedTotal && node === this.#reportedNode && share === this.#reportedShare && fraction === this.#reportedFraction) return false;
    this.#reportedDone = done;
    this.#reportedCached = cached;
    this.#reportedTotal = total;
    this.#reportedNode = node;
    this.#reportedShare = share;
    this.#reportedFraction = fraction;
    this.#snapshot = undefined;
    return true;
  }
}
