import type { CommandContext, CommandSpec } from '../base/command.js';
import { ENV } from '../base/config.js';
import { CliError, usageError } from '../base/errors.js';
import { EXIT, type ExitCode } from '../base/exit-codes.js';

/**
 * Fixed demo credentials, so a standalone simulator is easy to point a client at. They open
 * nothing but the simulator on 127.0.0.1, which is why `graphcloud sim` prints them.
 */
const DEMO_CREDENTIALS = Object.freeze({
  apiKey: 'gcsim_demo_api_key',
  otherApiKey: 'gcsim_other_api_key',
  token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJkZW1vLXVzZXIifQ.demo-signature',
  memberToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJtZW1iZXItdXNlciJ9.member-signature',
});

/** The variable `--background` sets to the simulator's process id. */
const SIM_PID = 'GRAPHCLOUD_SIM_PID';

/**
 * `graphcloud sim`: the local simulator of all three APIs, until Ctrl-C.
 *
 * @example
 * ```ts
 * await runCli(root, ['sim', '--port', '8188'], io);
 * ```
 */
export const simCommand: CommandSpec = {
  name: 'sim',
  summary: 'Start the local simulator of the cloud, registry and media proxy',
  description:
    'Start the local simulator of all three APIs on 127.0.0.1 and print its URLs and demo credentials\n' +
    '(as `export` lines to paste into another shell). It runs until Ctrl-C. Also installed as `graphcloud-sim`.\n\n' +
    'With --background it starts in a process of its own, prints only the `export` lines (and\n' +
    `${SIM_PID}) once it answers, and returns: \`eval "$(graphcloud sim --background)"\` points this\n` +
    `shell at it; \`kill $${SIM_PID}\` stops it.`,
  positionals: [0, 0],
  options: {
    port: { type: 'string', value: '<n>', description: `Cloud on <n>, registry and proxy on <n>+1, files on <n>+2 (default: $${ENV.simPort}, else free ports)` },
    local: { type: 'boolean', description: 'Behave like a local runtime (no auth, /history, client-id routing)' },
    cors: { type: 'boolean', description: 'Answer CORS preflights, for browsers' },
    quiet: { type: 'boolean', description: 'Do not log each request' },
    background: { type: 'boolean', description: `Run in the background: print the export lines (with ${SIM_PID}) once ready, and return` },
    'task-duration-ms': { type: 'string', value: '<ms>', description: 'How long a media task takes (default 10000)' },
    'step-delay-ms': { type: 'string', value: '<ms>', description: 'Pause between two events of a run (default 100)' },
  },
  examples: ['graphcloud sim', 'graphcloud sim --port 8188 --cors', 'eval "$(graphcloud sim --background)" && graphcloud jobs list && kill $GRAPHCLOUD_SIM_PID'],
  run: runSim,
};

/**
 * `sim --background`: the same command in a process of its own; once it answers, its `export`
 * lines and its process id on stdout (for `eval`; `--json` gives the ready line instead), a
 * sentence on stderr, and this process returns.
 */
async function startInBackground(ctx: CommandContext): Promise<ExitCode> {
  const { out, io, options } = ctx;
  if (io.startDetached === undefined) throw new CliError('--background cannot start a process here.', 'Run `graphcloud sim` in a shell of its own.', EXIT.error);
  let started: { pid: number; message: unknown };
  try {
    started = await io.startDetached();
  } catch (error) {
    throw new CliError(`The simulator did not start in the background: ${(error as Error).message.replace(/^Error: /, '')}`, undefined, EXIT.error);
  }
  const { variables, ...ready } = started.message as { variables: [string, string][]; runtime: string };
  if (options.json === true) out.json({ ...ready, pid: started.pid });
  else out.raw([...variables, [SIM_PID, String(started.pid)]].map(([name, value]) => `export ${name}=${value}\n`).join(''));
  out.notice(`${out.errorStyle('green', '✔')} graphcloud simulator (${ready.runtime}) runs in the background, pid ${started.pid}; stop it with: kill $${SIM_PID}`);
  return EXIT.ok;
}

async function runSim(ctx: CommandContext): Promise<ExitCode> {
  const { out, options, io } = ctx;
  const help = `${ctx.path} --help`;
  const portText = (options.port as string | undefined) ?? io.env[ENV.simPort];
  const port = portText === undefined ? 0 : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65533) throw usageError(`--port takes a port number from 0 to 65533, received "${portText}".`, help);
  const number = (flag: string, fallback: number): number => {
    const text = options[flag] as string | undefined;
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) throw usageError(`--${flag} takes a number of milliseconds, received "${text}".`, help);
    return value;
  };
  const taskDurationMs = number('task-duration-ms', 10_000);
  const stepDelayMs = number('step-delay-ms', 100);
  // The starting side of --background (the started process runs the simulator below).
  if (options.background === true && io.starter === undefined) return startInBackground(ctx);
  // Imported only here: no other command loads the simulator (or `ws`).
  const { startSimulator } = await import('../../testing/index.js');
  const log = options.quiet ? undefined : (line: string): void => (out.mode === 'json' ? out.json({ type: 'log', line }) : out.human(out.style('dim', line)));
  const sim = await startSimulator({
    ...DEMO_CREDENTIALS,
    port,
    registryPort: port === 0 ? 0 : port + 1,
    filesPort: port === 0 ? 0 : port + 2,
    runtime: options.local ? 'local' : 'cloud',
    cors: options.cors === true,
    taskDurationMs,
    stepDelayMs,
    logger: log,
  });
  const urls = { cloudUrl: sim.cloudUrl, registryUrl: sim.registryUrl, proxyUrl: sim.proxyUrl, filesUrl: sim.filesUrl };
  const variables: [string, string][] = [
    [ENV.cloudUrl, sim.cloudUrl],
    [ENV.apiKey, sim.apiKey],
    [ENV.registryUrl, sim.registryUrl],
    [ENV.registryToken, sim.token],
    [ENV.proxyUrl, sim.proxyUrl],
    [ENV.proxyToken, sim.token],
  ];
  const ready = { type: 'ready', runtime: sim.runtime, ...urls, credentials: DEMO_CREDENTIALS };
  io.starter?.notify({ ...ready, variables });
  out.json(ready);
  const bold = (text: string): string => out.style('bold', text);
  out.human(`${out.style('green', '✔')} ${bold(`graphcloud simulator (${sim.runtime})`)} is running on 127.0.0.1; Ctrl-C stops it.`);
  out.human('');
  out.human('  Point the CLI or your code at it (demo credentials, valid for this simulator only):');
  for (const [name, value] of variables) out.human(`export ${name}=${value}`);
  out.human('');
  out.human(out.style('dim', `  files ${sim.filesUrl}   other user's key ${sim.otherApiKey}   member token ${sim.memberToken.slice(0, 12)}…`));
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    ctx.interrupts.takeFirstPress(stop);
    // A service manager stops it with SIGTERM: a clean stop too, exit code 0.
    ctx.interrupts.takeTerminate(stop);
    ctx.interrupts.signal.addEventListener('abort', stop, { once: true });
  });
  await stopped;
  await sim.close();
  out.human('Simulator stopped.');
  out.json({ type: 'stopped' });
  return EXIT.ok;
}
