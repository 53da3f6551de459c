import { decodePng, readPngHeader, unsupportedReason } from '../files/png-decode.js';
import { colorFor, type Bitmap } from '../files/png.js';
import type { StoredFile } from '../files/store.js';

/**
 * Bounds of the simulator's image nodes. `LoadImage` refuses a PNG over `maxLoadPixels` (a
 * hostile header claiming 100000x100000 is refused before anything is inflated), and every image
 * is computed at no more than `maxComputedEdge` pixels a side, its reported size kept: an upscale
 * to 16384 px costs at most 2048 x 2048 pixels.
 *
 * @example
 * IMAGE_LIMITS.maxLoadPixels; // 16777216
 */
export const IMAGE_LIMITS = Object.freeze({ maxLoadPixels: 4096 * 4096, maxComputedEdge: 2048 });

/**
 * An IMAGE flowing along a link: its size as the runtime reports it, and its pixels, computed
 * once, on first use (a workflow whose outputs are never read computes nothing).
 *
 * @example
 * const image = placeholderImage(64, 64, 'seed');
 * image.pixels().data.length; // 64 * 64 * 3
 */
export interface ImageValue {
  kind: 'image';
  width: number;
  height: number;
  pixels(): Bitmap;
}

/**
 * Resampling of the simulator: `nearest-exact` picks the nearest pixel, every other method of the
 * node definitions (`bilinear`, `area`, `bicubic`, `lanczos`) interpolates bilinearly, both with
 * the pixel-centre alignment of the runtime (`align_corners=False`).
 *
 * @example
 * const method: ScaleMethod = 'nearest-exact';
 */
export type ScaleMethod = 'nearest-exact' | 'bilinear';

function lazy(compute: () => Bitmap): () => Bitmap {
  let bitmap: Bitmap | undefined;
  return () => (bitmap ??= compute());
}

/** The computed size of an image reported as `width` x `height`: within the edge bound, aspect kept. */
function computedSize(width: number, height: number): { width: number; height: number } {
  const factor = Math.min(1, IMAGE_LIMITS.maxComputedEdge / width, IMAGE_LIMITS.maxComputedEdge / height);
  return { width: Math.max(1, Math.round(width * factor)), height: Math.max(1, Math.round(height * factor)) };
}

/**
 * Why `LoadImage` would refuse a stored file (`undefined` when it loads it): a PNG the simulator
 * does not decode. Bytes that are not a PNG load as a placeholder.
 *
 * @example
 * loadRefusal(store.get('input', '', 'huge.png')!); // 'the image is 100000x100000 (...)'
 */
export function loadRefusal(file: StoredFile): string | undefined {
  const header = readPngHeader(file.bytes());
  return header ? unsupportedReason(header, IMAGE_LIMITS.maxLoadPixels) : undefined;
}

/**
 * The IMAGE of an uploaded file: its decoded pixels (downsized to the edge bound when larger), or,
 * for bytes that are not a PNG, a solid placeholder of the stored size.
 *
 * @throws {PngDecodeError} when the file is a PNG the simulator cannot decode
 * @example
 * loadImage(store.get('input', '', 'cat.png')!).width;
 */
export function loadImage(file: StoredFile): ImageValue {
  const bytes = file.bytes();
  if (!readPngHeader(bytes)) return placeholderImage(file.width, file.height, file.hash);
  const decoded = decodePng(bytes, IMAGE_LIMITS.maxLoadPixels);
  const size = computedSize(decoded.width, decoded.height);
  const bitmap = size.width === decoded.width && size.height === decoded.height ? decoded : resample(decoded, whole(decoded), size.width, size.height, 'bilinear');
  return { kind: 'image', width: decoded.width, height: decoded.height, pixels: () => bitmap };
}

/**
 * A solid image whose colour comes from `seed` (an input the simulator cannot read).
 *
 * @example
 * placeholderImage(64, 64, 'ComfyUI').pixels();
 */
export function placeholderImage(width: number, height: number, seed: string): ImageValue {
  const pixels = lazy(() => {
    const size = computedSize(width, height);
    const data = new Uint8Array(size.width * size.height * 3);
    const color = colorFor(seed);
    for (let at = 0; at < data.length; at += 3) data.set(color, at);
    return { ...size, data };
  });
  return { kind: 'image', width, height, pixels };
}

