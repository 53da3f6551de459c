import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { JOB_TOKEN_HEADER } from '../../src/server/index.js';
import type { Simulator } from '../../src/testing/index.js';
import { openSocket, startRelay, type RunningRelay } from './helpers.js';

const KEY = 'sk-live-0123456789abcdef-the-platform-key';

/** An upstream that echoes the credential it receives everywhere it can: bodies (split across chunks), headers, socket frames. */
async function startEchoUpstream(): Promise<{ url: string; filesSawKey: () => boolean; close(): Promise<void> }> {
  let filesSawKey = false;
  const files = createServer((req, res) => {
    if (req.headers['x-api-key'] || req.headers.authorization) filesSawKey = true;
    res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([137, 80, 78, 71]));
  });
  await listen(files);
  const filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  const echo = (req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) => {
    const key = String(req.headers['x-api-key'] ?? '');
    const text = JSON.stringify({ ...body, echo: key, nested: { [key]: [key] } });
    const cut = text.indexOf(key) + 7;
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req-${key}`, 'set-cookie': `s=${key}`, 'www-authenticate': key });
    res.write(text.slice(0, cut));
    setTimeout(() => res.end(text.slice(cut)), 5);
  };
  const cloud = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/api/prompt') return echo(req, res, { prompt_id: 'p-echo', number: 1, node_errors: {} });
    if (path === '/api/jobs/p-echo') {
      return echo(req, res, { id: 'p-echo', outputs: { '9': { images: [{ filename: 'out.png', subfolder: '', type: 'output' }] } }, workflow: { extra_data: { api_key_platform_org: req.headers['x-api-key'] } } });
    }
    if (path === '/api/view') return void res.writeHead(302, { location: `${filesUrl}/signed/out.png?sig=abc` }).end();
    if (path === '/api/job/p-echo/status') {
      res.writeHead(500, { 'content-type': 'text/plain' });
      return void res.end(`internal error while using key ${req.headers['x-api-key']}`);
    }
    return echo(req, res, {});
  });
  const sockets = new WebSocketServer({ server: cloud, path: '/ws' });
  sockets.on('connection', (ws, req) => {
    const key = new URL(req.url ?? '/', 'http://x').searchParams.get('token') ?? '';
    ws.on('message', () => {
      // After the relay's feature_flags: a run whose messages carry the key.
      ws.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: 'p-echo', timestamp: 1 } }));
      ws.send(JSON.stringify({ type: 'execution_error', data: { prompt_id: 'p-echo', exception_message: `bad key ${key}`, current_inputs: { api_key_platform_org: key }, timestamp: 2 } }));
      const text = new TextEncoder().encode(`node says ${key}`);
      const frame = new Uint8Array(12 + text.length);
      new DataView(frame.buffer).setUint32(0, 3);
      new DataView(frame.buffer).setUint32(4, 1);
      frame.set([57], 8);
      frame.set(text, 9);
      ws.send(frame);
      ws.send(JSON.stringify({ type: 'executing', data: { prompt_id: 'p-echo', node: null } }));
    });
  });
  await listen(cloud);
  return {
    url: `http://127.0.0.1:${(cloud.address() as AddressInfo).port}`,
    filesSawKey: () => filesSawKey,
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await Promise.all([files, cloud].map((server) => new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })));
    },
  };
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

describe('relay: the key never reaches the browser', () => {
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;
  let relay: RunningRelay;
  beforeAll(async () => {
    upstream = await startEchoUpstream();
    // A credential function: the relay scrubs what it returned.
    relay = await startRelay({ cloudUrl: upstream.url, proxyUrl: upstream.url, apiKey: 'unused' } as unknown as Simulator, { apiKey: async () => KEY, partnerApiKey: true });
  });
  afterAll(async () => {
    await relay.close();
    await upstream.close();
  });

  it('scrubs answers (bodies split across chunks, nested keys, headers), socket frames, and drops set-cookie', async () => {
    const received: string[] = [];
    const record = async (response: Response) => {
      received.push(JSON.stringify([...response.headers]), await response.text());
      return response;
    };
    const submitted = await fetch(`${relay.url}/api/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: { '1': {} } }) });
    const answer = JSON.parse(await submitted.clone().text()) as { relay_token: string; echo: string };
    await record(submitted);
    expect(answer.echo).toBe('[REDACTED]');
    expect(submitted.headers.get('set-cookie')).toBeNull();
    expect(submitted.headers.get('www-authenticate')).toBeNull();
    const token = { [JOB_TOKEN_HEADER]: answer.relay_token };
    const detail = await record(await fetch(`${relay.url}/api/jobs/p-echo`, { headers: token }));
    expect(detail.status).toBe(200);
    expect(received.at(-1)).toContain('"api_key_platform_org":"[REDACTED]"');
    const failed = await record(await fetch(`${relay.url}/api/job/p-echo/status`, { headers: token }));
    expect(failed.status).toBe(500);
    expect(received.at(-1)).toBe('internal error while using key [REDACTED]');
    await record(await fetch(`${relay.url}/api/object_info`));
    const file = await fetch(`${relay.url}/api/view?filename=out.png&subfolder=&type=output`, { headers: token });
    expect(file.status).toBe(200);
    expect(upstream.filesSawKey()).toBe(false);

    const socket = await openSocket(relay.url);
    socket.subscribe(answer.relay_token);
    await socket.next((m) => m.type === 'executing');
    expect(socket.texts.find((m) => m.type === 'execution_error')?.data).toMatchObject({ exception_message: 'bad key [REDACTED]', current_inputs: { api_key_platform_org: '[REDACTED]' } });
    // The type-3 frame holding the key was not passed on.
    expect(socket.binaries).toEqual([]);
    for (const frame of socket.raw) received.push(typeof frame === 'string' ? frame : new TextDecoder().decode(frame));
    socket.ws.close();

    expect(received.length).toBeGreaterThan(8);
    for (const text of received) expect(text).not.toContain(KEY);
  });
});
