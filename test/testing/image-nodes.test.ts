// The simulator's image nodes compute pixels: LoadImage decodes the upload, ImageScale /
// ImageScaleBy resample, ImageInvert inverts, SaveImage encodes the result. Runs go through the
// local runtime (no key, /api/view answers the bytes) unless a test is about the cloud's limits.
import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { decodePng } from '../../src/testing/files/png-decode.js';
import { encodeBitmapPng } from '../../src/testing/files/png.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { json, openSocket, runEnd, submit, upload } from './helpers.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

type Pixel = [number, number, number];

/** A 4x2 picture of known colours, row by row. */
const FOUR_BY_TWO: Pixel[][] = [
  [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]],
  [[0, 0, 0], [10, 20, 30], [200, 100, 50], [128, 128, 128]],
];

function bitmapOf(rows: Pixel[][]): { width: number; height: number; data: Uint8Array } {
  return { width: rows[0]!.length, height: rows.length, data: Uint8Array.from(rows.flat(2)) };
}

function rowsOf(bitmap: { width: number; height: number; data: Uint8Array }): Pixel[][] {
  return Array.from({ length: bitmap.height }, (_, y) =>
    Array.from({ length: bitmap.width }, (_, x): Pixel => {
      const at = (y * bitmap.width + x) * 3;
      return [bitmap.data[at]!, bitmap.data[at + 1]!, bitmap.data[at + 2]!];
    }),
  );
}

/** A PNG written the way other encoders write them: any colour type, one filter type per row. */
function pngWith(options: { width: number; height: number; colorType: number; channels: number; samples: number[]; filters: number[]; palette?: number[]; bitDepth?: number; interlace?: number }): Uint8Array {
  const { width, height, channels, samples, filters } = options;
  const stride = width * channels;
  const raw = new Uint8Array(height * (stride + 1));
  for (let y = 0; y < height; y += 1) {
    const filter = filters[y % filters.length]!;
    raw[y * (stride + 1)] = filter;
    for (let i = 0; i < stride; i += 1) {
      const value = samples[y * stride + i]!;
      const a = i >= channels ? samples[y * stride + i - channels]! : 0;
      const b = y > 0 ? samples[(y - 1) * stride + i]! : 0;
      const c = y > 0 && i >= channels ? samples[(y - 1) * stride + i - channels]! : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predicted = [0, a, b, (a + b) >> 1, paeth][filter]!;
      raw[y * (stride + 1) + 1 + i] = (value - predicted) & 0xff;
    }
  }
  const header = new Uint8Array(13);
  new DataView(header.buffer).setUint32(0, width);
  new DataView(header.buffer).setUint32(4, height);
  header.set([options.bitDepth ?? 8, options.colorType, 0, 0, options.interlace ?? 0], 8);
  const chunks = [chunk('IHDR', header)];
  if (options.palette) chunks.push(chunk('PLTE', Uint8Array.from(options.palette)));
  chunks.push(chunk('IDAT', deflateSync(raw)), chunk('IEND', new Uint8Array(0)));
  return concat([Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), ...chunks]);
}

/** A chunk with a zero CRC (the simulator, like many decoders, does not check it). */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.byteLength);
  new DataView(out.buffer).setUint32(0, data.byteLength);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** Uploads `bytes`, runs `nodes` (node '9' saves) on the local runtime and returns the saved PNG. */
async function run(bytes: Uint8Array, nodes: Record<string, unknown>): Promise<Uint8Array> {
  sim ??= await startSimulator({ runtime: 'local', stepDelayMs: 0 });
  expect((await upload(sim, 'known.png', bytes, { overwrite: 'true' })).status).toBe(200);
  const socket = await openSocket(sim, { clientId: 'pixels' });
  const prompt = { '1': { class_type: 'LoadImage', inputs: { image: 'known.png' } }, ...nodes, '9': { class_type: 'SaveImage', inputs: { images: [String(Object.keys(nodes).at(-1) ?? '1'), 0], filename_prefix: 'pixels' } } };
  const answer = await submit(sim, { prompt, client_id: 'pixels' });
  const body = await json(answer);
  expect(answer.status, JSON.stringify(body)).toBe(200);
  await runEnd(socket, String(body.prompt_id));
  socket.close();
  const job = sim.state.jobs().find((j) => j.id === body.prompt_id);
  expect(job?.status).toBe('completed');
  const image = (job?.outputs['9'] as { images: { filename: string }[] }).images[0]!;
  const view = await fetch(`${sim.cloudUrl}/api/view?filename=${encodeURIComponent(image.filename)}&type=output`);
  expect(view.status).toBe(200);
  return new Uint8Array(await view.arrayBuffer());
}

