import { mkdir } from 'node:fs/promises';
import { extname } from 'node:path';
import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { writeNewFile } from './files.js';

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
