import { mkdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { CloudClient, ValidationError, type JobResult } from '../../index.js';
import { createCloud } from './clients.js';
import type { CommandContext } from './command.js';
import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { writeNewFile } from './files.js';

// Every output the command line saves: a job's (run, jobs get, batch), a queued run's from the
// runtime it went to (batch --redis, batch results), a task's result URLs (task --out).

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

/**
 * Saves a run's outputs from the cloud, or from the local runtime the run went to (its files stay
 * there); one client per origin, closed on dispose.
 *
 * @example
 * ```ts
 * await using downloads = new Downloads(ctx);
 * await downloads.save(result, info.runtime, './out/1');
 * ```
 */
export class Downloads {
  readonly #ctx: CommandContext;
  readonly #clients = new Map<string, CloudClient>();

  constructor(ctx: CommandContext) {
    this.#ctx = ctx;
  }

  /** Saves `result`'s outputs in `dir` (never over a file, as `run --out`). */
  async save(result: JobResult, runtime: string | undefined, dir: string): Promise<{ nodeId: string; filename: string; path: string }[]> {
    return saveJobOutputs(this.#ctx, this.#client(runtime), result, dir);
  }

  #client(runtime: string | undefined): CloudClient {
    const cloud = this.#ctx.config.cloud();
    const key = runtime ?? cloud.baseUrl;
    let client = this.#clients.get(key);
    if (!client) {
      // A run a local runtime made keeps its files there; the cloud's are read with the key.
      client = runtime === undefined || sameOrigin(runtime, cloud.baseUrl) ? createCloud(this.#ctx) : new CloudClient({ baseUrl: runtime, runtime: 'local' });
      this.#clients.set(key, client);
    }
    return client;
  }

  /** Closes the clients. */
  async [Symbol.asyncDispose](): Promise<void> {
    await Promise.allSettled([...this.#clients.values()].map((client) => client.close()));
  }
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * Downloads result URLs (signed: fetched without any credential) into `folder`, named after the
 * task: `<taskId>.png`, or `<taskId>-1.mp4`, `<taskId>-2.mp4` for several. Returns the paths.
 *
 * @throws {CliError} a download answered an error status, or the folder cannot be written.
 * @example
 * ```ts
 * const paths = await downloadUrls(result.urls, './out', result.taskId, signal);
 * ```
 */
export async function downloadUrls(urls: readonly string[], folder: string, taskId: string, signal: AbortSignal): Promise<string[]> {
  await mkdir(folder, { recursive: true });
  const saved: string[] = [];
  for (const [index, url] of urls.entries()) {
    const response = await fetch(url, { signal, redirect: 'follow' });
    if (!response.ok) {
      await response.body?.cancel();
      throw new CliError(`Downloading result ${index + 1} of task ${taskId} answered ${response.status}.`, 'Result URLs expire after about an hour: wait for the task again to get fresh ones.', EXIT.error);
    }
    const ext = extname(new URL(url).pathname) || extensionOf(response.headers.get('content-type'));
    const name = `${taskId}${urls.length > 1 ? `-${index + 1}` : ''}${ext}`;
    saved.push(await writeNewFile(folder, name, new Uint8Array(await response.arrayBuffer())));
  }
  return saved;
}

function extensionOf(contentType: string | null): string {
  const type = contentType?.split(';')[0]?.trim();
  const known: Record<string, string> = { 'image/png': '.png', 'image/jpeg': '.jpg', 'image/webp': '.webp', 'video/mp4': '.mp4', 'image/gif': '.gif' };
  return (type && known[type]) ?? '';
}
