import { PackageUploadError, type RegistryClient } from '../../index.js';
import { createRegistry } from '../base/clients.js';
import type { CommandContext, CommandSpec } from '../base/command.js';
import { ENV } from '../base/config.js';
import { CliError, usageError } from '../base/errors.js';
import { EXIT, type ExitCode } from '../base/exit-codes.js';
import { checkReadable } from '../base/files.js';
import { printFields, printTable } from '../base/table.js';
import { parseWholeNumber } from '../base/values.js';

const search: CommandSpec = {
  name: 'search',
  summary: 'Search nodes by text',
  args: '<text>',
  positionals: [1, 1],
  service: 'registry',
  options: {
    limit: { type: 'string', value: '<n>', description: 'How many nodes to list (default 20)' },
    os: { type: 'string', value: '<os>', description: 'Only nodes for this operating system (linux, windows, darwin)' },
  },
  examples: ['graphcloud registry nodes search upscale', "graphcloud registry nodes search video --limit 100 --json | jq -r '.id'"],
  run: async (ctx) => {
    const limit = parseWholeNumber(ctx.options.limit, '--limit', `${ctx.path} --help`, { min: 1, fallback: 20 });
    await using registry = createRegistry(ctx);
    const rows: string[][] = [];
    let count = 0;
    for await (const node of registry.nodes.searchAll({ search: ctx.positionals[0], supportedOs: ctx.options.os as string | undefined, limit: Math.min(limit, 100) }, { signal: ctx.interrupts.signal })) {
      ctx.out.json(node);
      rows.push([node.id ?? '?', node.latest_version?.version ?? '', oneLine(node.name ?? node.description ?? '')]);
      if (++count >= limit) break;
    }
    if (count === 0) ctx.out.human(`No node matches "${ctx.positionals[0]}".`);
    printTable(ctx.out, ['ID', 'LATEST', 'NAME'], rows);
    return EXIT.ok;
  },
};

const get: CommandSpec = {
  name: 'get',
  summary: 'Show one node',
  args: '<nodeId>',
  positionals: [1, 1],
  service: 'registry',
  examples: ['graphcloud registry nodes get acme-upscale'],
  run: async (ctx) => {
    await using registry = createRegistry(ctx);
    const node = await registry.nodes.get(ctx.positionals[0]!, { signal: ctx.interrupts.signal });
    ctx.out.json(node);
    const { out } = ctx;
    out.human(`${out.style('bold', node.name ?? node.id ?? '?')} ${out.style('dim', `(${node.id ?? '?'})`)}`);
    if (node.description) out.human(`  ${oneLine(node.description)}`);
    const rows: [string, string | undefined][] = [
      ['latest', node.latest_version?.version ?? undefined],
      ['publisher', node.publisher?.id ?? undefined],
      ['repository', node.repository ?? undefined],
      ['downloads', node.downloads?.toString()],
      ['tags', node.tags?.join(', ')],
    ];
    printFields(out, rows);
    return EXIT.ok;
  },
};

const versions: CommandSpec = {
  name: 'versions',
  summary: 'List the versions of a node, newest first',
  args: '<nodeId>',
  positionals: [1, 1],
  service: 'registry',
  examples: ['graphcloud registry nodes versions acme-upscale', "graphcloud registry nodes versions acme-upscale --json | jq -r '.version'"],
  run: async (ctx) => {
    await using registry = createRegistry(ctx);
    const list = await registry.nodes.versions(ctx.positionals[0]!, {}, { signal: ctx.interrupts.signal });
    for (const version of list) ctx.out.json(version);
    if (list.length === 0) ctx.out.human(`${ctx.positionals[0]} has no versions.`);
    printTable(
      ctx.out,
      ['VERSION', 'STATUS', 'CREATED', 'CHANGELOG'],
      list.map((v) => [v.version ?? '?', `${(v.status ?? '').replace(/^NodeVersionStatus/, '')}${v.deprecated ? ' (deprecated)' : ''}`, (v.createdAt ?? '').slice(0, 10), oneLine(v.changelog ?? '')]),
    );
    return EXIT.ok;
  },
};

