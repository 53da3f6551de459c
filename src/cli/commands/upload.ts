import { createCloud } from '../base/clients.js';
import type { CommandContext, CommandSpec } from '../base/command.js';
import { usageError } from '../base/errors.js';
import { EXIT, type ExitCode } from '../base/exit-codes.js';
import { checkReadable } from '../base/files.js';

/**
 * `graphcloud upload <file...>`: uploads input images to the cloud and prints the names to use
 * in a workflow.
 *
 * @example
 * ```ts
 * await runCli(root, ['upload', './in.png'], io);
 * ```
 */
export const uploadCommand: CommandSpec = {
  name: 'upload',
  summary: 'Upload input images; prints the name to use in a workflow',
  description: 'Upload input images to the cloud (streamed from disk) and print the name each one got: the server may\nrename a file whose name is taken. Use the name in a workflow (`graphcloud run --set`), or let\n`graphcloud run --upload` do both.',
  args: '<file...>',
  positionals: [1, 100],
  service: 'cloud',
  options: {
    name: { type: 'string', value: '<filename>', description: 'File name to upload under (one file only; default: its own name)' },
    overwrite: { type: 'boolean', description: 'Replace a file of the same name instead of getting a new name' },
    temp: { type: 'boolean', description: 'Upload as a temporary file (type temp) instead of an input' },
  },
  examples: ['graphcloud upload ./photo.png', "graphcloud upload ./a.png ./b.png --json | jq -r '.name'"],
  run: runUpload,
};

async function runUpload(ctx: CommandContext): Promise<ExitCode> {
  const { out, options, positionals, interrupts } = ctx;
  const help = `${ctx.path} --help`;
  const name = options.name as string | undefined;
  if (name !== undefined && positionals.length > 1) throw usageError('--name applies to one file; upload the files one at a time to name them.', help);
  for (const file of positionals) await checkReadable(file, help);
  await using cloud = createCloud(ctx);
  let last = '';
  for (const file of positionals) {
    const uploaded = await cloud.files.upload(file, { filename: name, overwrite: options.overwrite === true ? true : undefined, type: options.temp ? 'temp' : undefined, signal: interrupts.signal });
    const fullName = uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
    out.json({ type: 'uploaded', file, name: fullName, subfolder: uploaded.subfolder, folder: uploaded.type ?? (options.temp ? 'temp' : 'input') });
    out.human(`${out.style('green', '✔')} Uploaded ${file} as ${out.style('bold', fullName)}`);
    last = fullName;
  }
  if (positionals.length === 1) out.human(out.style('dim', `  Use it in a workflow: graphcloud run <workflow.json> --set 'LoadImage.image=${last}'`));
  return EXIT.ok;
}
