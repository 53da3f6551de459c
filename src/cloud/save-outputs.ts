// Saving a run's outputs into a folder (Node, Bun, Deno): one file per output, named after the
// server's file name made safe, streamed to disk, never overwriting unless asked. `node:fs` is
// reached at run time (as src/core/files.ts does), so browser bundles hold no `node:` import.
import { ValidationError, type RequestOptions } from '../core/index.js';
import { eachFile, listOutputFiles } from './shared/outputs.js';
import type { FileRef, NodeOutput, OutputFile, OutputFileRef } from './shared/types.js';

/**
 * Options of `cloud.files.saveOutputs()`.
 *
 * @example
 * ```ts
 * await cloud.files.saveOutputs(result, './out', { overwrite: true });
 * ```
 */
export interface SaveOutputsOptions extends RequestOptions {
  /**
   * Replace files of the same name in the folder. Without it, a name already taken fails the call
   * before anything is downloaded.
   * @default false
   */
  overwrite?: boolean | undefined;
}

/**
 * One file `saveOutputs()` wrote.
 *
 * @example
 * ```ts
 * for (const { path, nodeId, bytes } of await cloud.files.saveOutputs(result, './out')) console.log(nodeId, path, bytes);
 * ```
 */
export interface SavedOutput extends OutputFileRef {
  /** Where it was written. */
  path: string;
  /** The file's size, in bytes. */
  bytes: number;
}

/**
 * What can be saved: a run's result (with `files` when it was downloaded already), a job from
 * `cloud.jobs.get()`, or any outputs map.
 *
 * @example
 * ```ts
 * const source: OutputsSource = { outputs: result.outputs };
 * ```
 */
export interface OutputsSource {
  /** Outputs by node id: every file they reference is saved. */
  outputs: Record<string, NodeOutput>;
  /** Files already downloaded (`runWorkflow({ download: true })`): written as they are, not fetched again. */
  files?: OutputFile[] | undefined;
}

// The parts of `node:fs` used here.
interface NodeFs {
  promises: {
    mkdir(path: string, options: { recursive: true }): Promise<unknown>;
    open(path: string, flags: string): Promise<{ write(data: Uint8Array): Promise<unknown>; close(): Promise<void> }>;
    stat(path: string): Promise<unknown>;
    unlink(path: string): Promise<void>;
  };
}

const MAX_NAME = 180;

/**
 * Writes every output file of `source` into `dir` (created when missing), a few at a time, each
 * streamed to disk. Names are the server's file names with anything unsafe removed (no folder
 * part, no `..`); two outputs with one name get `name (2).png`, in output order, so the same
 * result always gets the same names. A failed download leaves no partial file.
 *
 * @throws {@link ValidationError} outside Node, Bun or Deno; or a name already taken in `dir` without `overwrite` (nothing was downloaded).
 * @example
 * ```ts
 * const saved = await saveOutputs((ref, o) => cloud.files.getResponse(ref, o), result, './out', {});
 * ```
 */
export async function saveOutputs(getResponse: (ref: FileRef, options: RequestOptions) => Promise<Response>, source: OutputsSource, dir: string, options: SaveOutputsOptions): Promise<SavedOutput[]> {
  const { overwrite = false, ...request } = options;
  const modules = nodeModules();
  if (!modules) throw new ValidationError([{ path: 'dir', rule: 'a folder on disk, which needs Node, Bun or Deno (in a browser, use cloud.files.get() or runWorkflow({ download: true }))', received: dir }], 'cloud.files.saveOutputs()');
  const { fs, path } = modules;
  const downloaded = new Map((source.files ?? []).map((file) => [refKey(file.nodeId, file.kind, file.ref), file.data]));
  const names = new Set<string>();
  const plan = listOutputFiles(source.outputs).map((found) => {
    const name = uniqueName(safeName(found.ref.filename), names);
    return { ...found, path: path.join(dir, name), data: downloaded.get(refKey(found.nodeId, found.kind, found.ref)) };
  });
  await fs.promises.mkdir(dir, { recursive: true });
  if (!overwrite) {
    const found = await Promise.all(plan.map((file) => fs.promises.stat(file.path).then(() => file.path, () => undefined)));
    const taken = found.filter((p) => p !== undefined);
    if (taken.length > 0) throw new ValidationError([{ path: 'dir', rule: 'a folder without files of these names, or overwrite: true', received: taken }], 'cloud.files.saveOutputs()');
  }
  return eachFile(plan, async (file, signal): Promise<SavedOutput> => {
    const body = file.data ?? (await getResponse(file.ref, { ...request, signal })).body;
    const bytes = await writeFile(fs, file.path, body, overwrite ? 'w' : 'wx');
    return { nodeId: file.nodeId, kind: file.kind, ref: file.ref, path: file.path, bytes };
  }, request.signal);
}

/** Writes bytes or a stream to `path`; a failure removes what was written. */
async function writeFile(fs: NodeFs, path: string, body: Uint8Array | ReadableStream<Uint8Array> | null, flags: string): Promise<number> {
  let handle: Awaited<ReturnType<NodeFs['promises']['open']>>;
  try {
    handle = await fs.promises.open(path, flags);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') throw new ValidationError([{ path: 'dir', rule: 'a folder without files of these names, or overwrite: true', received: [path] }], 'cloud.files.saveOutputs()');
    throw error;
  }
  let bytes = 0;
  const write = async (chunk: Uint8Array) => {
    await handle.write(chunk);
    bytes += chunk.byteLength;
  };
  try {
    if (body instanceof Uint8Array) await write(body);
    // A failed write cancels the download with its error; a failed download rejects the pipe.
    else if (body) await body.pipeTo(new WritableStream({ write }));
    await handle.close();
    return bytes;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.promises.unlink(path).catch(() => undefined);
    throw error;
  }
}

/**
 * A file name safe in any folder on any system: the last path segment of what the server sent,
 * without control or reserved characters, leading dots or trailing dots and spaces.
 *
 * @example
 * ```ts
 * safeName('../../etc/passwd'); // 'passwd'
 * ```
 */
export function safeName(filename: string): string {
  const last = filename.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  let name = last.replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_').replace(/^[.\s]+/, '').replace(/[.\s]+$/, '');
  if (/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i.test(name)) name = `_${name}`;
  if (name.length > MAX_NAME) {
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = name.slice(0, MAX_NAME - extension.length) + extension;
  }
  return name || 'output';
}

function uniqueName(name: string, taken: Set<string>): string {
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  let candidate = name;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem} (${n})${extension}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

function refKey(nodeId: string, kind: string, ref: FileRef): string {
  return JSON.stringify([nodeId, kind, ref.filename, ref.subfolder ?? '', ref.type ?? 'output']);
}

/** The runtime's `node:fs` and `node:path`, reached without an import statement. */
function nodeModules() {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = proc?.getBuiltinModule?.('node:fs') as NodeFs | undefined;
  const path = proc?.getBuiltinModule?.('node:path') as { join(...parts: string[]): string } | undefined;
  return fs?.promises && path ? { fs, path } : undefined;
}
