import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/testing/index.js';
import { isType, json, openSocket, png, runEnd, scaleWorkflow, submit, upgradeStatus, upload, wsUrl } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

async function started(options: SimulatorOptions = {}): Promise<Simulator> {
  const s = await startSimulator({ stepDelayMs: 0, ...options });
  sims.push(s);
  return s;
}

const objectInfo = (s: Simulator, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${s.cloudUrl}/api/object_info`, { headers: { 'X-API-Key': s.apiKey, ...headers } });

describe('sim.faults.failRequests()', () => {
  it('fails the next N matching requests with 503 and Retry-After, then recovers', async () => {
    const s = await started();
    const rule = s.faults.failRequests({ path: '/api/object_info', status: 503, times: 2 });
    const first = await objectInfo(s);
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('1');
    expect(await first.json()).toEqual({ message: expect.any(String) });
    expect((await objectInfo(s)).status).toBe(503);
    expect((await objectInfo(s)).status).toBe(200);
    expect(rule.hits).toBe(2);
  });

  it('answers 429 with the given Retry-After, only for the matching method and area', async () => {
    const s = await started();
    s.faults.failRequests({ area: 'registry', method: 'POST', path: /^\/nodes\/.+\/reviews$/, status: 429, retryAfter: 7, body: null });
    expect((await fetch(`${s.registryUrl}/versions`)).status).toBe(200);
    const limited = await fetch(`${s.registryUrl}/nodes/demo-node/reviews?star=5`, { method: 'POST' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await limited.text()).toBe('');
  });

  it('fails a share of requests in the same order for the same seed', async () => {
    const run = async (): Promise<number[]> => {
      const s = await started({ seed: 42 });
      s.faults.failRequests({ path: '/api/', status: 500, rate: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i += 1) statuses.push((await objectInfo(s)).status);
      return statuses;
    };
    const [a, b] = [await run(), await run()];
    expect(a).toEqual(b);
    expect(a).toContain(500);
    expect(a).toContain(200);
  });

  it('slows matching responses without failing them when the rule has no status', async () => {
    const s = await started();
    const rule = s.faults.failRequests({ area: 'registry', path: '/versions', delayMs: 30, times: 1 });
    expect((await fetch(`${s.registryUrl}/versions`)).status).toBe(200);
    expect((await fetch(`${s.registryUrl}/versions`)).status).toBe(200);
    expect(rule.hits).toBe(1);
  });

  it('is removed by rule.remove() and reset()', async () => {
    const s = await started();
    const rule = s.faults.failRequests({ status: 500 });
    expect((await objectInfo(s)).status).toBe(500);
    rule.remove();
    expect((await objectInfo(s)).status).toBe(200);
    s.faults.failRequests({ status: 500 });
    s.faults.reset();
    expect((await objectInfo(s)).status).toBe(200);
  });
});

describe('x-sim-fault header', () => {
  it('answers the requested status and Retry-After, and delays a response', async () => {
    const s = await started();
    const failed = await objectInfo(s, { 'x-sim-fault': 'status=429; retry-after=3' });
    expect(failed.status).toBe(429);
    expect(failed.headers.get('retry-after')).toBe('3');
    expect((await objectInfo(s, { 'x-sim-fault': 'delay=20' })).status).toBe(200);
  });

  it('switches a job status answer to the raw vocabulary', async () => {
    const s = await started();
    await upload(s, 'cat.png', png());
    const id = String((await json(await submit(s, { prompt: scaleWorkflow('cat.png') }))).prompt_id);
    await s.state.waitForIdle();
    const res = await fetch(`${s.cloudUrl}/api/job/${id}/status`, { headers: { 'X-API-Key': s.apiKey, 'x-sim-fault': 'raw-status' } });
    expect(await res.json()).toMatchObject({ id, status: 'success' });
  });
});

describe('socket faults', () => {
  it('drops every socket and refuses reconnects with 503 for a while', async () => {
    const s = await started();
    const socket = await openSocket(s);
    expect(s.faults.dropSockets({ refuseMs: 60_000 })).toBe(1);
    expect((await socket.closed).code).toBe(1006);
    expect(await upgradeStatus(wsUrl(s, { token: s.apiKey }))).toBe(503);
    s.faults.reset();
    expect(await upgradeStatus(wsUrl(s, { token: s.apiKey }))).toBe(101);
  });

  it('closes with a chosen code and fails /ws upgrades through a failure rule', async () => {
    const s = await started();
    const socket = await openSocket(s);
    s.faults.dropSockets({ code: 1012 });
    expect((await socket.closed).code).toBe(1012);
    s.faults.failRequests({ path: '/ws', status: 502, times: 1 });
    expect(await upgradeStatus(wsUrl(s, { token: s.apiKey }))).toBe(502);
    expect(await upgradeStatus(wsUrl(s, { token: s.apiKey }))).toBe(101);
  });

  it('sends garbage frames during a run, and the run still completes', async () => {
    const s = await started();
    await upload(s, 'cat.png', png());
    const socket = await openSocket(s);
    s.faults.set({ garbageFrames: true });
    const id = String((await json(await submit(s, { prompt: scaleWorkflow('cat.png') }))).prompt_id);
    await runEnd(socket, id);
    expect(socket.received.some((m) => m.kind === 'binary' && new DataView(m.bytes.buffer).getUint32(0) === 99)).toBe(true);
    expect(socket.received.some((m) => m.kind === 'binary' && m.bytes.byteLength < 4)).toBe(true);
    expect(socket.received.some((m) => m.kind === 'text')).toBe(true);
    expect(socket.types()).toContain('crystools.monitor');
    expect(socket.types(id)).toContain('execution_success');
    expect(s.faults.sendGarbageFrames()).toBe(1);
    socket.close();
  });

  it('cached-no-executed: a cached re-run sends no executed, and its record keeps the outputs', async () => {
    const s = await started();
    await upload(s, 'cat.png', png());
    const socket = await openSocket(s);
    const first = String((await json(await submit(s, { prompt: scaleWorkflow('cat.png') }))).prompt_id);
    await runEnd(socket, first);
    expect(socket.types(first)).toContain('executed');
    const id = String((await json(await submit(s, { prompt: scaleWorkflow('cat.png') }, { 'x-sim-fault': 'cached-no-executed' }))).prompt_id);
    await runEnd(socket, id);
    expect(socket.types(id)).toEqual(['execution_start', 'execution_cached', 'execution_success', 'executing']);
    const record = await fetch(`${s.cloudUrl}/api/jobs/${id}`, { headers: { 'X-API-Key': s.apiKey } });
    expect(((await record.json()) as { outputs: Record<string, unknown> }).outputs).toHaveProperty('3');
    socket.close();
  });

  it('drops the socket mid-run and sends the completion while it is down (lost, no replay)', async () => {
    const s = await started({ stepDelayMs: 20, progressSteps: 5 });
    await upload(s, 'cat.png', png());
    const socket = await openSocket(s);
    const res = await submit(s, { prompt: scaleWorkflow('cat.png') }, { 'x-sim-fault': 'drop-mid-run' });
    const id = String((await json(res)).prompt_id);
    await socket.closed;
    expect(socket.types(id)).not.toContain('execution_success');
    expect(await upgradeStatus(wsUrl(s, { token: s.apiKey }))).toBe(503);
    await s.state.waitForIdle();
    const again = await openSocket(s);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(again.types(id)).toEqual([]);
    const status = await fetch(`${s.cloudUrl}/api/job/${id}/status`, { headers: { 'X-API-Key': s.apiKey } });
    expect(await status.json()).toEqual({ status: 'completed' });
    again.close();
  });
});

describe('finishBeforeResponse', () => {
  it('completes the whole run, messages included, before /api/prompt answers', async () => {
    const s = await started({ stepDelayMs: 50 });
    await upload(s, 'cat.png', png());
    const socket = await openSocket(s);
    s.faults.set({ finishBeforeResponse: true });
    const id = String((await json(await submit(s, { prompt: scaleWorkflow('cat.png') }))).prompt_id);
    const status = await fetch(`${s.cloudUrl}/api/job/${id}/status`, { headers: { 'X-API-Key': s.apiKey } });
    expect(await status.json()).toEqual({ status: 'completed' });
    await socket.waitFor(isType('execution_success', id));
    await runEnd(socket, id);
    socket.close();
  });
});
