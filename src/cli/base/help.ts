import { GLOBAL_OPTIONS, optionsOf } from './args.js';
import type { CommandSpec, OptionSpec } from './command.js';
import { ENV, URL_FLAGS } from './config.js';
import { EXIT_CODE_HELP } from './exit-codes.js';
import type { Style } from './style.js';

/**
 * The help of a command: what it does, usage, its commands or flags, examples; the root's help
 * adds the environment variables and the exit codes.
 *
 * @example
 * ```ts
 * process.stdout.write(formatHelp(root, ['graphcloud'], style));
 * ```
 */
export function formatHelp(command: CommandSpec, path: readonly string[], style: Style): string {
  const title = (text: string): string => style('bold', text);
  const name = path.join(' ');
  const lines: string[] = [command.description ?? command.summary, ''];
  const usage = command.subcommands && !command.run ? `${name} <command> [flags]` : `${name}${command.args ? ` ${command.args}` : ''} [flags]`;
  lines.push(title('Usage'), `  ${usage}`, '');
  if (command.subcommands) {
    lines.push(title('Commands'));
    lines.push(...columns(command.subcommands.map((c) => [`${c.name}${c.args ? ` ${c.args}` : c.subcommands ? ' <command>' : ''}`, c.summary])));
    lines.push('');
  }
  const own = Object.entries(optionsOf(command)).filter(([key]) => !(key in GLOBAL_OPTIONS));
  if (own.length > 0) {
    lines.push(title('Flags'));
    lines.push(...columns(own.map(([key, spec]) => [flagLabel(key, spec), spec.description])));
    lines.push('');
  }
  if (command.service) {
    const service = URL_FLAGS[command.service];
    lines.push(title('Environment'));
    lines.push(...columns(environment(command.service).map(([variable, meaning]) => [variable, meaning])));
    lines.push(`  Keys are read from the environment only, and never printed (also not with --json or --debug).`);
    lines.push(`  The ${service.label} URL flag wins over its variable.`, '');
  }
  lines.push(title('Global flags'));
  lines.push(...columns(Object.entries(GLOBAL_OPTIONS).map(([key, spec]) => [flagLabel(key, spec), spec.description])));
  lines.push('');
  if (command.examples?.length) {
    lines.push(title('Examples'));
    for (const example of command.examples) lines.push(`  ${style('dim', '$')} ${example}`);
    lines.push('');
  }
  if (path.length === 1) {
    lines.push(title('Environment'));
    lines.push(...columns(environment(undefined)));
    lines.push('  Keys are read from the environment only, and never printed.', '');
    lines.push(title('Exit codes'));
    lines.push(...columns(EXIT_CODE_HELP.map(([code, meaning]) => [String(code), meaning])));
    lines.push('');
  }
  lines.push(command.subcommands ? `Run \`${name} <command> --help\` for more; the guide is docs/cli.md.` : 'The guide is docs/cli.md.');
  return `${lines.join('\n')}\n`;
}

function flagLabel(key: string, spec: OptionSpec): string {
  const short = spec.short ? `-${spec.short}, ` : '';
  const value = spec.type === 'string' ? ` ${spec.value ?? '<value>'}` : '';
  return `${short}--${key}${value}${spec.multiple ? ' ...' : ''}`;
}

function environment(service: 'cloud' | 'registry' | 'proxy' | undefined): [string, string][] {
  const rows: Record<'cloud' | 'registry' | 'proxy', [string, string][]> = {
    cloud: [
      [ENV.cloudUrl, 'cloud API URL'],
      [ENV.apiKey, 'cloud API key (optional for a local runtime)'],
    ],
    registry: [
      [ENV.registryUrl, 'node registry URL'],
      [ENV.registryToken, 'registry Bearer token (optional for reads)'],
      [ENV.registryPat, "a publisher's personal access token (publish)"],
    ],
    proxy: [
      [ENV.proxyUrl, 'media proxy URL'],
      [ENV.proxyToken, `media proxy Bearer token (else ${ENV.apiKey} is sent as X-API-Key)`],
    ],
  };
  return service ? rows[service] : [...rows.cloud, ...rows.registry, ...rows.proxy];
}

function columns(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.min(34, Math.max(...rows.map(([left]) => left.length)) + 2);
  return rows.map(([left, right]) => (left.length + 2 > width ? `  ${left}\n  ${' '.repeat(width)}${right}` : `  ${left.padEnd(width)}${right}`));
}
