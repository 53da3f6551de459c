import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/testing/index.js';
import { isType, json, openSocket, png, runEnd, scaleWorkflow, submit, upload } from '../testing/helpers.js';

// The simulator's job control, listing and queue routes, as each runtime answers them
// (docs/wire-protocol.md#cloud-job-control-listing-and-queue), over raw HTTP.
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function started(options: SimulatorOptions = {}): Promise<Simulator> {
  sim = await startSimulator({ stepDelayMs: 0, ...options });
  await upload(sim, 'cat.png', png());
  return sim;
}

const call = (s: Simulator, path: string, init: { method?: string; body?: unknown; key?: string } = {}): Promise<Response> =>
  fetch(`${s.cloudUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'X-API-Key': init.key ?? s.apiKey, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
const submitted = async (s: Simulator, width = 32): Promise<string> => String((await json(await submit(s, { prompt: scaleWorkflow('cat.png', width) }))).prompt_id);

/** One job running (slowly) and two pending behind it. */
async function busy(options: SimulatorOptions = {}): Promise<{ s: Simulator; running: string; pending: string[]; socket: Awaited<ReturnType<typeof openSocket>> }> {
  const s = await started({ stepDelayMs: 100, ...options });
  const socket = await openSocket(s);
  const running = await submitted(s, 20);
  await socket.waitFor(isType('execution_start', running));
  const pending = [await submitted(s, 21), await submitted(s, 22)];
  return { s, running, pending, socket };
}

describe('simulator GET /api/jobs', () => {
  it('pages with offset and limit, filters by status and sorts, with the cloud time in seconds', async () => {
    const s = await started();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await submitted(s, 20 + i));
    await s.state.waitForIdle();
    const first = await json(await call(s, '/api/jobs?limit=2&sort_order=asc'));
    expect((first.jobs as { id: string }[]).map((j) => j.id)).toEqual(ids.slice(0, 2));
    expect(first.pagination).toEqual({ offset: 0, limit: 2, total: 5, has_more: true });
    const last = await json(await call(s, '/api/jobs?limit=2&offset=4&sort_order=asc&sort_by=create_time'));
    expect(last.pagination).toMatchObject({ offset: 4, total: 5, has_more: false });
    const newest = (await json(await call(s, '/api/jobs'))).jobs as { id: string; create_time: number; status: string; outputs_count: number }[];
    expect(newest[0]?.id).toBe(ids[4]);
    expect(newest[0]?.create_time).toBeLessThan(1e11);
    expect(newest[0]).toMatchObject({ status: 'completed', outputs_count: 1 });
    expect(((await json(await call(s, '/api/jobs?status=failed,cancelled'))).jobs as unknown[]).length).toBe(0);
    expect((await call(s, '/api/jobs?sort_by=created_at')).status).toBe(400);
    expect((await call(s, '/api/jobs?limit=1001')).status).toBe(400);
    expect((await call(s, '/api/jobs?status=done')).status).toBe(400);
    expect(((await json(await call(s, '/api/jobs', { key: s.otherApiKey }))).jobs as unknown[]).length).toBe(0);
  });

  it('takes the local sort names and answers milliseconds on a local runtime', async () => {
    const s = await started({ runtime: 'local' });
    await submitted(s);
    await s.state.waitForIdle();
    const page = await json(await call(s, '/jobs?sort_by=execution_duration'));
    expect((page.jobs as { create_time: number }[])[0]?.create_time).toBeGreaterThan(1e11);
    expect((await call(s, '/api/jobs?sort_by=create_time')).status).toBe(400);
  });
});

describe('simulator GET /api/jobs/{id}', () => {
  it('answers the job with its outputs and workflow, 404 for an unknown job and 403 for another user', async () => {
    const s = await started();
    const id = await submitted(s);
    await s.state.waitForIdle();
    expect(await json(await call(s, `/api/jobs/${id}`))).toMatchObject({ id, status: 'completed', outputs: { '3': { images: [{ filename: 'sim_00001_.png' }] } }, workflow: { prompt: { '3': { class_type: 'SaveImage' } } } });
    expect((await call(s, '/api/jobs/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await call(s, `/api/jobs/${id}`, { key: s.otherApiKey })).status).toBe(403);
  });
});

describe('simulator cancel routes', () => {
  it('cancels a pending job and a running one with POST /api/jobs/{id}/cancel, and not a finished one', async () => {
    const { s, running, pending, socket } = await busy();
    expect(await json(await call(s, `/api/jobs/${pending[1]}/cancel`, { method: 'POST' }))).toEqual({ cancelled: true });
    expect(await json(await call(s, `/api/jobs/${running}/cancel`, { method: 'POST' }))).toEqual({ cancelled: true });
    await runEnd(socket, running);
    expect(socket.types(running)).toContain('execution_interrupted');
    await s.state.waitForIdle();
    expect(s.state.jobs().map((j) => j.status)).toEqual(['cancelled', 'completed', 'cancelled']);
    expect(await json(await call(s, `/api/jobs/${pending[0]}/cancel`, { method: 'POST' }))).toEqual({ cancelled: false });
    expect(await json(await call(s, '/api/jobs/00000000-0000-4000-8000-000000000000/cancel', { method: 'POST' }))).toEqual({ cancelled: false });
    socket.close();
  });

  it('answers 404 to the cancel route when cancelRoutes is false', async () => {
    const s = await started({ cancelRoutes: false });
    const id = await submitted(s);
    expect((await call(s, `/api/jobs/${id}/cancel`, { method: 'POST' })).status).toBe(404);
  });
});

describe('simulator queue and interrupt, per runtime', () => {
  it('cloud: lists [number, id, prompt, outputs], removes pending jobs answering {deleted, cleared}, and interrupts every running job whatever the body', async () => {
    const { s, running, pending, socket } = await busy();
    const queue = await json(await call(s, '/api/queue'));
    expect(queue.queue_running).toEqual([[0, running, expect.any(Object), ['3']]]);
    expect((queue.queue_pending as unknown[][]).map((item) => item[1])).toEqual(pending);
    expect(await json(await call(s, '/api/queue', { method: 'POST', body: { delete: [pending[0]] } }))).toEqual({ deleted: [pending[0]], cleared: false });
    await call(s, '/api/interrupt', { method: 'POST', body: { prompt_id: pending[1] } });
    await runEnd(socket, running);
    expect(socket.types(running)).toContain('execution_interrupted');
    socket.close();
  });

  it('local: lists [number, id, prompt, extra_data, outputs], answers an empty 200 to a delete, interrupts only the job its body names, and forgets a removed job', async () => {
    const { s, running, pending, socket } = await busy({ runtime: 'local' });
    const queue = await json(await call(s, '/queue'));
    expect(queue.queue_running).toEqual([[0, running, expect.any(Object), expect.any(Object), ['3']]]);
    const removed = await call(s, '/queue', { method: 'POST', body: { delete: [pending[0]] } });
    expect([removed.status, await removed.text()]).toEqual([200, '']);
    expect((await call(s, `/api/jobs/${pending[0]}`)).status).toBe(404);
    expect(((await json(await call(s, '/api/jobs'))).jobs as { id: string }[]).map((j) => j.id)).not.toContain(pending[0]);
    await call(s, '/interrupt', { method: 'POST', body: { prompt_id: pending[1] } });
    await call(s, '/interrupt', { method: 'POST', body: { prompt_id: running } });
    await runEnd(socket, running);
    await runEnd(socket, pending[1]!);
    expect(socket.types(running)).toContain('execution_interrupted');
    expect(socket.types(pending[1])).toContain('execution_success');
    socket.close();
  });
});
