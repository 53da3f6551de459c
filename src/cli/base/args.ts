import { parseArgs } from 'node:util';
import type { CommandSpec, OptionSpec, OptionValues } from './command.js';
import { URL_FLAGS } from './config.js';
import { usageError } from './errors.js';

/**
 * Flags every command takes.
 *
 * @example
 * ```ts
 * Object.keys(GLOBAL_OPTIONS); // ['json', 'human', 'no-color', 'debug', 'help', 'version']
 * ```
 */
export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec>> = Object.freeze({
  json: { type: 'boolean', description: 'One JSON object per line (the default when stdout is not a terminal)' },
  human: { type: 'boolean', description: 'Sentences and tables, also when stdout is not a terminal' },
  'no-color': { type: 'boolean', description: 'No colours (also NO_COLOR=1 or FORCE_COLOR=0)' },
  debug: { type: 'boolean', description: 'Print each request and, on failure, the full error' },
  help: { type: 'boolean', short: 'h', description: 'Show help' },
  version: { type: 'boolean', description: 'Print the version' },
});

/**
 * The flags of a command: its own, its service's URL flag, and the global ones.
 *
 * @example
 * ```ts
 * Object.keys(optionsOf(runCommand)); // ['set', 'upload', ..., 'cloud-url', 'json', ...]
 * ```
 */
export function optionsOf(command: CommandSpec): Record<string, OptionSpec> {
  const service = command.service ? URL_FLAGS[command.service] : undefined;
  const connection: Record<string, OptionSpec> = service ? { [service.flag]: { type: 'string', value: '<url>', description: `The ${service.label} URL (default: $${service.variable})` } } : {};
  return { ...command.options, ...connection, ...GLOBAL_OPTIONS };
}

/**
 * A command line, parsed: the command it names (`path` holds the words that led there), its
 * positionals and flags.
 *
 * @example
 * ```ts
 * const parsed = parseCommandLine(root, ['run', 'wf.json', '--json']);
 * parsed.command.name; // 'run'
 * ```
 */
export interface ParsedCommandLine {
  command: CommandSpec;
  path: string[];
  positionals: string[];
  options: OptionValues;
}

/**
 * Finds the command the words name, then parses the rest strictly against its flags. Global
 * boolean flags may come before the command (`graphcloud --json jobs list`).
 *
 * @throws {CliError} an unknown flag or command (with the closest name), or a missing value.
 * @example
 * ```ts
 * parseCommandLine(root, ['jobs', 'get', 'abc', '--json']).path; // ['graphcloud', 'jobs', 'get']
 * ```
 */
export function parseCommandLine(root: CommandSpec, argv: readonly string[]): ParsedCommandLine {
  let command = root;
  const path = [root.name];
  const rest: string[] = [];
  let descending = true;
  for (const arg of argv) {
    if (descending && !arg.startsWith('-')) {
      const sub = command.subcommands?.find((c) => c.name === arg);
      if (sub) {
        command = sub;
        path.push(sub.name);
        continue;
      }
      descending = false;
    } else if (descending && !(arg.startsWith('--') && GLOBAL_OPTIONS[arg.slice(2)]?.type === 'boolean') && arg !== '-h') {
      descending = false;
    }
    rest.push(arg);
  }
  const help = `${path.join(' ')} --help`;
  const options = optionsOf(command);
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw translateParseError(error, options, help);
  }
  const values = parsed.values as OptionValues;
  if (command.subcommands && !command.run && parsed.positionals.length > 0 && !values.help) {
    const word = parsed.positionals[0]!;
    const names = command.subcommands.map((c) => c.name);
    const close = closest(word, names);
    throw usageError(`Unknown command "${word}" for "${path.join(' ')}"${close ? `; did you mean "${close}"?` : `; the commands are: ${names.join(', ')}.`}`, help);
  }
  return { command, path, positionals: parsed.positionals, options: values };
}

/**
 * Checks the number of positionals against the command's spec.
 *
 * @throws {CliError} too few or too many arguments.
 * @example
 * ```ts
 * checkPositionals(parsed);
 * ```
 */
export function checkPositionals({ command, path, positionals }: ParsedCommandLine): void {
  const [min, max] = command.positionals ?? [0, 0];
  const usage = `${path.join(' ')}${command.args ? ` ${command.args}` : ''}`;
  const help = `${path.join(' ')} --help`;
  if (positionals.length < min) throw usageError(`Missing argument: the usage is \`${usage}\`.`, help);
  if (positionals.length > max) {
    const extra = positionals.slice(max).map((p) => `"${p}"`).join(', ');
    throw usageError(`Unexpected argument${positionals.length - max > 1 ? 's' : ''} ${extra}: the usage is \`${usage}\`.`, help);
  }
}

function translateParseError(error: unknown, options: Record<string, OptionSpec>, help: string): Error {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const named = /'(-{1,2}[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && named) {
    const close = closest(named.replace(/^-+/, ''), Object.keys(options));
    return usageError(`Unknown flag ${named}${close ? `; did you mean --${close}?` : '.'}`, help);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && named) {
    const name = named.replace(/^-+/, '');
    const spec = options[name] ?? Object.entries(options).find(([, o]) => o.short === name)?.[1];
    if (spec?.type === 'boolean') return usageError(`The flag ${named} takes no value.`, help);
    return usageError(`The flag ${named} needs a value: ${named} ${spec?.value ?? '<value>'}.`, help);
  }
  return usageError(message, help);
}

/**
 * The known name closest to `word` (edit distance up to a third of its length, at least 2), or
 * one that starts with it.
 *
 * @example
 * ```ts
 * closest('uplaod', ['upload', 'run']); // 'upload'
 * ```
 */
export function closest(word: string, names: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.ceil(word.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of names) {
    const d = distance(word.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  if (best !== undefined && bestDistance <= limit) return best;
  return word.length >= 2 ? names.find((n) => n.startsWith(word)) : undefined;
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
