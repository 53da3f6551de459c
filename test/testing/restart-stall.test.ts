import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { json, openSocket, png, runEnd, scaleWorkflow, submit, upgradeStatus, upload, wsUrl } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

async function started(): Promise<Simulator> {
  const s = await startSimulator({ stepDelayMs: 0 });
  sims.push(s);
  return s;
}

/** A GET through node:http (to control connection reuse): status, headers and body. */
function get(url: string, headers: Record<string, string>, agent?: Agent): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on('error', reject);
    req.end();
  });
}


describe('failure rules: stallBodyMs', () => {
  it('sends the status and headers at once and holds the body; a client that gives up leaves nothing behind', async () => {
    const s = await started();
    const rule = s.faults.failRequests({ path: '/api/object_info', stallBodyMs: 60_000 });
    const controller = new AbortController();
    const response = await fetch(`${s.cloudUrl}/api/object_info`, { headers: { 'X-API-Key': s.apiKey }, signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(rule.hits).toBe(1);
    let settled = false;
    const body = response.text().finally(() => (settled = true));
    // The body is held: several turns of the event loop pass without it.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toBe(false);
    controller.abort(new Error('gave up'));
    await expect(body).rejects.toThrow('gave up');
  });

  it('delivers the whole body once the stall is over; a status rule stalls its own answer', async () => {
    const s = await started();
    s.faults.failRequests({ area: 'registry', path: '/versions', stallBodyMs: 20, times: 1 });
    const slow = await fetch(`${s.registryUrl}/versions?pageSize=2`);
    expect(((await slow.json()) as { versions: unknown[] }).versions).toHaveLength(2);
    s.faults.failRequests({ area: 'registry', path: '/versions', status: 503, stallBodyMs: 20, times: 1 });
    const failed = await fetch(`${s.registryUrl}/versions`);
    expect(failed.status).toBe(503);
    expect(await failed.json()).toEqual({ message: expect.any(String) });
  });

  it('stalls one request through the x-sim-fault header', async () => {
    const s = await started();
    const response = await fetch(`${s.registryUrl}/versions?pageSize=1`, { headers: { 'x-sim-fault': 'stall-body=20' } });
    expect(((await response.json()) as { versions: unknown[] }).versions).toHaveLength(1);
  });

  it('lets the simulator close while a body is held', async () => {
    const s = await startSimulator({ stepDelayMs: 0 });
    s.faults.failRequests({ path: '/api/object_info', stallBodyMs: 60_000 });
    const response = await fetch(`${s.cloudUrl}/api/object_info`, { headers: { 'X-API-Key': s.apiKey } });
    const body = response.text().catch((e: unknown) => e);
    await s.close();
    expect(await body).toBeInstanceOf(Error);
  });
});

describe('sim.faults.restart()', () => {
  it('answers 503 unprocessed while down, closes sockets with 1012, refuses upgrades, and comes back with its jobs', async () => {
    const s = await started();
    expect((await upload(s, 'in.png', png())).status).toBe(200);
    const socket = await openSocket(s);
    const { prompt_id: promptId } = await json(await submit(s, { prompt: scaleWorkflow('in.png', 24, 'kept') }));
    await runEnd(socket, String(promptId));

    const restarting = s.faults.restart({ downMs: 300 });
    expect(await socket.closed).toEqual({ code: 1012 });
    const refused = await submit(s, { prompt: scaleWorkflow('in.png', 25, 'refused') });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('connection')).toBe('close');
    expect((await fetch(`${s.registryUrl}/versions`)).status).toBe(503);
    expect(await upgradeStatus(wsUrl(s, { token: s.apiKey }))).toBe(503);
    await restarting;

    const status = await fetch(`${s.cloudUrl}/api/job/${String(promptId)}/status`, { headers: { 'X-API-Key': s.apiKey } });
    expect(await status.json()).toEqual({ status: 'completed' });
    // The refused submission ran nothing.
    expect(s.state.jobs()).toHaveLength(1);
    expect(s.state.files('input')).toEqual(['in.png']);
    const again = await openSocket(s);
    again.close();
  });

  it('answers a request that arrives on a connection opened before the restart with 503 and Connection: close, unprocessed', async () => {
    const s = await started();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const headers = { 'X-API-Key': s.apiKey };
    try {
      expect((await get(`${s.cloudUrl}/api/object_info`, headers, agent)).status).toBe(200);
      await s.faults.restart({ downMs: 10 });
      const stale = await get(`${s.cloudUrl}/api/queue`, headers, agent);
      expect(stale).toMatchObject({ status: 503, connection: 'close' });
      expect(JSON.parse(stale.body)).toEqual({ message: expect.stringContaining('restarting') });
      // The next request opens a new connection, which the restarted server serves.
      expect((await get(`${s.cloudUrl}/api/queue`, headers, agent)).status).toBe(200);
      expect(s.state.requests.filter((r) => r.path === '/api/queue').map((r) => r.status)).toEqual([503, 200]);
    } finally {
      agent.destroy();
    }
  });

  it('answers a request in flight when the restart begins', async () => {
    const s = await started();
    s.faults.failRequests({ area: 'registry', path: '/versions', delayMs: 100, times: 1 });
    const inFlight = fetch(`${s.registryUrl}/versions?pageSize=1`);
    while (!s.state.requests.some((r) => r.path === '/versions')) await new Promise((resolve) => setTimeout(resolve, 2));
    const restarting = s.faults.restart({ downMs: 10 });
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { versions: unknown[] }).versions).toHaveLength(1);
    await restarting;
  });

  it('lets the simulator close while it is down', async () => {
    const s = await startSimulator({ stepDelayMs: 0 });
    const restarting = s.faults.restart({ downMs: 60_000 });
    await s.close();
    await restarting;
    const error = await fetch(`${s.cloudUrl}/api/object_info`).catch((e: unknown) => e);
    expect((error as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
  });
});
