import { inspect } from 'node:util';
import { checkPositionals, parseCommandLine, type ParsedCommandLine } from './args.js';
import type { CommandSpec } from './command.js';
import type { CliIo } from './io.js';
import { Config } from './config.js';
import { describeError, type ErrorContext } from './errors.js';
import { EXIT } from './exit-codes.js';
import { formatHelp } from './help.js';
import { Interrupts } from './interrupts.js';
import { Output, type OutputMode } from './output.js';

/**
 * Runs one command line and resolves with its exit code. Never throws: every error becomes one
 * sentence and its fix on stderr (and an `error` line on stdout in JSON mode).
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(root, process.argv.slice(2), io);
 * ```
 */
export async function runCli(root: CommandSpec, argv: readonly string[], io: CliIo): Promise<number> {
  const secrets = new Config(io.env, {}).secrets();
  // The mode is read from the raw words too, so that a usage error is printed in the right one.
  const output = (mode: OutputMode, noColor: boolean): Output => new Output({ stdout: io.stdout, stderr: io.stderr, env: io.env, mode, noColor, secrets });
  let parsed: ParsedCommandLine;
  try {
    parsed = parseCommandLine(root, argv);
  } catch (error) {
    const out = output(modeOf(argv.includes('--json'), argv.includes('--human'), io), argv.includes('--no-color'));
    return printError(out, error, undefined, argv.includes('--debug'));
  }
  const { command, path, positionals, options } = parsed;
  const out = output(modeOf(options.json === true, options.human === true, io), options['no-color'] === true);
  if (options.json && options.human) return printError(out, new Error('--json and --human cannot be used together.'), undefined, false, EXIT.usage);
  if (options.version) {
    // Text unless --json is asked for: `graphcloud --version` in a script reads the line.
    if (options.json) out.json({ type: 'version', version: io.version });
    else io.stdout.write(`graphcloud ${io.version}\n`);
    return EXIT.ok;
  }
  if (options.help || !command.run) {
    // Help is for people: printed as text even when piped (`graphcloud --help | less`).
    io.stdout.write(formatHelp(command, path, out.style));
    return EXIT.ok;
  }
  const debug = options.debug === true;
  const config = new Config(io.env, options);
  const context = command.service ? config.errorContext(command.service) : undefined;
  try {
    checkPositionals(parsed);
  } catch (error) {
    return printError(out, error, context, debug);
  }
  const interrupts = new Interrupts(io, out);
  try {
    return await command.run({ out, config, io, interrupts, positionals, options, path: path.join(' '), debug });
  } catch (error) {
    return printError(out, error, context, debug);
  } finally {
    interrupts.dispose();
  }
}

function modeOf(json: boolean, human: boolean, io: CliIo): OutputMode {
  if (json) return 'json';
  if (human) return 'human';
  return io.stdout.isTTY === true ? 'human' : 'json';
}

function printError(out: Output, error: unknown, context: ErrorContext | undefined, debug: boolean, exitCode?: number): number {
  const report = describeError(error, context);
  const code = exitCode ?? report.exitCode;
  out.json({ type: 'error', exitCode: code, message: report.message, ...(report.fix ? { fix: report.fix } : {}), ...(report.submitted ? { submitted: report.submitted } : {}) });
  out.notice(`${out.errorStyle('red', 'Error:')} ${report.message}`);
  if (report.fix) out.notice(out.errorStyle('dim', report.fix));
  if (debug) out.notice(out.errorStyle('dim', inspect(error, { depth: 6 })));
  return code;
}
