/**
 * Pixel size and type of an image, read from its header only.
 * @example const size = readImageSize(bytes); // { type: 'image/png', width: 512, height: 512 }
 */
export interface ImageSize {
  type: 'image/png' | 'image/jpeg' | 'image/webp';
  width: number;
  height: number;
}

/**
 * Reads the width and height from a PNG, JPEG or WebP header; `undefined` for any other format or
 * a header cut short (the first few hundred kilobytes are enough, even behind EXIF data).
 *
 * @example
 * ```ts
 * const size = readImageSize(await readFile('photo.jpg'));
 * if (size) console.log(size.width * size.height, 'pixels');
 * ```
 */
export function readImageSize(bytes: Uint8Array): ImageSize | undefined {
  const type = sniffImageType(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    if (type === 'image/png') return bytes.length >= 24 ? { type, width: view.getUint32(16), height: view.getUint32(20) } : undefined;
    if (type === 'image/jpeg') return jpegSize(bytes, view);
    if (type === 'image/webp') return webpSize(bytes, view);
  } catch {
    // A truncated header: the size is unknown, not an error of the caller.
  }
  return undefined;
}

/**
 * The MIME type of image bytes from their magic number (PNG, JPEG, WebP, GIF).
 * @example sniffImageType(Uint8Array.of(0xff, 0xd8, 0xff)) // 'image/jpeg'
 */
export function sniffImageType(bytes: Uint8Array): 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif' | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes[0] === 0x89 && ascii(1, 4) === 'PNG') return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (ascii(0, 4) === 'GIF8') return 'image/gif';
  return undefined;
}

// Start-of-frame markers carry the size; C4 (Huffman), C8 (reserved) and CC (arithmetic) do not.
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpegSize(bytes: Uint8Array, view: DataView): ImageSize | undefined {
  let offset = 2;
  while (offset + 9 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] ?? 0;
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2; // markers without a length
      continue;
    }
    if (SOF.has(marker)) return { type: 'image/jpeg', height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) };
    offset += 2 + view.getUint16(offset + 2);
  }
  return undefined;
}

function webpSize(bytes: Uint8Array, view: DataView): ImageSize | undefined {
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  const type = 'image/webp' as const;
  if (chunk === 'VP8X' && bytes.length >= 30) {
    const u24 = (at: number) => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8) | ((bytes[at + 2] ?? 0) << 16);
    return { type, width: u24(24) + 1, height: u24(27) + 1 };
  }
  if (chunk === 'VP8 ' && bytes.length >= 30) {
    return { type, width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  }
  if (chunk === 'VP8L' && bytes.length >= 25) {
    const bits = view.getUint32(21, true);
    return { type, width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  return undefined;
}
