import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/testing/index.js';
import { json, openSocket, png, runEnd, submit, upload, wsUrl } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

async function started(options: SimulatorOptions = {}): Promise<Simulator> {
  const s = await startSimulator({ stepDelayMs: 0, ...options });
  sims.push(s);
  return s;
}

/** Sends a raw WebSocket upgrade and resolves the status and headers answered (101 when accepted). */
function upgrade(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url.replace(/^ws/, 'http'), {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: 101, headers: res.headers, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('startSimulator() socket upgrades', () => {
  it('answers an upgrade of a path other than /ws with 404 and records every upgrade with its status', async () => {
    const s = await started();
    const other = await upgrade(`${s.cloudUrl.replace('http', 'ws')}/socket?token=${s.apiKey}`);
    expect(other.status).toBe(404);
    expect(JSON.parse(other.body)).toEqual({ message: 'Not Found' });
    expect((await upgrade(wsUrl(s, { token: s.apiKey }))).status).toBe(101);
    const upgrades = s.state.requests.filter((r) => r.area === 'cloud' && r.method === 'GET' && (r.path === '/socket' || r.path === '/ws'));
    expect(upgrades.map((r) => [r.path, r.status, r.internal])).toEqual([
      ['/socket', 404, false],
      ['/ws', 101, false],
    ]);
  });

  it('refuses upgrades with 503, Retry-After: 1 and a JSON body while sockets are refused', async () => {
    const s = await started();
    s.faults.refuseSockets(60_000);
    const refused = await upgrade(wsUrl(s, { token: s.apiKey }));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['content-type']).toBe('application/json');
    expect(JSON.parse(refused.body)).toEqual({ message: 'Service Unavailable' });
  });

  it('answers an x-sim-fault status on an upgrade before checking the token', async () => {
    const s = await started();
    const res = await new Promise<number>((resolve, reject) => {
      const req = request(wsUrl(s, { token: 'wrong' }).replace(/^ws/, 'http'), {
        headers: {
          connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'x-sim-fault': 'status=502',
        },
      });
      req.on('response', (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(res).toBe(502);
  });
});

describe('startSimulator() HTTP plumbing', () => {
  it('answers 404 for an unknown path, 405 for a known path with another method, and HEAD like GET', async () => {
    const s = await started();
    const headers = { 'X-API-Key': s.apiKey };
    const unknown = await fetch(`${s.cloudUrl}/api/nope`, { headers });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ message: 'Not Found' });
    const wrongMethod = await fetch(`${s.registryUrl}/versions`, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toEqual({ message: 'Method Not Allowed' });
    expect((await fetch(`${s.cloudUrl}/api/object_info`, { method: 'HEAD', headers })).status).toBe(200);
  });

  it('answers a rule body given as text with a text body', async () => {
    const s = await started();
    s.faults.failRequests({ area: 'files', status: 500, body: 'storage down', times: 1 });
    const res = await fetch(`${s.filesUrl}/results/nope/0.png`);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('storage down');
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it('never fails the calls the simulator makes to itself through a failure rule', async () => {
    const s = await started({ taskDurationMs: 30 });
    const rule = s.faults.failRequests({ path: '/proxy/', status: 500 });
    await upload(s, 'cat.png', png(8, 4));
    const socket = await openSocket(s);
    const prompt = {
      '1': { class_type: 'LoadImage', inputs: { image: 'cat.png' } },
      '2': { class_type: 'UpscaleViaProxy', inputs: { image: ['1', 0], scale_factor: '2x' } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'up' } },
    };
    const id = String((await json(await submit(s, { prompt, extra_data: { api_key_platform_org: s.apiKey } }))).prompt_id);
    await runEnd(socket, id);
    expect(socket.types(id)).toContain('execution_success');
    expect(rule.hits).toBe(0);
    const proxyCalls = s.state.requests.filter((r) => r.path.startsWith('/proxy/'));
    expect(proxyCalls.length).toBeGreaterThan(0);
    expect(proxyCalls.every((r) => r.internal && r.status === 200)).toBe(true);
    expect((await fetch(`${s.proxyUrl}/proxy/videovendor/tasks/x/creations`)).status).toBe(500);
    socket.close();
  });
});

describe('startSimulator() proxy results on the files origin', () => {
  it('serves an image result only once its task completed, without credentials', async () => {
    let clock = 1_700_000_000_000;
    const s = await started({ taskDurationMs: 900, now: () => clock });
    const res = await fetch(`${s.proxyUrl}/proxy/imagevendor/v1/ai/image-relight`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ image: 'aGk=' }),
    });
    const taskId = String(((await res.json()) as { data: { task_id: string } }).data.task_id);
    const result = `${s.filesUrl}/results/${taskId}/0.png`;
    expect((await fetch(result)).status).toBe(404);
    clock += 900;
    const done = await fetch(result);
    expect(done.status).toBe(200);
    expect(done.headers.get('content-type')).toBe('image/png');
    expect((await fetch(`${s.filesUrl}/results/${taskId}/video.mp4`)).status).toBe(404);
    expect(s.state.filesOriginSawCredentials()).toBe(false);
  });
});
