/**
 * Draws examples/assets/photo.png, the picture the examples upload when given none: a 128x96
 * landscape (sky gradient, sun, two mountains, a lake), so a scaled or inverted output is easy to
 * recognise. Run it again only to change the picture:
 *
 *   npx tsx examples/assets/make-photo.ts
 */
import { writeFileSync } from 'node:fs';
import { encodeBitmapPng } from '../../src/testing/files/png.js';

const WIDTH = 128;
const HEIGHT = 96;
type Rgb = [number, number, number];

function colourAt(x: number, y: number): Rgb {
  const mix = (a: Rgb, b: Rgb, t: number): Rgb => [0, 1, 2].map((i) => Math.round(a[i]! + (b[i]! - a[i]!) * t)) as Rgb;
  if (y >= 70) return (x + y) % 9 < 2 && y > 74 ? [120, 170, 230] : mix([40, 90, 170], [20, 50, 110], (y - 70) / 25); // lake, with ripples
  if ((x - 96) ** 2 + (y - 22) ** 2 <= 11 ** 2) return [255, 214, 64]; // sun
  if (y >= 70 - (32 - Math.abs(x - 40)) * 1.4) return y < 38 ? [245, 245, 250] : [80, 110, 70]; // snowy peak
  if (y >= 70 - (28 - Math.abs(x - 88)) * 0.9) return [60, 120, 60]; // green hill
  return mix([70, 130, 220], [200, 225, 250], y / 70); // sky
}

const data = new Uint8Array(WIDTH * HEIGHT * 3);
for (let y = 0; y < HEIGHT; y += 1) for (let x = 0; x < WIDTH; x += 1) data.set(colourAt(x, y), (y * WIDTH + x) * 3);
const png = encodeBitmapPng({ width: WIDTH, height: HEIGHT, data });
writeFileSync(new URL('./photo.png', import.meta.url), png);
console.log(`wrote examples/assets/photo.png (${WIDTH}x${HEIGHT}, ${png.byteLength} bytes)`);
