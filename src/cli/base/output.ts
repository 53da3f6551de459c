import { createStyle, type OutStream, type Style } from './style.js';

/**
 * How a command prints: `json` writes one JSON object per line on stdout (piped output, or
 * `--json`); `human` writes sentences and tables, with a live display on a terminal.
 *
 * @example
 * ```ts
 * const mode: OutputMode = process.stdout.isTTY ? 'human' : 'json';
 * ```
 */
export type OutputMode = 'json' | 'human';

/**
 * What `Output` is made of.
 *
 * @example
 * ```ts
 * new Output({ stdout: process.stdout, stderr: process.stderr, env: process.env, mode: 'human', noColor: false, secrets: [] });
 * ```
 */
export interface OutputOptions {
  stdout: OutStream;
  stderr: OutStream;
  env: Readonly<Record<string, string | undefined>>;
  mode: OutputMode;
  noColor: boolean;
  /** Values that must never be written (keys, tokens): replaced by `[REDACTED]` in every line. */
  secrets: readonly string[];
}

const REDACTED = '[REDACTED]';

/**
 * The one writer of the CLI. Every byte it writes goes through `redact()`, so a key that reached
 * a message by any path (a server echoing it, a file name) is never printed.
 *
 * @example
 * ```ts
 * out.human(`Uploaded ${name}`);            // human mode only
 * out.json({ type: 'uploaded', name });     // json mode only
 * ```
 */
export class Output {
  readonly mode: OutputMode;
  /** Styles for stdout and stderr (colours only where they are on). */
  readonly style: Style;
  readonly errorStyle: Style;
  readonly #stdout: OutStream;
  readonly #stderr: OutStream;
  readonly #secrets: string[];
  readonly #env: Readonly<Record<string, string | undefined>>;
  #beforeWrite: (() => void) | undefined;
  #afterWrite: (() => void) | undefined;

  constructor(options: OutputOptions) {
    this.mode = options.mode;
    this.#stdout = options.stdout;
    this.#stderr = options.stderr;
    this.#env = options.env;
    this.style = createStyle(options.stdout, options.env, options.noColor);
    this.errorStyle = createStyle(options.stderr, options.env, options.noColor);
    // Longest first, so a secret that contains another is replaced whole.
    const secrets = options.secrets.filter((s) => s.length >= 4);
    this.#secrets = [...new Set([...secrets, ...secrets.map((s) => JSON.stringify(s).slice(1, -1))])].sort((a, b) => b.length - a.length);
  }

  /** True for human output on a terminal that can redraw lines in place. */
  get live(): boolean {
    return this.mode === 'human' && this.#stdout.isTTY === true && this.#env.TERM !== 'dumb';
  }

  /** Terminal width of stdout (80 when unknown). */
  get columns(): number {
    const columns = this.#stdout.columns;
    return typeof columns === 'number' && columns > 0 ? columns : 80;
  }

  /** Writes a line on stdout in human mode; nothing in JSON mode. */
  human(text = ''): void {
    if (this.mode === 'human') this.#write(this.#stdout, `${text}\n`);
  }

  /** Writes one JSON object as a line on stdout in JSON mode; nothing in human mode. */
  json(value: Record<string, unknown>): void {
    if (this.mode === 'json') this.#write(this.#stdout, `${JSON.stringify(value)}\n`);
  }

  /** Writes a line on stderr, in both modes (warnings, errors, notices that must not reach a pipe's data). */
  notice(text: string): void {
    this.#write(this.#stderr, `${text}\n`);
  }

  /** Writes raw text on stdout (the live display's escape sequences). */
  raw(text: string): void {
    this.#stdout.write(this.redact(text));
  }

  /**
   * Lets a live display step aside while a line is written: `before` clears it, `after` draws
   * it again below the new line.
   */
  setLiveHooks(before: (() => void) | undefined, after: (() => void) | undefined): void {
    this.#beforeWrite = before;
    this.#afterWrite = after;
  }

  /** `text` with every secret replaced by `[REDACTED]`. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }

  #write(stream: OutStream, text: string): void {
    const hooks = stream === this.#stdout || this.#stdout.isTTY === true;
    if (hooks) this.#beforeWrite?.();
    stream.write(this.redact(text));
    if (hooks) this.#afterWrite?.();
  }
}
