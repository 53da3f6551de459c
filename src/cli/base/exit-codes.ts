/**
 * The exit codes of `graphcloud`, one per outcome a script may want to tell apart. docs/cli.md
 * lists them; the help of every command ends with the same table.
 *
 * @example
 * ```ts
 * if (result.status === 'cancelled') return EXIT.cancelled;
 * ```
 */
export const EXIT = Object.freeze({
  /** The command did what it was asked. */
  ok: 0,
  /** The job or media task ran and failed. */
  failed: 1,
  /** A bad command, flag, value or input file: nothing was sent. */
  usage: 2,
  /** A credential is missing, or the service refused it. */
  auth: 3,
  /** `--timeout` passed: `run` cancels its job; a watched job or task goes on (its id is printed). */
  timeout: 4,
  /** The job was cancelled (Ctrl-C, `jobs cancel`, or elsewhere). */
  cancelled: 5,
  /** The service or the network failed, or a local file could not be written. */
  error: 6,
  /** Left at once with a second Ctrl-C: the job goes on; its id is printed. */
  interrupted: 130,
});

/** One of the exit codes above. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The table shown by `graphcloud --help` and docs/cli.md. */
export const EXIT_CODE_HELP: readonly (readonly [number, string])[] = Object.freeze([
  [EXIT.ok, 'success'],
  [EXIT.failed, 'the job or task failed'],
  [EXIT.usage, 'usage error (bad command, flag, value or file); nothing was sent'],
  [EXIT.auth, 'authentication: a key is missing or was refused'],
  [EXIT.timeout, 'timeout: --timeout passed (run cancels its job; a watched job or task goes on)'],
  [EXIT.cancelled, 'the job was cancelled'],
  [EXIT.error, 'the service or the network failed'],
  [EXIT.interrupted, 'left at once with a second Ctrl-C; the job goes on (its id is printed)'],
]);
