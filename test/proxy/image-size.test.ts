import { describe, expect, it } from 'vitest';
import { readImageSize, sniffImageType } from '../../src/proxy/image-size.js';
import { jpegHeader, pngHeader, webpHeader } from './helpers.js';

describe('readImageSize()', () => {
  it('reads PNG, JPEG (behind a large APP1) and the three WebP kinds', () => {
    expect(readImageSize(pngHeader(640, 480))).toEqual({ type: 'image/png', width: 640, height: 480 });
    expect(readImageSize(jpegHeader(4000, 3000, 60_000))).toEqual({ type: 'image/jpeg', width: 4000, height: 3000 });
    expect(readImageSize(webpHeader('VP8 ', 1024, 768))).toEqual({ type: 'image/webp', width: 1024, height: 768 });
    expect(readImageSize(webpHeader('VP8L', 300, 200))).toEqual({ type: 'image/webp', width: 300, height: 200 });
    expect(readImageSize(webpHeader('VP8X', 16_000, 9_000))).toEqual({ type: 'image/webp', width: 16_000, height: 9_000 });
  });

  it('returns undefined for other formats and truncated headers', () => {
    expect(readImageSize(new TextEncoder().encode('GIF89a....'))).toBeUndefined();
    expect(readImageSize(pngHeader(10, 10).subarray(0, 20))).toBeUndefined();
    expect(readImageSize(jpegHeader(10, 10, 200).subarray(0, 100))).toBeUndefined();
    expect(readImageSize(new Uint8Array())).toBeUndefined();
  });

  it('sniffs the MIME type from magic numbers', () => {
    expect(sniffImageType(pngHeader(1, 1))).toBe('image/png');
    expect(sniffImageType(jpegHeader(1, 1))).toBe('image/jpeg');
    expect(sniffImageType(webpHeader('VP8 ', 1, 1))).toBe('image/webp');
    expect(sniffImageType(new TextEncoder().encode('GIF87a'))).toBe('image/gif');
    expect(sniffImageType(Uint8Array.of(1, 2, 3))).toBeUndefined();
  });
});
