import type { Config, Service } from './config.js';
import type { ExitCode } from './exit-codes.js';
import type { Interrupts } from './interrupts.js';
import type { CliIo } from './io.js';
import type { Output } from './output.js';

/**
 * One flag of a command, as `node:util` `parseArgs` takes it, with its help.
 *
 * @example
 * ```ts
 * const out: OptionSpec = { type: 'string', value: '<dir>', description: 'Save the outputs in <dir>' };
 * ```
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** Placeholder of the value in the help, e.g. `<dir>`. */
  value?: string;
  description: string;
}

/** Flag values after parsing. */
export type OptionValues = Record<string, string | boolean | string[] | undefined>;

/**
 * What a command receives.
 *
 * @example
 * ```ts
 * async function run(ctx: CommandContext): Promise<ExitCode> { ctx.out.human('hi'); return EXIT.ok; }
 * ```
 */
export interface CommandContext {
  out: Output;
  config: Config;
  io: CliIo;
  /** Ctrl-C: `signal` aborts the command; a command may take over the first press. */
  interrupts: Interrupts;
  positionals: string[];
  options: OptionValues;
  /** The command as typed, for messages: `graphcloud run`. */
  path: string;
  debug: boolean;
}

/**
 * A command or a group of commands. Help, parsing and dispatch are driven by this table.
 *
 * @example
 * ```ts
 * const upload: CommandSpec = { name: 'upload', summary: 'Upload an input image', args: '<file>', positionals: [1, 1], service: 'cloud', examples: ['graphcloud upload ./in.png'], run };
 * ```
 */
export interface CommandSpec {
  name: string;
  /** One line, shown in the parent's list. */
  summary: string;
  /** More, shown in the command's own help. */
  description?: string;
  /** Positional arguments as shown in the usage line, e.g. `<workflow.json>`. */
  args?: string;
  /** How many positionals the command takes: [min, max]. */
  positionals?: readonly [number, number];
  options?: Readonly<Record<string, OptionSpec>>;
  /** The service it talks to: adds that service's URL flag and its variables to the help. */
  service?: Service;
  examples?: readonly string[];
  subcommands?: readonly CommandSpec[];
  run?: (ctx: CommandContext) => Promise<ExitCode>;
}
