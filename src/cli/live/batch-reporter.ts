import type { RunCost, WatchEvent, Workflow } from '../../index.js';
import type { CommandContext } from '../base/command.js';
import { formatMs } from '../base/errors.js';
import { formatSpent } from '../base/money.js';
import { BatchState } from './batch-state.js';
import { lostText, renderBatch, workerCommand } from './batch-view.js';
import { LiveRegion } from './region.js';

/**
 * How one set ended, as the batch reports it.
 *
 * @example
 * ```ts
 * const end: SetEnd = { status: 'done', promptId: 'p1', saved: [{ nodeId: '9', filename: 'a.png', path: 'out/1/a.png' }] };
 * ```
 */
export interface SetEnd {
  status: 'done' | 'failed' | 'cancelled';
  promptId?: string | undefined;
  /** Why it failed: the node's error, or the SDK's message. */
  error?: string | undefined;
  /** The outputs, as the job listed them (when they were not saved). */
  outputs?: Record<string, unknown> | undefined;
  saved?: { nodeId: string; filename: string; path: string }[] | undefined;
  /** What its job spent, as the server's price texts said (none: undefined). */
  cost?: RunCost | undefined;
}

/** What the reporter knows of a set: its number and line. */
interface SetRef {
  index: number;
  line: number;
}

/**
 * Reports a batch as it goes, in the output's mode: a live table on a terminal (failures are
 * printed above it as they happen); one line per set ended for `--human` off a terminal; and with
 * `--json` or in a pipe one JSON object per submission and per result, then a summary. Events of
 * the jobs update the table; they are not printed (a batch has thousands).
 *
 * @example
 * ```ts
 * const reporter = new BatchReporter(ctx, sets.length, workflow);
 * reporter.started(set);
 * reporter.ended(set, { status: 'done', promptId });
 * reporter.stop();
 * ```
 */
export class BatchReporter {
  readonly state: BatchState;
  readonly #ctx: CommandContext;
  readonly #region: LiveRegion | undefined;
  /** What the sets that reported a price spent: the summary's sum (undefined while none did). */
  #spent: { credits: number; usd: number } | undefined;

  constructor(ctx: CommandContext, total: number, workflow: Workflow | undefined) {
    this.#ctx = ctx;
    this.state = new BatchState(total, workflow, Date.now());
    const { out, io, interrupts } = ctx;
    this.#region = out.live ? new LiveRegion(out, io.stdout, interrupts, (columns, tick) => renderBatch(this.state, columns, tick, out.style, Date.now())) : undefined;
    this.#region?.start();
  }

  /** What the batch does before its runs start. */
  preparing(activity: string | undefined): void {
    this.state.activity = activity;
    this.#region?.draw();
  }

  /** A set started (once; a second call changes nothing). */
  started(set: SetRef): void {
    if (!this.state.active.has(set.index)) this.state.start(set.index, Date.now());
  }

  /** A set's job was accepted. */
  submitted(set: SetRef, promptId: string): void {
    this.state.submitted(set.index, promptId);
    this.#ctx.out.json({ type: 'submitted', set: set.index, line: set.line, promptId });
  }

  /** One event of a set's job: the table shows it at its next redraw. */
  onEvent(set: SetRef, event: WatchEvent): void {
    this.state.onEvent(set.index, event);
  }

  /** The share of a set done, as a queue's worker reports it. */
  progress(set: SetRef, fraction: number): void {
    this.state.progress(set.index, fraction);
  }

