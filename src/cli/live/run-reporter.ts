import type { WatchEvent, Workflow } from '../../index.js';
import type { CommandContext } from '../base/command.js';
import { LiveRegion } from './region.js';
import { RunState } from './run-state.js';
import { renderRun } from './run-view.js';

/**
 * Reports a run as it goes, in the output's mode: a live display on a terminal, plain lines for
 * `--human` off a terminal, and one JSON object per event with `--json` or in a pipe (preview
 * images are described, never printed).
 *
 * @example
 * ```ts
 * const reporter = new RunReporter(ctx, workflow);
 * await cloud.runWorkflow(workflow, { onSubmitted: (s) => reporter.submitted(s.promptId), onEvent: (e) => reporter.onEvent(e) });
 * reporter.stop();
 * ```
 */
export class RunReporter {
  readonly state: RunState;
  readonly #ctx: CommandContext;
  readonly #region: LiveRegion | undefined;
  #lastNode: string | undefined;

  constructor(ctx: CommandContext, workflow: Workflow | undefined) {
    this.#ctx = ctx;
    this.state = new RunState(workflow, Date.now());
    const { out, io, interrupts } = ctx;
    this.#region = out.live ? new LiveRegion(out, io.stdout, interrupts, (columns, tick) => renderRun(this.state, columns, tick, out.style, Date.now())) : undefined;
    this.#region?.start();
  }

  /** What is being prepared (checking the workflow, uploading). */
  preparing(activity: string): void {
    this.state.activity = activity;
    this.#region?.draw();
  }

  /** The job was accepted: its id is printed at once, so an interrupted session loses nothing. */
  submitted(promptId: string): void {
    this.state.submitted(promptId);
    const { out } = this.#ctx;
    out.json({ type: 'submitted', promptId });
    out.human(`${out.style('green', '✔')} Submitted job ${promptId}`);
  }

  /** The position of the job in the queue while it waits. */
  queued(position: number | undefined): void {
    if (this.state.phase !== 'pending') return;
    if (position !== undefined && position !== this.state.queuePosition) this.#ctx.out.json({ type: 'queue', promptId: this.state.promptId, position });
    this.state.queuePosition = position;
    this.#region?.draw();
  }

  /** The first Ctrl-C asked the server to cancel the job. */
  cancelling(): void {
    const { out } = this.#ctx;
    this.state.phase = 'cancelling';
    out.json({ type: 'cancelling', promptId: this.state.promptId });
    out.notice(`${out.errorStyle('yellow', '⚠')} Cancelling job ${this.state.promptId}… (Ctrl-C again leaves now)`);
    this.#region?.draw();
  }

  /** One event of the job. */
  onEvent(event: WatchEvent): void {
    this.state.onEvent(event);
    const { out } = this.#ctx;
    out.json(jsonEvent(event));
    if (this.#region) {
      this.#region.draw();
      return;
    }
    // Plain lines: one per node started (the SDK's overall progress names it), so a log shows where a run was.
    if (event.type === 'job_progress' && event.data.node !== undefined && event.data.node !== this.#lastNode) {
      this.#lastNode = event.data.node;
      const { done, total } = event.data;
      out.human(`  running ${this.state.nodeName(event.data.node)}${total ? ` (${done} of ${total} nodes done)` : ''}`);
    }
  }

  /** Ends the live display; the caller prints the outcome next. */
  stop(): void {
    this.state.phase = 'finished';
    this.#region?.stop();
  }
}

/** A watch event as a JSON line: the SDK's `{ type, data }`, with preview bytes left out. */
function jsonEvent(event: WatchEvent): Record<string, unknown> {
  if (event.type === 'preview') {
    const { data, ...rest } = event.data;
    return { type: 'preview', data: { ...rest, bytes: data.byteLength } };
  }
  return { type: event.type, data: event.data };
}