/**
 * `source` resized to `width` x `height`; with `crop: 'center'` the source is first cut to the
 * target's aspect ratio around its centre, as the runtime's `ImageScale` does.
 *
 * @example
 * scaleImage(image, 8, 4, 'nearest-exact', 'disabled').pixels();
 */
export function scaleImage(source: ImageValue, width: number, height: number, method: ScaleMethod, crop: 'disabled' | 'center'): ImageValue {
  const pixels = lazy(() => {
    const from = source.pixels();
    const size = computedSize(width, height);
    let region = whole(from);
    if (crop === 'center') {
      // In the source's reported size, then in its computed pixels.
      const oldAspect = source.width / source.height;
      const newAspect = width / height;
      const x = oldAspect > newAspect ? Math.round((source.width - source.width * (newAspect / oldAspect)) / 2) : 0;
      const y = oldAspect < newAspect ? Math.round((source.height - source.height * (oldAspect / newAspect)) / 2) : 0;
      const sx = from.width / source.width;
      const sy = from.height / source.height;
      region = { x: x * sx, y: y * sy, width: Math.max(1, (source.width - 2 * x) * sx), height: Math.max(1, (source.height - 2 * y) * sy) };
    }
    return resample(from, region, size.width, size.height, method);
  });
  return { kind: 'image', width, height, pixels };
}

/**
 * `source` with every channel inverted (`255 - value`), as `ImageInvert` does.
 *
 * @example
 * invertImage(image).pixels();
 */
export function invertImage(source: ImageValue): ImageValue {
  const pixels = lazy(() => {
    const from = source.pixels();
    const data = new Uint8Array(from.data.length);
    for (let at = 0; at < data.length; at += 1) data[at] = 255 - from.data[at]!;
    return { width: from.width, height: from.height, data };
  });
  return { kind: 'image', width: source.width, height: source.height, pixels };
}

interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

function whole(bitmap: Bitmap): Region {
  return { x: 0, y: 0, width: bitmap.width, height: bitmap.height };
}

/** Resamples `region` of `from` to `width` x `height` pixels. */
function resample(from: Bitmap, region: Region, width: number, height: number, method: ScaleMethod): Bitmap {
  const data = new Uint8Array(width * height * 3);
  const scaleX = region.width / width;
  const scaleY = region.height / height;
  // The last pixel of the region (a cropped-away pixel is never blended in).
  const lastX = Math.min(from.width - 1, Math.ceil(region.x + region.width) - 1);
  const lastY = Math.min(from.height - 1, Math.ceil(region.y + region.height) - 1);
  const at = (x: number, y: number): number => (y * from.width + x) * 3;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const target = (y * width + x) * 3;
      if (method === 'nearest-exact') {
        const sx = Math.min(lastX, Math.floor(region.x + (x + 0.5) * scaleX));
        const sy = Math.min(lastY, Math.floor(region.y + (y + 0.5) * scaleY));
        data.set(from.data.subarray(at(sx, sy), at(sx, sy) + 3), target);
        continue;
      }
      const fx = Math.min(lastX, region.x + Math.max(0, (x + 0.5) * scaleX - 0.5));
      const fy = Math.min(lastY, region.y + Math.max(0, (y + 0.5) * scaleY - 0.5));
      const x0 = Math.floor(fx);
      const y0 = Math.floor(fy);
      const x1 = Math.min(lastX, x0 + 1);
      const y1 = Math.min(lastY, y0 + 1);
      const wx = fx - x0;
      const wy = fy - y0;
      for (let c = 0; c < 3; c += 1) {
        const top = from.data[at(x0, y0) + c]! * (1 - wx) + from.data[at(x1, y0) + c]! * wx;
        const bottom = from.data[at(x0, y1) + c]! * (1 - wx) + from.data[at(x1, y1) + c]! * wx;
        data[target + c] = Math.round(top * (1 - wy) + bottom * wy);
      }
    }
  }
  return { width, height, data };
}
