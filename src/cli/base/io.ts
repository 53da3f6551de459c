import type { OutStream } from './style.js';

/**
 * A stream the process writes to, with the terminal's resize event.
 *
 * @example
 * ```ts
 * const stdout: TerminalStream = process.stdout;
 * ```
 */
export interface TerminalStream extends OutStream {
  on?(event: 'resize', listener: () => void): unknown;
  off?(event: 'resize', listener: () => void): unknown;
}

/**
 * Everything the CLI takes from the process, so it can also run inside a test.
 *
 * @example
 * ```ts
 * const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env, onSignal, exit: process.exit, version: '0.1.0' };
 * ```
 */
export interface CliIo {
  stdout: TerminalStream;
  stderr: OutStream;
  env: Readonly<Record<string, string | undefined>>;
  /** Subscribes to SIGINT or SIGTERM; returns the unsubscribe function. */
  onSignal(signal: 'SIGINT' | 'SIGTERM', listener: () => void): () => void;
  /** Leaves the process at once (a second Ctrl-C). */
  exit(code: number): never;
  version: string;
  /**
   * Starts this command line again, with the same arguments, in a process of its own that outlives
   * this one; resolves with its id and the first message it sends through `starter` (it is then
   * let go), rejects with what it printed on stderr when it exits first. Absent where processes
   * cannot be started.
   */
  startDetached?(): Promise<{ pid: number; message: unknown }>;
  /** Set in a process that `startDetached()` started: `notify()` hands its message over and lets the starter go. */
  starter?: { notify(message: unknown): void } | undefined;
}
