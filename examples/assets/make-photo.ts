/**
 * Draws examples/assets/photo.png, the picture the examples upload when given none: a 128x96
 * landscape (sky gradient, sun, two mountains, a lake), so a scaled or inverted output is easy to
 * recognise. Run it again only to change the picture:
 *
 *   npx tsx examples/assets/make-photo.ts
 */
import { writeFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';

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

const stride = WIDTH * 3;
const rows: Uint8Array[] = [];
let previous = new Uint8Array(stride);
for (let y = 0; y < HEIGHT; y += 1) {
  const row = new Uint8Array(stride);
  for (let x = 0; x < WIDTH; x += 1) row.set(colourAt(x, y), x * 3);
  // The smaller of the Sub and Up filters, as encoders pick them.
  const sub = Uint8Array.from(row, (v, i) => (v - (i >= 3 ? row[i - 3]! : 0)) & 0xff);
  const up = Uint8Array.from(row, (v, i) => (v - previous[i]!) & 0xff);
  const cost = (r: Uint8Array): number => r.reduce((n, v) => n + Math.min(v, 256 - v), 0);
  rows.push(cost(sub) <= cost(up) ? Uint8Array.of(1, ...sub) : Uint8Array.of(2, ...up));
  previous = row;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.byteLength);
  out.writeUInt32BE(data.byteLength, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.byteLength)), 8 + data.byteLength);
  return out;
}

const header = Buffer.alloc(13);
header.writeUInt32BE(WIDTH, 0);
header.writeUInt32BE(HEIGHT, 4);
header.set([8, 2, 0, 0, 0], 8);
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('./photo.png', import.meta.url), png);
console.log(`wrote examples/assets/photo.png (${WIDTH}x${HEIGHT}, ${png.byteLength} bytes)`);