describe('simulator image nodes', () => {
  it('saves the scaled, inverted pixels of the upload (LoadImage -> ImageScale nearest-exact -> ImageInvert -> SaveImage)', async () => {
    const saved = await run(encodeBitmapPng(bitmapOf(FOUR_BY_TWO)), {
      '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'nearest-exact', width: 8, height: 0, crop: 'disabled' } },
      '3': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } },
    });
    const invert = ([r, g, b]: Pixel): Pixel => [255 - r, 255 - g, 255 - b];
    const expected = FOUR_BY_TWO.flatMap((row) => {
      const wide = row.flatMap((pixel) => [invert(pixel), invert(pixel)]);
      return [wide, wide];
    });
    expect(rowsOf(decodePng(saved, 1_000))).toEqual(expected);
  });

  it('interpolates bilinearly with pixel centres aligned (ImageScaleBy 2 of black, white)', async () => {
    const saved = await run(encodeBitmapPng(bitmapOf([[[0, 0, 0], [255, 255, 255]]])), {
      '2': { class_type: 'ImageScaleBy', inputs: { image: ['1', 0], upscale_method: 'bilinear', scale_by: 2 } },
    });
    const grey = (v: number): Pixel => [v, v, v];
    // Source x = (x + 0.5) / 2 - 0.5, clamped: 0, 0.25, 0.75, 1 (then 1 again on the second row).
    expect(rowsOf(decodePng(saved, 1_000))).toEqual([
      [grey(0), grey(64), grey(191), grey(255)],
      [grey(0), grey(64), grey(191), grey(255)],
    ]);
  });

  it('crops to the target aspect around the centre with crop: center', async () => {
    const saved = await run(encodeBitmapPng(bitmapOf(FOUR_BY_TWO)), {
      '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'nearest-exact', width: 2, height: 2, crop: 'center' } },
    });
    // The middle 2x2 of the 4x2 picture.
    expect(rowsOf(decodePng(saved, 1_000))).toEqual([FOUR_BY_TWO[0]!.slice(1, 3), FOUR_BY_TWO[1]!.slice(1, 3)]);
  });

  it.each([
    ['RGBA (alpha dropped)', 6, 4, (p: Pixel) => [...p, 77]],
    ['grey', 0, 1, (p: Pixel) => [p[0]]],
    ['grey + alpha', 4, 2, (p: Pixel) => [p[0], 9]],
  ])('decodes 8-bit %s PNGs written with every filter type', async (_name, colorType, channels, sample) => {
    const samples = FOUR_BY_TWO.concat(FOUR_BY_TWO, FOUR_BY_TWO).flat().flatMap((p) => sample(p as Pixel));
    const bytes = pngWith({ width: 4, height: 6, colorType, channels, samples, filters: [0, 1, 2, 3, 4] });
    const expected = FOUR_BY_TWO.concat(FOUR_BY_TWO, FOUR_BY_TWO).map((row) => row.map((p): Pixel => (channels <= 2 ? [p[0], p[0], p[0]] : p)));
    expect(rowsOf(decodePng(await run(bytes, {}), 1_000))).toEqual(expected);
  });

  it('decodes 8-bit palette PNGs', async () => {
    const palette = FOUR_BY_TWO.flat().flat();
    const bytes = pngWith({ width: 4, height: 2, colorType: 3, channels: 1, samples: [0, 1, 2, 3, 4, 5, 6, 7], filters: [1, 4], palette });
    expect(rowsOf(decodePng(await run(bytes, {}), 1_000))).toEqual(FOUR_BY_TWO);
  });

  it('reports the requested size of a huge upscale but computes at most 2048 px a side', async () => {
    const saved = await run(encodeBitmapPng(bitmapOf(FOUR_BY_TWO)), {
      '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'nearest-exact', width: 16384, height: 8192, crop: 'disabled' } },
    });
    const decoded = decodePng(saved, 10_000_000);
    expect([decoded.width, decoded.height]).toEqual([2048, 1024]);
    expect(rowsOf(decoded)[0]![0]).toEqual([255, 0, 0]);
    expect(rowsOf(decoded)[1023]![2047]).toEqual([128, 128, 128]);
  });
});

