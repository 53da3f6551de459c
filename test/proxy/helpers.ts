import { vi } from 'vitest';
import { useMsw } from '../helpers/msw.js';
import { ProxyClient } from '../../src/proxy/client.js';
import type { ProxyClientOptions } from '../../src/proxy/options.js';

export const BASE = 'https://proxy.test';
export const TOKEN = 'tok-123';

/** An msw server for the file: unhandled requests fail; every request is recorded. */
export const useProxyServer = useMsw;

export function client(options: Partial<ProxyClientOptions> = {}): ProxyClient {
  return new ProxyClient({ baseUrl: BASE, token: TOKEN, ...options });
}

/** Lets msw's promise chains run under fake timers. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await vi.advanceTimersByTimeAsync(0);
}

/** A PNG header (signature + IHDR) of the given size: enough for the size reader. */
export function pngHeader(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 2, 0, 0, 0], 24);
  return bytes;
}

/** A JPEG start: SOI, an APP1 segment of `app1Length` bytes, then a baseline SOF0 with the size. */
export function jpegHeader(width: number, height: number, app1Length = 16): Uint8Array {
  const bytes = new Uint8Array(2 + 2 + app1Length + 19);
  const view = new DataView(bytes.buffer);
  bytes.set([0xff, 0xd8, 0xff, 0xe1]);
  view.setUint16(4, app1Length);
  const sof = 4 + app1Length;
  bytes.set([0xff, 0xc0], sof);
  view.setUint16(sof + 2, 17);
  bytes[sof + 4] = 8;
  view.setUint16(sof + 5, height);
  view.setUint16(sof + 7, width);
  return bytes;
}

/** A WebP start of the given chunk kind. */
export function webpHeader(kind: 'VP8 ' | 'VP8L' | 'VP8X', width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(40);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => bytes.set([...text].map((c) => c.charCodeAt(0)), at);
  ascii(0, 'RIFF');
  ascii(8, 'WEBP');
  ascii(12, kind);
  if (kind === 'VP8X') {
    for (const [at, value] of [[24, width - 1], [27, height - 1]] as const) bytes.set([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff], at);
  } else if (kind === 'VP8 ') {
    bytes.set([0x9d, 0x01, 0x2a], 23);
    view.setUint16(26, width, true);
    view.setUint16(28, height, true);
  } else {
    bytes[20] = 0x2f;
    view.setUint32(21, ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), true);
  }
  return bytes;
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}
