import { createHash } from 'node:crypto';
import { pngSize } from './png.js';

/**
 * Folder types of the cloud runtime.
 *
 * @example
 * const type: FolderType = 'output';
 */
export type FolderType = 'input' | 'temp' | 'output';

/**
 * A stored file: uploaded bytes, or an output whose PNG is rendered on first read.
 *
 * @example
 * const file = store.get('output', '', 'ComfyUI_00001_.png');
 * file?.bytes();
 */
export interface StoredFile {
  name: string;
  subfolder: string;
  type: FolderType;
  contentType: string;
  width: number;
  height: number;
  /** Content hash (uploads) or render recipe (outputs); changes whenever the bytes would. */
  hash: string;
  bytes(): Uint8Array;
}

/**
 * The in-memory file system of the cloud area (uploads, temp and output files).
 *
 * @example
 * const store = new FileStore();
 * store.upload('input', 'cat.png', bytes, 'image/png', false); // { name: 'cat.png', ... }
 */
export class FileStore {
  readonly #files = new Map<string, StoredFile>();

  /** Looks a file up by folder type, subfolder and name. */
  get(type: string, subfolder: string, name: string): StoredFile | undefined {
    return this.#files.get(key(type, subfolder, name));
  }

  /** Names of one folder type, as `LoadImage` lists them (subfolder-qualified). */
  list(type: FolderType): string[] {
    return [...this.#files.values()]
      .filter((file) => file.type === type)
      .map((file) => (file.subfolder ? `${file.subfolder}/${file.name}` : file.name));
  }

  /**
   * Stores an upload: identical content under the same name is deduplicated, different content is
   * renamed `name (1).ext` unless `overwrite` is set.
   */
  upload(type: FolderType, name: string, bytes: Uint8Array, contentType: string, overwrite: boolean): StoredFile {
    const hash = createHash('sha256').update(bytes).digest('hex');
    const dot = name.lastIndexOf('.');
    const stem = dot > 0 ? name.slice(0, dot) : name;
    const ext = dot > 0 ? name.slice(dot) : '';
    let candidate = name;
    for (let counter = 1; ; counter += 1) {
      const existing = this.#files.get(key(type, '', candidate));
      if (!existing || existing.hash === hash || overwrite) break;
      candidate = `${stem} (${counter})${ext}`;
    }
    const size = pngSize(bytes) ?? { width: 64, height: 64 };
    const copy = Uint8Array.from(bytes);
    const file = { name: candidate, subfolder: '', type, contentType, hash, ...size, bytes: () => copy };
    this.#files.set(key(type, '', candidate), file);
    return file;
  }

  /**
   * Stores a generated output image: `render` encodes its PNG on first read; `hash` names its
   * content (equal hashes, equal bytes).
   */
  output(type: FolderType, subfolder: string, name: string, image: { width: number; height: number; hash: string; render: () => Uint8Array }): StoredFile {
    let cached: Uint8Array | undefined;
    const file = {
      name,
      subfolder,
      type,
      contentType: 'image/png',
      hash: image.hash,
      width: image.width,
      height: image.height,
      bytes: () => {
        cached ??= image.render();
        return cached;
      },
    };
    this.#files.set(key(type, subfolder, name), file);
    return file;
  }
}

function key(type: string, subfolder: string, name: string): string {
  return `${type}\u0000${subfolder}\u0000${name}`;
}
