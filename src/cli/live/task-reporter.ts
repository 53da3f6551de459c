import type { ProxyClient } from '../../index.js';
import type { CommandContext } from '../base/command.js';
import { clock } from '../base/values.js';
import { LiveRegion } from './region.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Reports the wait for a media task: one live line on a terminal (`⠹ upscale task 1f2e…
 * running 37% 00:04`), a line per phase with `--human` off a terminal, and one JSON object per
 * status change otherwise.
 *
 * @example
 * ```ts
 * const reporter = new TaskReporter(ctx, 'upscale', taskId);
 * await proxy.waitForTask(task, { onUpdate: (s) => reporter.update(s) });
 * reporter.stop();
 * ```
 */
export class TaskReporter {
  readonly #ctx: CommandContext;
  readonly #region: LiveRegion | undefined;
  readonly #startedAt = Date.now();
  readonly #label: string;
  #phase: string | undefined;
  #progress: number | undefined;

  constructor(ctx: CommandContext, kind: string, taskId: string) {
    this.#ctx = ctx;
    this.#label = `${kind} task ${taskId}`;
    const { out, io, interrupts } = ctx;
    this.#region = out.live
      ? new LiveRegion(out, io.stdout, interrupts, (columns, tick) => {
          const parts = [out.style('cyan', SPINNER[tick % SPINNER.length]!), out.style('bold', this.#phase ?? 'submitted'), this.#progress !== undefined ? `${Math.round(this.#progress)}%` : '', out.style('dim', clock(Date.now() - this.#startedAt))];
          return [[...parts.slice(0, 1), columns >= 50 ? this.#label : '', ...parts.slice(1)].filter(Boolean).join('  ')];
        })
      : undefined;
    this.#region?.start();
  }

  /** A status read of the task. */
  update(status: ProxyClient.TaskStatus): void {
    const changed = status.phase !== this.#phase || status.progress !== this.#progress;
    const phaseChanged = status.phase !== this.#phase;
    this.#phase = status.phase;
    this.#progress = status.progress;
    if (!changed) return;
    const { out } = this.#ctx;
    out.json({ type: 'status', kind: status.kind, taskId: status.taskId, phase: status.phase, status: status.status, ...(status.progress !== undefined ? { progress: status.progress } : {}) });
    if (this.#region) this.#region.draw();
    else if (phaseChanged) out.human(`  ${this.#label} is ${status.phase} (${status.status})`);
  }

  /** Ends the live line. */
  stop(): void {
    this.#region?.stop();
  }
}
