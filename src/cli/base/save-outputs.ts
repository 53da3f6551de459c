import { join } from 'node:path';
import { ValidationError, type CloudClient } from '../../index.js';
import type { CommandContext } from './command.js';

/**
 * Saves a finished job's outputs into `dir` with the SDK (`cloud.files.saveOutputs`: streamed,
 * safe names, never over a file). The run is paid for, so a name already taken in `dir` does not
 * fail it: the files go to `dir/<promptId>/` instead, and a notice says so. `--overwrite`
 * replaces instead.
 *
 * @example
 * ```ts
 * const saved = await saveJobOutputs(ctx, cloud, result, './out');
 * ```
 */
export async function saveJobOutputs(ctx: CommandContext, cloud: CloudClient, job: { promptId: string; outputs: JobOutputs }, dir: string): Promise<{ nodeId: string; filename: string; path: string }[]> {
  const { out, interrupts, options } = ctx;
  const save = (folder: string): Promise<CloudClient.SavedOutput[]> => cloud.files.saveOutputs(job, folder, { overwrite: options.overwrite === true, signal: interrupts.signal });
  let saved: CloudClient.SavedOutput[];
  try {
    saved = await save(dir);
  } catch (error) {
    if (!(error instanceof ValidationError) || !error.issues.some((i) => i.path === 'dir')) throw error;
    const folder = join(dir, job.promptId);
    out.notice(out.errorStyle('yellow', `Files of these names are in ${dir} already: saving into ${folder} instead (--overwrite replaces them).`));
    saved = await save(folder);
  }
  return saved.map((file) => ({ nodeId: file.nodeId, filename: file.ref.filename, path: file.path }));
}

type JobOutputs = CloudClient.JobDetail['outputs'];
