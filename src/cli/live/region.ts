import type { TerminalStream } from '../base/io.js';
import type { Interrupts } from '../base/interrupts.js';
import type { Output } from '../base/output.js';
import { truncate } from '../base/style.js';

const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
const CLEAR_LINE = '\x1b[2K';
const REDRAW_MS = 120;

/**
 * A few lines at the bottom of the terminal, redrawn in place: each line is cut to the width
 * (a line that wrapped would break the redraw), lines written through `Output` appear above it,
 * a resize redraws it, and the cursor comes back when it stops (also on a second Ctrl-C).
 *
 * @example
 * ```ts
 * const region = new LiveRegion(out, stdout, interrupts, (columns, frame) => [`${frame} working`]);
 * region.start();
 * region.stop(); // clears it; print the summary after
 * ```
 */
export class LiveRegion {
  readonly #out: Output;
  readonly #stream: TerminalStream;
  readonly #render: (columns: number, tick: number) => string[];
  readonly #removeCleanup: () => void;
  #height = 0;
  #tick = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running = false;
  readonly #onResize = (): void => this.draw();

  constructor(out: Output, stream: TerminalStream, interrupts: Interrupts, render: (columns: number, tick: number) => string[]) {
    this.#out = out;
    this.#stream = stream;
    this.#render = render;
    this.#removeCleanup = interrupts.addCleanup(() => this.stop());
  }

  /** Draws the region and keeps it fresh (the spinner and the clock) until `stop()`. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#out.raw(HIDE_CURSOR);
    this.#out.setLiveHooks(() => this.#clear(), () => this.draw());
    this.#stream.on?.('resize', this.#onResize);
    this.#timer = setInterval(() => {
      this.#tick += 1;
      this.draw();
    }, REDRAW_MS);
    this.#timer.unref?.();
    this.draw();
  }

  /** Draws the current state now (after an event). */
  draw(): void {
    if (!this.#running) return;
    const columns = this.#out.columns;
    // One column is kept free: writing the last column makes some terminals wrap early.
    const lines = this.#render(columns, this.#tick).map((line) => truncate(line, columns - 1));
    // Lines of the last frame below the new one are blanked one by one, never with "clear to the
    // end of the screen": tmux (scroll-on-clear) would push a frame drawn at the top into history.
    const leftover = Math.max(0, this.#height - lines.length);
    const blank = leftover > 0 ? `${`\x1b[1B${CLEAR_LINE}`.repeat(leftover)}\x1b[${leftover}A` : '';
    this.#out.raw(`${this.#home()}${lines.map((line) => `${CLEAR_LINE}${line}`).join('\n')}${blank}`);
    this.#height = lines.length;
  }

  /** Clears the region and gives the terminal back (cursor shown, lines written normally again). */
  stop(): void {
    if (!this.#running) return;
    this.#running = false;
    clearInterval(this.#timer);
    this.#stream.off?.('resize', this.#onResize);
    this.#out.setLiveHooks(undefined, undefined);
    this.#clear();
    this.#out.raw(SHOW_CURSOR);
    this.#removeCleanup();
  }

  #clear(): void {
    if (this.#height === 0) return;
    const down = this.#height > 1 ? `${`\x1b[1B${CLEAR_LINE}`.repeat(this.#height - 1)}\x1b[${this.#height - 1}A` : '';
    this.#out.raw(`${this.#home()}${CLEAR_LINE}${down}`);
    this.#height = 0;
  }

  /** Back to the first column of the region's first line. */
  #home(): string {
    return this.#height > 1 ? `\r\x1b[${this.#height - 1}A` : '\r';
  }
}
