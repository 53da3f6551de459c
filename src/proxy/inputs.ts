import { bytesToBase64, mimeTypeOf, toBytes, ValidationError, type Checker } from '../core/index.js';
import { sniffImageType } from './image-size.js';

/**
 * A file on disk (Node, Bun, Deno), read and sent as Base64. A plain string is never read as a
 * path: strings go to the server as they are (a URL or Base64), so user-supplied text cannot make
 * the SDK upload a local file.
 *
 * @example
 * ```ts
 * await proxy.image.upscale({ image: { path: './photo.png' }, scale_factor: '2x' });
 * ```
 */
export interface ImageFile {
  /** The file's path, absolute or relative to the working directory. */
  path: string;
}

/**
 * An image argument of a media task: an `http(s)://` URL, a `data:` URL or Base64 text (sent
 * unchanged), or bytes, a `Blob`/`File` or `{ path }`, which the SDK encodes to Base64. Unlike the
 * core's `FileInput`, a plain string is never read as a file path.
 *
 * @example
 * ```ts
 * const inputs: ProxyImageInput[] = ['https://example.com/a.png', 'iVBORw0KGgo…', new Uint8Array(png), blob, { path: './a.png' }];
 * ```
 */
export type ProxyImageInput = string | Blob | ArrayBuffer | ArrayBufferView | ImageFile;

/**
 * How encoded bytes are written: bare Base64, or a `data:<type>;base64,` URL.
 * @example const format: Base64Format = 'data-url';
 */
export type Base64Format = 'raw' | 'data-url';

/**
 * An image input ready for the wire, with its bytes when the SDK has them (for the size check).
 * @example const { wire, bytes } = await resolveImage(check, 'image', png, 'raw');
 */
export interface ResolvedImage {
  wire: unknown;
  /** Bytes given by the caller (binary, file). */
  bytes?: Uint8Array | undefined;
  /** Base64 text given by the caller, undecoded. */
  base64?: string | undefined;
}

const URL_PATTERN = /^https?:\/\//i;
const DATA_URL_PATTERN = /^data:[^,]*;base64,/i;
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]+={0,2}$/;
const RULE = 'an http(s) URL, a data: URL, Base64 text, bytes, a Blob or { path } (a file path must be wrapped: { path: "./a.png" })';

/**
 * Records a problem when `value` is not a usable image input. Synchronous: nothing is read.
 * @example checkImageInput(check, 'image', './a.png', true); // records: wrap file paths in { path }
 */
export function checkImageInput(check: Checker, field: string, value: unknown, required: boolean): void {
  if (value === undefined || value === null) {
    if (required) check.fail(field, `required: ${RULE}`, value);
    return;
  }
  if (typeof value === 'string') {
    const compact = value.replace(/\s+/g, '');
    if (URL_PATTERN.test(value) || DATA_URL_PATTERN.test(value) || (compact !== '' && BASE64_PATTERN.test(compact))) return;
    return check.fail(field, RULE, value);
  }
  if (value instanceof Blob || value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return;
  if (typeof value === 'object' && typeof (value as ImageFile).path === 'string') return;
  check.fail(field, RULE, typeof value);
}

/**
 * Encodes a binary image input to Base64 (reading a file when given `{ path }`); strings and
 * anything else pass unchanged. A file that cannot be read is recorded on `check`.
 * @example const { wire } = await resolveImage(check, 'images[0]', { path: './a.png' }, 'data-url'); // 'data:image/png;base64,…'
 */
export async function resolveImage(check: Checker, field: string, value: unknown, format: Base64Format): Promise<ResolvedImage> {
  if (typeof value === 'string') {
    if (URL_PATTERN.test(value)) return { wire: value };
    const comma = DATA_URL_PATTERN.test(value) ? value.indexOf(',') + 1 : 0;
    return { wire: value, base64: value.slice(comma) };
  }
  const isFile = typeof value === 'object' && value !== null && typeof (value as ImageFile).path === 'string' && !(value instanceof Blob);
  if (!isFile && !(value instanceof Blob || value instanceof ArrayBuffer || ArrayBuffer.isView(value))) return { wire: value };
  const source = isFile ? (value as ImageFile).path : (value as Blob | ArrayBuffer | ArrayBufferView);
  const bytes = await toBytes(source, field).catch((error: unknown) => {
    if (!(error instanceof ValidationError)) throw error;
    for (const issue of error.issues) check.fail(field, issue.rule, issue.received);
  });
  if (!bytes) return { wire: undefined };
  const encoded = bytesToBase64(bytes);
  if (format === 'raw') return { wire: encoded, bytes };
  const type = sniffImageType(bytes) ?? (value instanceof Blob && value.type ? value.type : isFile ? mimeTypeOf((value as ImageFile).path) : undefined) ?? 'application/octet-stream';
  return { wire: `data:${type};base64,${encoded}`, bytes };
}

/**
 * Decodes the start of Base64 text (enough for an image header); `undefined` when it is not Base64.
 * @example decodeBase64Head('iVBORw0KGgo=') // Uint8Array [0x89, 0x50, …]
 */
export function decodeBase64Head(text: string, maxChars = 262_144): Uint8Array | undefined {
  const head = text.replace(/\s+/g, '').slice(0, maxChars).replace(/-/g, '+').replace(/_/g, '/');
  const usable = head.replace(/=+$/, '');
  const whole = usable.slice(0, usable.length - (usable.length % 4));
  try {
    return Uint8Array.from(atob(whole), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
