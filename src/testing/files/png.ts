import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

/**
 * An RGB colour, each channel 0 to 255.
 *
 * @example
 * const red: Rgb = [255, 0, 0];
 */
export type Rgb = readonly [number, number, number];

/**
 * Encodes a valid solid-colour 8-bit RGB PNG of the given size.
 *
 * @example
 * const bytes = encodePng(4, 4, [0, 128, 255]);
 */
export function encodePng(width: number, height: number, color: Rgb): Uint8Array {
  const w = Math.max(1, Math.floor(width));
  const h = Math.max(1, Math.floor(height));
  const row = Buffer.alloc(1 + w * 3);
  for (let x = 0; x < w; x += 1) row.set(color, 1 + x * 3);
  const raw = Buffer.alloc(row.byteLength * h);
  for (let y = 0; y < h; y += 1) row.copy(raw, y * row.byteLength);
  return encodeRows(w, h, raw);
}

/**
 * RGB pixels, row by row, 3 bytes a pixel: the IMAGE a simulated node computes.
 *
 * @example
 * const red: Bitmap = { width: 1, height: 1, data: Uint8Array.of(255, 0, 0) };
 */
export interface Bitmap {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * Encodes RGB pixels as an 8-bit RGB PNG.
 *
 * @example
 * encodeBitmapPng({ width: 1, height: 1, data: Uint8Array.of(255, 0, 0) });
 */
export function encodeBitmapPng(bitmap: Bitmap): Uint8Array {
  const stride = bitmap.width * 3;
  const raw = Buffer.alloc((stride + 1) * bitmap.height);
  for (let y = 0; y < bitmap.height; y += 1) raw.set(bitmap.data.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  return encodeRows(bitmap.width, bitmap.height, raw);
}

/** A PNG of filtered rows (filter byte 0 each) of 8-bit RGB pixels. */
function encodeRows(w: number, h: number, raw: Uint8Array): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(w, 0);
  header.writeUInt32BE(h, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.byteLength);
  out.writeUInt32BE(data.byteLength, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.byteLength)), 8 + data.byteLength);
  return out;
}

/**
 * Reads width and height from a PNG's IHDR chunk; `undefined` when the bytes are not a PNG.
 *
 * @example
 * pngSize(encodePng(3, 2, [0, 0, 0])); // { width: 3, height: 2 }
 */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.byteLength < 24) return undefined;
  for (const [index, value] of SIGNATURE.entries()) if (bytes[index] !== value) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/**
 * Picks a stable colour from any string, so distinct outputs look distinct.
 *
 * @example
 * colorFor('ComfyUI_00001_.png'); // e.g. [143, 12, 200]
 */
export function colorFor(seed: string): Rgb {
  let hash = 2166136261;
  for (let i = 0; i < seed.length; i += 1) hash = Math.imul(hash ^ seed.charCodeAt(i), 16777619) >>> 0;
  return [hash & 0xff, (hash >>> 8) & 0xff, (hash >>> 16) & 0xff];
}
