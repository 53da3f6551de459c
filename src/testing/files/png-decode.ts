import { inflateSync } from 'node:zlib';
import type { Bitmap } from './png.js';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Channels per pixel of each 8-bit colour type: grey, RGB, palette, grey + alpha, RGBA. */
const CHANNELS = new Map([
  [0, 1],
  [2, 3],
  [3, 1],
  [4, 2],
  [6, 4],
]);

/**
 * The fields of a PNG's IHDR chunk.
 *
 * @example
 * const header: PngHeader = { width: 4, height: 2, bitDepth: 8, colorType: 2, interlaced: false };
 */
export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
}

/**
 * A PNG the simulator cannot decode: not a PNG, a format it does not read, or corrupt data.
 *
 * @example
 * throw new PngDecodeError('the PNG is interlaced');
 */
export class PngDecodeError extends Error {
  override readonly name = 'PngDecodeError';
}

/**
 * Reads the IHDR chunk; `undefined` when the bytes are not a PNG.
 *
 * @example
 * readPngHeader(encodePng(3, 2, [0, 0, 0]))?.colorType; // 2
 */
export function readPngHeader(bytes: Uint8Array): PngHeader | undefined {
  if (bytes.byteLength < 29 || SIGNATURE.some((value, index) => bytes[index] !== value)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20), bitDepth: bytes[24]!, colorType: bytes[25]!, interlaced: bytes[28] !== 0 };
}

/**
 * Why the simulator would not decode a PNG with this header (`undefined` when it would): it reads
 * non-interlaced 8-bit grey, RGB, palette, grey + alpha and RGBA images up to `maxPixels`.
 *
 * @example
 * unsupportedReason({ width: 1e5, height: 1e5, bitDepth: 8, colorType: 2, interlaced: false }, 16e6); // 'the image is 100000x100000 ...'
 */
export function unsupportedReason(header: PngHeader, maxPixels: number): string | undefined {
  const { width, height, bitDepth, colorType } = header;
  if (width === 0 || height === 0) return `the image is ${width}x${height}`;
  if (width * height > maxPixels) return `the image is ${width}x${height} (${width * height} pixels); the simulator decodes at most ${maxPixels} pixels`;
  if (bitDepth !== 8 || !CHANNELS.has(colorType)) return `the simulator decodes 8-bit PNGs only (this one has bit depth ${bitDepth}, colour type ${colorType})`;
  if (header.interlaced) return 'the simulator does not decode interlaced PNGs';
  return undefined;
}

/**
 * Decodes a PNG into RGB pixels (alpha dropped, grey and palette expanded), as the runtime's
 * `LoadImage` gives its IMAGE output. The size is checked against `maxPixels` before anything is
 * inflated, and inflating stops at the size the header announces.
 *
 * @throws {PngDecodeError} when the bytes are not a PNG the simulator reads
 * @example
 * decodePng(encodePng(2, 1, [255, 0, 0]), 1_000_000).data; // Uint8Array [255, 0, 0, 255, 0, 0]
 */
export function decodePng(bytes: Uint8Array, maxPixels: number): Bitmap {
  const header = readPngHeader(bytes);
  if (!header) throw new PngDecodeError('the file is not a PNG');
  const reason = unsupportedReason(header, maxPixels);
  if (reason) throw new PngDecodeError(reason);
  const { width, height, colorType } = header;
  const channels = CHANNELS.get(colorType)!;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const idat: Uint8Array[] = [];
  let palette: Uint8Array | undefined;
  for (let at = 8; at + 8 <= bytes.byteLength; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (data.byteLength !== length) throw new PngDecodeError(`the ${type} chunk is truncated`);
    if (type === 'IDAT') idat.push(data);
    else if (type === 'PLTE') palette = data;
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  if (idat.length === 0) throw new PngDecodeError('the PNG has no image data');
  if (colorType === 3 && !palette) throw new PngDecodeError('the palette PNG has no PLTE chunk');
  const stride = width * channels;
  const expected = height * (stride + 1);
  let raw: Uint8Array;
  try {
    raw = inflateSync(Buffer.concat(idat), { maxOutputLength: expected });
  } catch {
    throw new PngDecodeError('the image data is corrupt or larger than the header says');
  }
  if (raw.byteLength !== expected) throw new PngDecodeError('the image data is shorter than the header says');
  unfilter(raw, height, stride, channels);
  const out = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    const row = y * (stride + 1) + 1;
    for (let x = 0; x < width; x += 1) {
      const source = row + x * channels;
      const target = (y * width + x) * 3;
      if (colorType === 2 || colorType === 6) {
        out[target] = raw[source]!;
        out[target + 1] = raw[source + 1]!;
        out[target + 2] = raw[source + 2]!;
      } else if (colorType === 3) {
        const index = raw[source]! * 3;
        if (index + 2 >= palette!.byteLength) throw new PngDecodeError('a pixel names a colour the palette does not have');
        out.set(palette!.subarray(index, index + 3), target);
      } else {
        out.fill(raw[source]!, target, target + 3);
      }
    }
  }
  return { width, height, data: out };
}

/** Undoes the per-row filters in place (the filter byte of each row is left as it was). */
function unfilter(raw: Uint8Array, height: number, stride: number, bpp: number): void {
  for (let y = 0; y < height; y += 1) {
    const start = y * (stride + 1);
    const filter = raw[start];
    const row = start + 1;
    const above = row - (stride + 1);
    for (let i = 0; i < stride; i += 1) {
      const a = i >= bpp ? raw[row + i - bpp]! : 0;
      const b = y > 0 ? raw[above + i]! : 0;
      const c = y > 0 && i >= bpp ? raw[above + i - bpp]! : 0;
      let predicted: number;
      if (filter === 0) predicted = 0;
      else if (filter === 1) predicted = a;
      else if (filter === 2) predicted = b;
      else if (filter === 3) predicted = (a + b) >> 1;
      else if (filter === 4) predicted = paeth(a, b, c);
      else throw new PngDecodeError(`row ${y} has an unknown filter type ${String(filter)}`);
      raw[row + i] = (raw[row + i]! + predicted) & 0xff;
    }
  }
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}
