import type { CliIo } from './io.js';
import { VERSION } from './version.js';

/**
 * The CLI's view of this process: its streams, environment and signals. The one place that
 * reads `process.env` (docs/architecture.md#layers: only command-line entries do).
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(ROOT, process.argv.slice(2), processIo());
 * ```
 */
export function processIo(): CliIo {
  // A reader that went away (`graphcloud run x | head -1`) must not crash a run that is cancelling.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // eslint-disable-next-line no-restricted-syntax -- the command line is configured by its environment
    env: process.env,
    onSignal: (signal, listener) => {
      process.on(signal, listener);
      return () => process.off(signal, listener);
    },
    exit: (code) => process.exit(code),
    version: VERSION,
  };
}
