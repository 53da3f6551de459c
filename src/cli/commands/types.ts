import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CODEGEN_DEFAULTS, ejectWorkflow, generateNodeTypes } from '../../codegen/index.js';
import { createCloud } from '../base/clients.js';
import type { CommandContext, CommandSpec } from '../base/command.js';
import { Config } from '../base/config.js';
import { CliError, usageError } from '../base/errors.js';
import { EXIT, type ExitCode } from '../base/exit-codes.js';
import { readJsonFile } from '../base/files.js';
import { parseWholeNumber } from '../base/values.js';

// How long the version is waited for: it only names the server in the header.
const VERSION_TIMEOUT_MS = 10_000;

/**
 * `graphcloud types`: writes the node types of a server's catalog (`GET /api/object_info`) for
 * `workflow<Nodes>()`, from a local runtime, the cloud, or a saved catalog; with `--eject`, a saved
 * workflow as builder code over those types instead.
 *
 * @example
 * ```ts
 * await runCli(root, ['types', '--url', 'http://127.0.0.1:8188', '--out', 'src/nodes.ts'], io);
 * ```
 */
export const typesCommand: CommandSpec = {
  name: 'types',
  summary: 'Write the node types of a server, for workflows built in code',
  description:
    "Write one TypeScript module of node types from a server's catalog (GET /api/object_info), for\n" +
    '`workflow<Nodes>()`: each node class with its inputs (combos as the union of their options, every\n' +
    'widget also taking a link) and its outputs, and `nodeOutputs`, the table of output names. The same\n' +
    'catalog gives the same file, byte for byte; its header names the server, its version and the\n' +
    "catalog's SHA-256. The catalog comes from --url (a local runtime or the cloud; default: the cloud\n" +
    'URL of the environment) or from a saved file (--object-info). The rules are in\n' +
    'docs/workflows.md#generating-node-types (and #ejecting-a-saved-workflow): with --eject <saved.json>\n' +
    '--types <./nodes.js>, write instead the saved workflow (UI or API format) as builder code over the\n' +
    'types of that module, converted with the same catalog.',
  positionals: [0, 0],
  service: 'cloud',
  options: {
    url: { type: 'string', value: '<url>', description: 'The server to read the catalog from (default: --cloud-url, $GRAPHCLOUD_CLOUD_URL)' },
    'object-info': { type: 'string', value: '<file.json>', description: 'Read the catalog from a saved file (GET /api/object_info) instead of a server' },
    out: { type: 'string', value: '<file.ts>', description: 'Write the module to <file.ts> (its folders are created; default: standard output)' },
    'max-combo': { type: 'string', value: '<n>', description: `Type a combo of more than <n> options as string (default ${CODEGEN_DEFAULTS.maxComboOptions})` },
    'import-from': { type: 'string', value: '<module>', description: `The module the types import Link from, or the ejected code workflow (default ${CODEGEN_DEFAULTS.importFrom})` },
    eject: { type: 'string', value: '<saved.json>', description: 'Write this saved workflow as builder code instead of the node types (needs --types)' },
    types: { type: 'string', value: '<module>', description: 'With --eject: the module of the generated node types the code imports, such as ./nodes.js' },
  },
  examples: [
    'graphcloud types --url http://127.0.0.1:8188 --out src/nodes.ts',
    'graphcloud types --out src/nodes.ts                 # the cloud of GRAPHCLOUD_CLOUD_URL, with GRAPHCLOUD_API_KEY',
    'graphcloud types --object-info catalog.json --max-combo 500 > src/nodes.ts',
    'graphcloud types --eject portrait.json --object-info catalog.json --types ./nodes.js --out src/portrait.ts',
  ],
  run: runTypes,
};