describe('simulator LoadImage refusals', () => {
  /** Only the signature and an IHDR claiming a size: what a hostile upload sends. */
  const claiming = (width: number, height: number, bitDepth = 8, colorType = 2, interlace = 0): Uint8Array => {
    const header = new Uint8Array(13);
    new DataView(header.buffer).setUint32(0, width);
    new DataView(header.buffer).setUint32(4, height);
    header.set([bitDepth, colorType, 0, 0, interlace], 8);
    return concat([Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), chunk('IHDR', header), chunk('IEND', new Uint8Array(0))]);
  };

  async function refusal(runtime: 'local' | 'cloud', bytes: Uint8Array): Promise<Record<string, unknown>> {
    sim = await startSimulator({ runtime, stepDelayMs: 0 });
    expect((await upload(sim, 'hostile.png', bytes)).status).toBe(200);
    const prompt = {
      '1': { class_type: 'LoadImage', inputs: { image: 'hostile.png' } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
    };
    const answer = await submit(sim, { prompt });
    expect(answer.status).toBe(400);
    expect(sim.state.jobs()).toEqual([]);
    return json(answer);
  }

  it('answers 400 with the node error for a PNG claiming 100000x100000, before decoding anything (local runtime)', async () => {
    const body = await refusal('local', claiming(100_000, 100_000));
    expect(body).toMatchObject({
      error: { type: 'prompt_outputs_failed_validation' },
      node_errors: { '1': { class_type: 'LoadImage', dependent_outputs: ['2'], errors: [{ type: 'custom_validation_failed', extra_info: { input_name: 'image' } }] } },
    });
    const details = (body.node_errors as Record<string, { errors: { details: string }[] }>)['1']!.errors[0]!.details;
    expect(details).toMatch(/^image - Invalid image file: hostile\.png: the image is 100000x100000 \(10000000000 pixels\); the simulator decodes at most 16777216 pixels$/);
  });

  it('answers 400 for a 20-megapixel PNG the cloud accepted as an upload', async () => {
    const body = await refusal('cloud', claiming(5_000, 4_000));
    expect(JSON.stringify(body.node_errors)).toContain('the simulator decodes at most 16777216 pixels');
  });

  it.each([
    ['a 16-bit', claiming(4, 4, 16, 2), 'bit depth 16'],
    ['an interlaced', claiming(4, 4, 8, 2, 1), 'interlaced'],
  ])('answers 400 for %s PNG, naming what it cannot read', async (_name, bytes, reason) => {
    const body = await refusal('local', bytes);
    expect(JSON.stringify(body.node_errors)).toContain(reason);
  });

  it('fails the run with UnidentifiedImageError when the data inflates past the size its header gives', async () => {
    sim = await startSimulator({ runtime: 'local', stepDelayMs: 0 });
    const header = claiming(2, 2).subarray(0, 33);
    const bomb = concat([header, chunk('IDAT', deflateSync(new Uint8Array(10_000_000))), chunk('IEND', new Uint8Array(0))]);
    expect((await upload(sim, 'bomb.png', bomb)).status).toBe(200);
    const socket = await openSocket(sim, { clientId: 'bomb' });
    const answer = await submit(sim, {
      prompt: { '1': { class_type: 'LoadImage', inputs: { image: 'bomb.png' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } },
      client_id: 'bomb',
    });
    const id = String((await json(answer)).prompt_id);
    await runEnd(socket, id);
    socket.close();
    const error = socket.received.find((m) => m.kind === 'json' && m.type === 'execution_error');
    expect(error).toMatchObject({ data: { node_id: '1', exception_type: 'UnidentifiedImageError' } });
    expect(error?.kind === 'json' && String(error.data.exception_message)).toContain('larger than the header says');
  });
});
