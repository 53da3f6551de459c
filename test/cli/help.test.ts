import { describe, expect, it } from 'vitest';
import type { CommandSpec } from '../../src/cli/base/command.js';
import { ROOT } from '../../src/cli/commands/index.js';
import { runPiped } from './helpers.js';

/** Every command path of the tree: ['run'], ['jobs', 'watch'], ... */
function paths(command: CommandSpec, prefix: string[] = []): string[][] {
  return (command.subcommands ?? []).flatMap((sub) => [[...prefix, sub.name], ...paths(sub, [...prefix, sub.name])]);
}

describe('graphcloud --help', () => {
  it('lists the commands, the environment variables and the exit codes', async () => {
    const { code, stdout } = await runPiped(['--help']);
    expect(code).toBe(0);
    for (const name of ['run', 'jobs', 'upload', 'task', 'registry', 'sim']) expect(stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    for (const variable of ['GRAPHCLOUD_CLOUD_URL', 'GRAPHCLOUD_API_KEY', 'GRAPHCLOUD_REGISTRY_URL', 'GRAPHCLOUD_REGISTRY_TOKEN', 'GRAPHCLOUD_PROXY_URL', 'GRAPHCLOUD_PROXY_TOKEN']) expect(stdout).toContain(variable);
    expect(stdout).toMatch(/^ {2}130 +left at once/m);
    expect(stdout).toMatch(/^ {2}2 +usage error/m);
  });

  it('is printed, with no arguments at all, instead of starting anything', async () => {
    const { code, stdout } = await runPiped([]);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage\n  graphcloud <command> [flags]');
  });

  it.each(paths(ROOT).map((p) => [p.join(' '), p]))('graphcloud %s --help shows usage and an example', async (_name, path) => {
    const { code, stdout, stderr } = await runPiped([...(path as string[]), '--help']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`Usage\n  graphcloud ${(path as string[]).join(' ')}`);
    expect(stdout).toMatch(/^Examples\n( {2}\$ .*\n)* {2}\$ graphcloud /m);
  });

  it('-h works like --help, also before the command', async () => {
    const a = await runPiped(['run', '-h']);
    const b = await runPiped(['--help', 'run']);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('graphcloud run <workflow.json>');
    expect(b.stdout).toBe(a.stdout);
  });
});

describe('the command table', () => {
  it('no command has a flag that a global flag would shadow', async () => {
    const { GLOBAL_OPTIONS } = await import('../../src/cli/base/args.js');
    const walk = (command: CommandSpec): string[] => [...Object.keys(command.options ?? {}).filter((k) => k in GLOBAL_OPTIONS).map((k) => `${command.name} --${k}`), ...(command.subcommands ?? []).flatMap(walk)];
    expect(walk(ROOT)).toEqual([]);
  });
});

describe('graphcloud --version', () => {
  it('prints the version as text, or as JSON with --json', async () => {
    const text = await runPiped(['--version']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^graphcloud \d+\.\d+\.\d+(-[\w.]+)?\n$/);
    const json = await runPiped(['--version', '--json']);
    expect(json.lines).toEqual([{ type: 'version', version: expect.stringMatching(/^\d+\.\d+\.\d+/) }]);
  });
});

describe('usage errors (exit code 2)', () => {
  it('an unknown command suggests the closest one', async () => {
    const { code, lines, stderr } = await runPiped(['uplaod', 'x.png']);
    expect(code).toBe(2);
    expect(lines).toEqual([{ type: 'error', exitCode: 2, message: 'Unknown command "uplaod" for "graphcloud"; did you mean "upload"?', fix: 'See `graphcloud --help`.' }]);
    expect(stderr).toBe('Error: Unknown command "uplaod" for "graphcloud"; did you mean "upload"?\nSee `graphcloud --help`.\n');
  });

  it('an unknown flag suggests the closest one, and names the help of its command', async () => {
    const { code, lines } = await runPiped(['run', 'wf.json', '--ouput', 'x']);
    expect(code).toBe(2);
    expect(lines[0]).toMatchObject({ message: 'Unknown flag --ouput; did you mean --out?', fix: 'See `graphcloud run --help`.' });
  });

  it('a flag without its value says what it takes', async () => {
    const { code, lines } = await runPiped(['run', 'wf.json', '--out']);
    expect(code).toBe(2);
    expect(lines[0]).toMatchObject({ message: 'The flag --out needs a value: --out <dir>.' });
  });

  it('a missing argument shows the usage', async () => {
    const { code, lines } = await runPiped(['jobs', 'watch']);
    expect(code).toBe(2);
    expect(lines[0]).toMatchObject({ message: 'Missing argument: the usage is `graphcloud jobs watch <promptId>`.' });
  });

  it('an unknown subcommand of a group lists the right ones', async () => {
    const { code, lines } = await runPiped(['registry', 'nodes', 'serch', 'x']);
    expect(code).toBe(2);
    expect(lines[0]).toMatchObject({ message: 'Unknown command "serch" for "graphcloud registry nodes"; did you mean "search"?' });
  });

  it('--json and --human together are refused', async () => {
    const { code } = await runPiped(['upload', 'x.png', '--json', '--human']);
    expect(code).toBe(2);
  });

  it('a command that needs a URL says which variable sets it', async () => {
    const { code, lines } = await runPiped(['upload', 'package.json'], { env: {} });
    expect(code).toBe(2);
    expect(lines[0]).toMatchObject({ message: 'No cloud URL is set.', fix: 'Set GRAPHCLOUD_CLOUD_URL (or pass --cloud-url <url>); `graphcloud sim` starts a local simulator.' });
  });

  it('prints sentences, not JSON, with --human', async () => {
    const { code, stdout, stderr } = await runPiped(['uplaod', '--human']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('Error: Unknown command "uplaod"');
  });
});
