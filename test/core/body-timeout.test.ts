import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, sleep, TimeoutError } from '../../src/core/index.js';

// A server that sends the headers and part of a JSON body, then stalls. 0.1.0 lost its timeout and
// the caller's abort after one garbage collection during the read: the call stayed pending.
let server: Server;
let base = '';
const stalled = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"partial": "');
    stalled.add(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const gc = (globalThis as { gc?: () => void }).gc;
const PENDING = Symbol('still pending');

/** Settles `call`, or answers PENDING when it has not settled after `ms` (a hang detector). */
async function settled(call: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([call.then((v) => v, (e: unknown) => e), sleep(ms).then(() => PENDING)]);
}

async function collectGarbage(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    gc?.();
    await sleep(20);
  }
}

describe('HttpClient: a stalled body is bounded', () => {
  it('is run with a garbage collector the test can call', () => {
    expect(typeof gc).toBe('function');
  });

  it('rejects with TimeoutError at the per-attempt timeout, also after a garbage collection during the read', async () => {
    const client = new HttpClient({ baseUrl: base, retry: false, timeout: 1_000 });
    const call = client.request({ method: 'GET', path: '/stall' });
    await sleep(200);
    await collectGarbage();
    expect(await settled(call, 8_000)).toBeInstanceOf(TimeoutError);
  });

  it("rejects with the caller's abort reason, also after a garbage collection during the read", async () => {
    const client = new HttpClient({ baseUrl: base, retry: false, timeout: 60_000 });
    const controller = new AbortController();
    const call = client.request({ method: 'GET', path: '/stall', options: { signal: controller.signal } });
    await sleep(200);
    await collectGarbage();
    const reason = new Error('user gave up');
    controller.abort(reason);
    expect(await settled(call, 8_000)).toBe(reason);
  });

  it('rejects at the total deadline while a raw body streams, also after a garbage collection', async () => {
    const client = new HttpClient({ baseUrl: base, retry: false, timeout: 60_000, totalTimeout: 1_000 });
    const response = await client.requestRaw({ method: 'GET', path: '/stall' });
    await collectGarbage();
    expect(await settled(response.text(), 8_000)).toBeInstanceOf(TimeoutError);
  });

  it("cancels a raw body on the caller's abort, also after a garbage collection", async () => {
    const client = new HttpClient({ baseUrl: base, retry: false });
    const controller = new AbortController();
    const response = await client.requestRaw({ method: 'GET', path: '/stall', options: { signal: controller.signal } });
    await collectGarbage();
    const reason = new Error('stop reading');
    controller.abort(reason);
    expect(await settled(response.text(), 8_000)).toBe(reason);
  });
});
