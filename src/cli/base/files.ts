import { open, readFile, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { CliError, usageError } from './errors.js';
import { EXIT } from './exit-codes.js';

/**
 * Fails with a usage error naming the file when it cannot be read (missing, a folder, no
 * permission), before anything is sent.
 *
 * @throws {CliError} the file cannot be read.
 * @example
 * ```ts
 * await checkReadable('./in.png', 'graphcloud upload --help');
 * ```
 */
export async function checkReadable(path: string, help: string): Promise<void> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw usageError(`${path} is not a file.`, help);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw usageError(`Cannot read ${path}: ${reason(error)}.`, help);
  }
}

/**
 * Reads and parses a JSON file.
 *
 * @throws {CliError} the file cannot be read, or is not JSON.
 * @example
 * ```ts
 * const workflow = await readJsonFile('./workflow.json', 'graphcloud run --help');
 * ```
 */
export async function readJsonFile(path: string, help: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw usageError(`Cannot read ${path}: ${reason(error)}.`, help);
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch (error) {
    throw usageError(`${path} is not JSON (${error instanceof Error ? error.message : String(error)}).`, help);
  }
}

/**
 * Writes `data` into `folder` under `name` (a server-given name, reduced to its base name),
 * never over an existing file: `a.png`, then `a (1).png`, `a (2).png`. Returns the path written.
 *
 * @throws {CliError} the folder cannot be written (exit code 6).
 * @example
 * ```ts
 * const path = await writeNewFile('./out', 'ComfyUI_00001_.png', bytes);
 * ```
 */
export async function writeNewFile(folder: string, name: string, data: Uint8Array): Promise<string> {
  const safe = basename(name.replaceAll('\\', '/')).replace(/^\.+/, '') || 'output';
  const ext = extname(safe);
  const stem = safe.slice(0, safe.length - ext.length);
  for (let n = 0; n < 10_000; n++) {
    const path = join(folder, n === 0 ? safe : `${stem} (${n})${ext}`);
    let handle;
    try {
      // 'wx': created here, or EEXIST; two runs saving into one folder never overwrite each other.
      handle = await open(path, 'wx');
    } catch (error) {
      if ((error as { code?: string }).code === 'EEXIST') continue;
      throw new CliError(`Cannot write ${path}: ${reason(error)}.`, 'Choose another --out folder.', EXIT.error, { cause: error });
    }
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
    return path;
  }
  throw new CliError(`Cannot find a free name for ${safe} in ${folder}.`, 'Choose another --out folder.', EXIT.error);
}

function reason(error: unknown): string {
  switch ((error as { code?: string }).code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
