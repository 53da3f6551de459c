import { ValidationError } from './errors.js';
import type { OpenedFile } from './open-file.js';

export type { OpenedFile } from './open-file.js';

/**
 * Binary input accepted wherever the SDK takes a file: a `Blob`/`File`, bytes, a stream, or
 * (Node, Bun, Deno) a file path, opened lazily and streamed from disk.
 *
 * @example
 * ```ts
 * await cloud.uploadImage('./photo.png');
 * await cloud.uploadImage(new Blob([bytes], { type: 'image/png' }), { filename: 'photo.png' });
 * ```
 */
export type FileInput = Blob | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array> | string;

interface NodeFs {
  openAsBlob(path: string, options?: { type?: string }): Promise<Blob>;
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
};

/** Guesses a MIME type from a file name. */
export function mimeTypeOf(name: string): string | undefined {
  const extension = name.split('.').pop()?.toLowerCase() ?? '';
  return MIME_BY_EXTENSION[extension];
}

/** Last segment of a path, for a default upload file name. */
export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || 'file';
}

/**
 * Turns any `FileInput` into a `Blob` without reading a file or a stream into memory first
 * (a path becomes `fs.openAsBlob`, read from disk as it is sent).
 *
 * @throws {@link ValidationError} for a path outside Node-like runtimes, or an unsupported value.
 */
export async function toBlob(input: FileInput, field = 'input'): Promise<Blob> {
  if (typeof input === 'string') {
    // The runtime's `node:fs`, reached without an import statement so browser bundles stay free of `node:` modules.
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const fs = proc?.getBuiltinModule?.('node:fs') as NodeFs | undefined;
    if (!fs?.openAsBlob) throw new ValidationError([{ path: field, rule: 'a Blob, bytes or a stream (file paths need Node 22+, Bun or Deno)', received: input }]);
    const type = mimeTypeOf(input);
    try {
      return await fs.openAsBlob(input, type ? { type } : {});
    } catch (cause) {
      throw new ValidationError([{ path: field, rule: `a readable file (${(cause as Error).message})`, received: input }]);
    }
  }
  if (input instanceof Blob) return input;
  // A view gives the Blob its own bytes only (its offset and length).
  if (input instanceof ArrayBuffer || ArrayBuffer.isView(input)) return new Blob([input as ArrayBuffer | ArrayBufferView<ArrayBuffer>]);
  if (input instanceof ReadableStream) return new Response(input).blob();
  throw new ValidationError([{ path: field, rule: 'a Blob, File, ArrayBuffer, Uint8Array, ReadableStream or file path', received: typeof input }]);
}

/** Reads any `FileInput` into bytes (for inputs that must travel inline, such as Base64 images). */
export async function toBytes(input: FileInput, field = 'input'): Promise<Uint8Array> {
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (typeof input === 'string') return withFile(input, field, (file) => file.head(file.size));
  return new Uint8Array(await (await toBlob(input, field)).arrayBuffer());
}

/**
 * Opens the file at `path`, runs `use` on it, and closes it when `use` settles, whatever way.
 *
 * @throws {@link ValidationError} naming `field` for a path outside Node-like runtimes, or a path
 * that is not a readable regular file.
 * @example
 * ```ts
 * const bytes = await withFile('./photo.png', 'image', (file) => file.head(file.size));
 * ```
 */
export async function withFile<T>(path: string, field: string, use: (file: OpenedFile) => Promise<T>): Promise<T> {
  // Node, Bun and Deno only: loaded on first use, so no browser bundle carries it.
  const { openFile } = await import('./open-file.js');
  const file = await openFile(path, field, mimeTypeOf(path) ?? '');
  try {
    return await use(file);
  } finally {
    // Waits for a read in flight; a stream still held by fetch then fails its next read.
    await file.close();
  }
}

/** Base64 of bytes, using the runtime's native encoder when it has one. */
export function bytesToBase64(bytes: Uint8Array): string {
  const native = (bytes as Uint8Array & { toBase64?: () => string }).toBase64;
  if (typeof native === 'function') return native.call(bytes);
  let binary = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}