async function runTypes(ctx: CommandContext): Promise<ExitCode> {
  const { options, out } = ctx;
  const help = `${ctx.path} --help`;
  const file = options['object-info'] as string | undefined;
  const url = options.url as string | undefined;
  if (file !== undefined && (url !== undefined || options['cloud-url'] !== undefined)) throw usageError('--object-info reads a saved catalog: leave out --url (or --cloud-url), or --object-info.', help);
  if (url !== undefined && options['cloud-url'] !== undefined) throw usageError('--url and --cloud-url name the same server: give one.', help);
  const maxComboOptions = options['max-combo'] === undefined ? undefined : parseWholeNumber(options['max-combo'], '--max-combo', help, { min: 0, max: 9_999_999 });
  const importFrom = options['import-from'] as string | undefined;
  if (importFrom !== undefined && importFrom.trim() === '') throw usageError('--import-from takes a module name, such as graphcloud.', help);
  const saved = options.eject as string | undefined;
  const typesImport = options.types as string | undefined;
  if (saved !== undefined && (typesImport === undefined || typesImport.trim() === '')) throw usageError('--eject needs --types <module>: the module of the generated node types the code imports, such as ./nodes.js.', help);
  if (saved === undefined && typesImport !== undefined) throw usageError('--types names the node types ejected code imports: give it with --eject <saved.json>.', help);
  if (saved !== undefined && maxComboOptions !== undefined) throw usageError('--max-combo shapes generated node types, not ejected code: leave it out with --eject.', help);
  // The saved workflow is read before the catalog: a wrong path fails before any request.
  const workflowFile = saved === undefined ? undefined : await readJsonFile(saved, help);

  const source = file !== undefined ? { info: await readJsonFile(file, help), server: file, version: undefined } : await readServer(ctx, url);
  const target = options.out as string | undefined;
  if (saved !== undefined) {
    const code = ejectWorkflow(workflowFile, source.info as Parameters<typeof ejectWorkflow>[1], { typesImport: typesImport!, sdkImport: importFrom, source: saved });
    if (target === undefined) {
      out.raw(code);
      return EXIT.ok;
    }
    await writeOut(target, code);
    const calls = code.split('\n').filter((line) => /^ {2}(?:const \w+ = )?(?:wf|untyped)\./.test(line));
    const untyped = calls.filter((line) => line.includes('untyped.')).length;
    out.json({ type: 'eject', path: target, source: saved, nodes: calls.length, untyped, bytes: Buffer.byteLength(code) });
    out.human(`${out.style('green', '✔')} Wrote ${out.style('bold', target)}: ${calls.length} nodes of ${saved} as builder code${untyped > 0 ? ` (${untyped} untyped: see the // Untyped comments)` : ''}.`);
    return EXIT.ok;
  }
  const text = await generateNodeTypes(source.info, { server: source.server, version: source.version, maxComboOptions, importFrom });
  const nodes = typeof source.info === 'object' && source.info !== null ? Object.keys(source.info).length : 0;
  if (target === undefined) {
    // Through the one writer, which redacts the configured keys like every byte the CLI prints.
    out.raw(text);
    return EXIT.ok;
  }
  await writeOut(target, text);
  const bytes = Buffer.byteLength(text);
  out.json({ type: 'types', path: target, nodes, bytes, server: source.server, version: source.version ?? null });
  out.human(`${out.style('green', '✔')} Wrote ${out.style('bold', target)}: ${nodes} node classes of ${source.server}${source.version ? ` (version ${source.version})` : ''}, ${(bytes / 1024).toFixed(0)} KB.`);
  out.human(out.style('dim', `  import type { Nodes } from './${target.replace(/^.*[\\/]/, '').replace(/\.ts$/, '.js')}'; const wf = workflow<Nodes>();`));
  return EXIT.ok;
}

/** Writes `text` to `target`, its folders created. */
async function writeOut(target: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  } catch (error) {
    throw new CliError(`Cannot write ${target}: ${error instanceof Error ? error.message : String(error)}.`, 'Choose another --out path.', EXIT.error, { cause: error });
  }
}

/** The catalog of the server, and its version when `/api/system_stats` tells it. */
async function readServer(ctx: CommandContext, url: string | undefined): Promise<{ info: unknown; server: string; version: string | undefined }> {
  const config = url === undefined ? ctx.config : new Config(ctx.io.env, { 'cloud-url': url });
  const { baseUrl, apiKey } = config.cloud();
  const signal = ctx.interrupts.signal;
  await using cloud = createCloud({ ...ctx, config });
  const [info, version] = await Promise.all([cloud.nodes.list({ signal }), serverVersion(baseUrl, apiKey, signal)]);
  return { info, server: publicUrl(baseUrl), version };
}

/**
 * `system.comfyui_version` of `GET /api/system_stats` (ComfyUI's own route; a server without it
 * leaves the header without a version). Read with fetch, not a client: nothing else of the SDK
 * reads this route, and a failure here only leaves the version out.
 */
async function serverVersion(baseUrl: string, apiKey: string | undefined, signal: AbortSignal): Promise<string | undefined> {
  try {
    const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/api/system_stats`, {
      headers: apiKey === undefined ? {} : { 'X-API-Key': apiKey },
      redirect: 'error',
      signal: AbortSignal.any([signal, AbortSignal.timeout(VERSION_TIMEOUT_MS)]),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as unknown;
    const system = typeof body === 'object' && body !== null && Object.hasOwn(body, 'system') ? (body as { system: unknown }).system : undefined;
    const version = typeof system === 'object' && system !== null && Object.hasOwn(system, 'comfyui_version') ? (system as { comfyui_version: unknown }).comfyui_version : undefined;
    return typeof version === 'string' && version.trim() !== '' ? version.trim().slice(0, 100) : undefined;
  } catch {
    return undefined;
  }
}

/** The URL as the header names it: no credentials, query or fragment. */
function publicUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}
