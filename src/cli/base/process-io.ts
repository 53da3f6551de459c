import { spawn } from 'node:child_process';
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
    startDetached,
    starter: process.send ? { notify: (message) => (process.send!(message), process.disconnect()) } : undefined,
  };
}

/**
 * This command line again (the same Node, entry and arguments), detached: its own process group
 * (a Ctrl-C of the shell does not reach it), no stdin or stdout, stderr read until it is ready,
 * and a message channel for its ready message.
 */
function startDetached(): Promise<{ pid: number; message: unknown }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { detached: true, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const failed = (reason: string): void => reject(new Error(stderr.trim() || reason));
    child.once('error', (error) => failed(error.message));
    child.once('exit', (code) => failed(`it exited (code ${code ?? 'none'}) before it was ready`));
    child.once('message', (message) => {
      child.removeAllListeners('exit');
      // Its later lines on stderr go nowhere: the starter leaves now.
      child.stderr!.destroy();
      child.disconnect();
      child.unref();
      resolve({ pid: child.pid!, message });
    });
  });
}
