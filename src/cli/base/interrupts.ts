import type { CliIo } from './io.js';
import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';

/**
 * What to print when the CLI leaves at once (a second Ctrl-C, or SIGTERM): the human sentence
 * and the JSON line, naming the work that goes on.
 *
 * @example
 * ```ts
 * interrupts.setLeaveNotice(() => ({ text: `Job ${id} goes on.`, json: { type: 'left', promptId: id } }));
 * ```
 */
export type LeaveNotice = () => { text: string; json: Record<string, unknown> } | undefined;

/**
 * Ctrl-C, the way the CLI promises it: the first press stops the command (or, while a job runs,
 * asks the server to cancel it and waits for the answer); a second press leaves at once, after
 * printing the id of whatever goes on running. SIGTERM leaves at once too.
 *
 * @example
 * ```ts
 * const interrupts = new Interrupts(io, out);
 * interrupts.takeFirstPress(() => cancelJob());
 * await work(interrupts.signal);
 * interrupts.dispose();
 * ```
 */
export class Interrupts {
  readonly #controller = new AbortController();
  readonly #io: CliIo;
  readonly #out: Output;
  readonly #unsubscribe: (() => void)[];
  readonly #cleanups = new Set<() => void>();
  #firstPress: (() => void) | undefined;
  #terminate: (() => void) | undefined;
  #leaveNotice: LeaveNotice | undefined;
  #presses = 0;

  constructor(io: CliIo, out: Output) {
    this.#io = io;
    this.#out = out;
    this.#unsubscribe = [io.onSignal('SIGINT', () => this.#press()), io.onSignal('SIGTERM', () => (this.#terminate ? this.#terminate() : this.#leave(143)))];
  }

  /** Aborted by the first Ctrl-C when no command took it over; its reason is a `CliError` (exit 130). */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** While set, the first Ctrl-C calls `handler` instead of aborting `signal`. */
  takeFirstPress(handler: (() => void) | undefined): void {
    this.#firstPress = handler;
  }

  /** While set, SIGTERM calls `handler` (a clean stop) instead of leaving at once with 143. */
  takeTerminate(handler: (() => void) | undefined): void {
    this.#terminate = handler;
  }

  /** What to print if the CLI leaves at once. */
  setLeaveNotice(notice: LeaveNotice | undefined): void {
    this.#leaveNotice = notice;
  }

  /** Runs `cleanup` before leaving at once (a live display restores the cursor); returns its removal. */
  addCleanup(cleanup: () => void): () => void {
    this.#cleanups.add(cleanup);
    return () => this.#cleanups.delete(cleanup);
  }

  /** Stops listening to signals. */
  dispose(): void {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
  }

  #press(): void {
    this.#presses += 1;
    if (this.#presses === 1) {
      if (this.#firstPress) {
        this.#firstPress();
        return;
      }
      this.#controller.abort(new CliError('Interrupted.', undefined, EXIT.interrupted));
      return;
    }
    this.#leave(EXIT.interrupted);
  }

  #leave(code: number): never {
    for (const cleanup of this.#cleanups) {
      try {
        cleanup();
      } catch {
        // Leaving must not fail.
      }
    }
    const notice = this.#leaveNotice?.();
    if (notice) {
      this.#out.json({ ...notice.json, exitCode: code });
      this.#out.notice(notice.text);
    }
    return this.#io.exit(code);
  }
}