  /**
   * How many workers are connected to the batch's queue (`undefined`: Redis does not say). Going to
   * none, and back, is reported once each: a batch whose runs nobody runs says so.
   */
  workers(queue: string, count: number | undefined): void {
    const none = count === 0 ? queue : undefined;
    if (none === this.state.noWorker) return;
    this.state.noWorker = none;
    const { out } = this.#ctx;
    if (none !== undefined) {
      out.json({ type: 'no-worker', queue });
      if (!this.#region) out.human(`${out.style('yellow', '⚠')} No worker is connected to queue ${queue}: the runs wait for one. Start one with \`${workerCommand(queue)}\`.`);
    } else {
      out.json({ type: 'workers', queue, workers: count });
      if (!this.#region) out.human(`  ${count} worker${count === 1 ? '' : 's'} connected to queue ${queue}.`);
    }
    this.#region?.draw();
  }

  /**
   * Whether the worker holding a set's run is gone: `withinMs` is the most time before another
   * takes it over, `undefined` once one holds it (or it never was lost). Each loss is reported once.
   */
  workerLost(set: SetRef, withinMs: number | undefined): void {
    const active = this.state.active.get(set.index);
    if (!active) return;
    const was = active.lostUntil;
    active.lostUntil = withinMs === undefined ? undefined : Date.now() + withinMs;
    if (withinMs === undefined || was !== undefined) return;
    const { out } = this.#ctx;
    out.json({ type: 'worker-lost', set: set.index, line: set.line, takeoverWithinMs: withinMs });
    if (!this.#region) out.human(`${out.style('yellow', '⚠')} Set ${set.index} (line ${set.line}): ${lostText(active.lostUntil!, Date.now(), this.state.noWorker)}`);
    this.#region?.draw();
  }

  /** A set ended; `quiet` prints no human line for it (a set never sent, cancelled with the batch). */
  ended(set: SetRef, end: SetEnd, quiet = false): void {
    this.state.finish(set.index, end.status);
    if (end.cost) this.#spent = { credits: (this.#spent?.credits ?? 0) + end.cost.credits, usd: (this.#spent?.usd ?? 0) + end.cost.usd };
    const { out } = this.#ctx;
    out.json({ type: 'result', set: set.index, line: set.line, ...end });
    if (quiet) return;
    const job = end.promptId ? ` job ${end.promptId}` : '';
    if (end.status === 'failed') {
      out.human(`${out.style('red', '✖')} Set ${set.index} (line ${set.line}) failed${job}: ${end.error ?? 'no reason given'}`);
      return;
    }
    // On a terminal the table counts them; a log gets one line per set.
    if (this.#region) return;
    if (end.status === 'cancelled') out.human(`${out.style('yellow', '■')} Set ${set.index} (line ${set.line}) cancelled${job}`);
    else out.human(`${out.style('green', '✔')} Set ${set.index} (line ${set.line}) completed${job}${end.saved?.length ? `: ${end.saved.length} file${end.saved.length === 1 ? '' : 's'} saved` : ''}`);
  }

  /** The first Ctrl-C: what the batch added is being cancelled. */
  cancelling(): void {
    const { out } = this.#ctx;
    this.state.cancelling = true;
    out.json({ type: 'cancelling' });
    out.notice(`${out.errorStyle('yellow', '⚠')} Cancelling the batch's jobs; no new set starts… (Ctrl-C again leaves now)`);
    this.#region?.draw();
  }

  /** Ends the live table and prints the summary. */
  finish(out: string | undefined): void {
    this.#region?.stop();
    const { out: output } = this.#ctx;
    const { done, failed, cancelled } = this.state.counts;
    const { total } = this.state;
    const elapsedMs = Date.now() - this.state.startedAt;
    const spent = this.#spent && { credits: Math.round(this.#spent.credits * 100) / 100, usd: this.#spent.usd };
    output.json({ type: 'summary', total, done, failed, cancelled, elapsedMs, spent });
    const mark = failed > 0 ? output.style('red', '✖') : cancelled > 0 ? output.style('yellow', '■') : output.style('green', '✔');
    const others = [failed > 0 ? `${failed} failed` : '', cancelled > 0 ? `${cancelled} cancelled` : ''].filter(Boolean).join(', ');
    output.human(`${mark} ${output.style('bold', `${done} of ${total} set${total === 1 ? '' : 's'} completed`)}${others ? `, ${others}` : ''} in ${formatMs(elapsedMs)}${spent ? `; spent ${formatSpent(spent)}` : ''}`);
    if (out && done > 0) output.human(`  Outputs in ${out}, one folder per set.`);
  }

  /** Stops the live display without a summary (an error ends the batch). */
  stop(): void {
    this.#region?.stop();
  }
}
