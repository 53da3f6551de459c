import { ValidationError } from './errors.js';

// A file opened from a path through the runtime's `node:fs` promises API (Node, Bun, Deno), for
// withFile() in files.ts, which loads this module on first use so browser bundles stay without it.

interface NodeFileHandle {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<{ size: number; isFile(): boolean }>;
  close(): Promise<void>;
}

interface NodeFsPromises {
  open(path: string, flags: string): Promise<NodeFileHandle>;
}

/**
 * A file the SDK opened from a path (Node, Bun, Deno), read from disk as it is sent. The call that
 * opens it closes it before it settles, however it ends (`withFile()`): a read file blob of
 * Node (`fs.openAsBlob`) leaves a `FileHandleReadWrap` listed for good, and one whose stream was
 * left unread keeps its descriptor open, so a path is never made a blob where streams are sent.
 *
 * @example
 * ```ts
 * const answer = await withFile('./photo.png', 'input', (file) => send(file.stream(), file.size));
 * ```
 */
export interface OpenedFile {
  /** Bytes in the file when it was opened; its streams end there. */
  readonly size: number;
  /** The MIME type its extension names, or `''`. */
  readonly type: string;
  /** The first `length` bytes (fewer when the file is shorter). */
  head(length: number): Promise<Uint8Array>;
  /** The file from its start, a new stream on every call (a retry sends it again). */
  stream(): ReadableStream<Uint8Array>;
}

/** Bytes of one read from an opened file. */
const READ_BYTES = 64 * 1024;

/**
 * Opens `path` for reading: a regular file, its size taken now. The caller closes it.
 *
 * @throws {@link ValidationError} naming `field` outside Node-like runtimes, or for a path that is
 * not a readable regular file.
 * @example
 * ```ts
 * const file = await openFile('./photo.png', 'input', 'image/png');
 * try { await send(file.stream()); } finally { await file.close(); }
 * ```
 */
export async function openFile(path: string, field: string, type: string): Promise<OpenedFile & { close(): Promise<void> }> {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = proc?.getBuiltinModule?.('node:fs/promises') as NodeFsPromises | undefined;
  if (!fs?.open) throw new ValidationError([{ path: field, rule: 'a Blob, bytes or a stream (file paths need Node 22+, Bun or Deno)', received: path }]);
  const unreadable = (cause: unknown) => new ValidationError([{ path: field, rule: `a readable file (${(cause as Error).message})`, received: path }]);
  let handle: NodeFileHandle;
  try {
    handle = await fs.open(path, 'r');
  } catch (cause) {
    throw unreadable(cause);
  }
  let size: number;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a regular file');
    size = stat.size;
  } catch (cause) {
    await handle.close();
    throw unreadable(cause);
  }
  const readAt = async (position: number, length: number): Promise<Uint8Array> => {
    const buffer = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  };
  return {
    size,
    type,
    head: (length) => readAt(0, Math.max(0, Math.min(length, size))),
    stream() {
      let position = 0;
      return new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            const chunk = position < size ? await readAt(position, Math.min(READ_BYTES, size - position)) : new Uint8Array(0);
            position += chunk.byteLength;
            // A file that shrank since it was opened ends early; its content-length then fails the send.
            if (chunk.byteLength > 0) controller.enqueue(chunk);
            if (chunk.byteLength === 0 || position >= size) controller.close();
          },
        },
        { highWaterMark: 0 },
      );
    },
    close: () => handle.close(),
  };
}
