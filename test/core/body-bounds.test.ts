import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { GraphcloudError, HttpClient, TimeoutError } from '../../src/core/index.js';

// A real loopback server (no msw): what is measured is how the SDK reads bytes from a socket.
let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

async function serve(answer: (res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    answer(res);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const MiB = 1024 * 1024;
const Any = z.unknown();

describe('HttpClient answer bodies', () => {
  it('refuses an answer that declares more than 64 MiB before reading it', async () => {
    // The server declares 65 MiB, sends a few bytes and then nothing: a reader that waited for the
    // bytes to count them would sit here until the attempt's timeout.
    const baseUrl = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(65 * MiB) });
      res.write('{"a":');
    });
    const error = await new HttpClient({ baseUrl, retry: false, timeout: 60_000 }).request({ method: 'GET', path: '/big', schema: Any }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphcloudError);
    expect((error as Error).message).toMatch(/larger than 67108864 bytes/);
  });

  it('refuses a chunked answer once it passes 64 MiB', async () => {
    const chunk = Buffer.alloc(MiB, 0x20);
    const baseUrl = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let sent = 0;
      const more = () => {
        while (sent < 70 && res.write(chunk)) sent++;
        if (sent < 70) res.once('drain', more);
        else res.end();
      };
      more();
    });
    const error = await new HttpClient({ baseUrl, retry: false }).request({ method: 'GET', path: '/big', schema: Any }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphcloudError);
    expect((error as Error).message).toMatch(/larger than 67108864 bytes/);
  });

  it('reads a declared-length answer whole, multi-byte characters split across packets included', async () => {
    const text = JSON.stringify({ name: 'Ünïcødé ✓ 画像', padding: 'x'.repeat(100_000) });
    const bytes = Buffer.from(text);
    const baseUrl = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) });
      // Cut inside the first multi-byte character.
      res.write(bytes.subarray(0, 11));
      setImmediate(() => res.end(bytes.subarray(11)));
    });
    const body = await new HttpClient({ baseUrl }).request({ method: 'GET', path: '/ok', schema: Any });
    expect(body).toEqual(JSON.parse(text));
  });

  // A declared length within the bound is read whole by the runtime (no chunk loop): the
  // attempt's timeout and the caller's signal must still end a body that stalls.
  it('ends a declared-length answer that stalls mid-body at the attempt timeout', async () => {
    const baseUrl = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"a":');
    });
    const error = await new HttpClient({ baseUrl, retry: false, timeout: 300 }).request({ method: 'GET', path: '/stall', schema: Any }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it("ends a declared-length answer that stalls mid-body with the caller's abort reason", async () => {
    const baseUrl = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"a":', () => setTimeout(() => controller.abort(new Error('caller gave up')), 50));
    });
    const controller = new AbortController();
    const error = await new HttpClient({ baseUrl, retry: false }).request({ method: 'GET', path: '/stall', schema: Any, options: { signal: controller.signal } }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('caller gave up');
  });
});