const publish: CommandSpec = {
  name: 'publish',
  summary: 'Publish a new version of a node from a zip package',
  description:
    `Publish a new version of a node: the package (a zip of the node's files) is checked, the version is\n` +
    `created, and the package is uploaded to the storage URL the registry answers (without any credential).\n` +
    `The publisher's personal access token is read from ${ENV.registryPat}.`,
  args: '<nodeId> <version>',
  positionals: [2, 2],
  service: 'registry',
  options: {
    publisher: { type: 'string', value: '<id>', description: 'The publisher the node belongs to (required)' },
    package: { type: 'string', value: '<zip>', description: 'The zip of the node (required): git archive --format=zip -o node.zip HEAD' },
    changelog: { type: 'string', value: '<text>', description: 'What changed' },
    dependency: { type: 'string', multiple: true, value: '<pkg>', description: 'A Python dependency (repeatable)' },
    name: { type: 'string', value: '<text>', description: "The node's display name" },
    description: { type: 'string', value: '<text>', description: "The node's description" },
  },
  examples: [
    'git archive --format=zip -o acme-upscale.zip HEAD',
    "graphcloud registry nodes publish acme-upscale 1.3.0 --publisher acme --package ./acme-upscale.zip --changelog 'Faster'",
  ],
  run: runPublish,
};

async function runPublish(ctx: CommandContext): Promise<ExitCode> {
  const { out, options } = ctx;
  const help = `${ctx.path} --help`;
  const [nodeId, semver] = ctx.positionals as [string, string];
  const missing = ['publisher', 'package'].filter((flag) => typeof options[flag] !== 'string' || options[flag] === '');
  if (missing.length > 0) throw usageError(`Missing ${missing.map((m) => `--${m}`).join(', ')}.`, help);
  const pat = ctx.config.registryPat();
  if (!pat) throw new CliError(`Publishing needs a personal access token of the publisher, and ${ENV.registryPat} is not set.`, `Create one (registry.publishers.createToken) and set ${ENV.registryPat}.`, EXIT.auth);
  const pkg = options.package as string;
  await checkReadable(pkg, help);
  const node: RegistryClient.NodeParams = {};
  if (typeof options.name === 'string') node.name = options.name;
  if (typeof options.description === 'string') node.description = options.description;
  await using registry = createRegistry(ctx);
  try {
    const version = await registry.versions.publish(
      options.publisher as string,
      nodeId,
      {
        node,
        version: { version: semver, changelog: options.changelog as string | undefined, dependencies: options.dependency as string[] | undefined },
        package: pkg,
        personalAccessToken: pat,
      },
      { signal: ctx.interrupts.signal },
    );
    out.json({ type: 'published', nodeId, ...version });
    out.human(`${out.style('green', '✔')} Published ${nodeId} ${out.style('bold', version.version ?? semver)}${version.id ? out.style('dim', ` (id ${version.id})`) : ''}`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof PackageUploadError) {
      // The signed URL grants access: it stays out of the message, as in the SDK.
      throw new CliError(`Version ${semver} of ${nodeId} was created, but its package upload failed${error.cause instanceof Error ? ` (${error.cause.message})` : ''}.`, 'The version exists now: publish the fix as a new version number.', EXIT.error, { cause: error });
    }
    throw error;
  }
}

/**
 * `graphcloud registry`: the node registry.
 *
 * @example
 * ```ts
 * await runCli(root, ['registry', 'nodes', 'search', 'upscale'], io);
 * ```
 */
export const registryCommand: CommandSpec = {
  name: 'registry',
  summary: 'Find nodes, list their versions, publish a version',
  subcommands: [
    {
      name: 'nodes',
      summary: 'Search nodes, show one, list its versions, publish a version',
      subcommands: [search, get, versions, publish],
      examples: ['graphcloud registry nodes search upscale', 'graphcloud registry nodes versions acme-upscale'],
    },
  ],
  examples: ['graphcloud registry nodes search upscale'],
};

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
