import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import { CloudClient } from '../../src/index.js';
import { useMsw } from '../helpers/msw.js';

// The exact wire of cloud.jobs.list(), get(), getQueue() on each runtime: parameter names and
// answer shapes (docs/wire-protocol.md#cloud-job-control-listing-and-queue).
describe('listing: each runtime’s wire', () => {
  const BASE = 'https://cloud.test';
  const { server, seen } = useMsw();
  const page = (create: number) => HttpResponse.json({ jobs: [{ id: 'p', status: 'success', create_time: create, execution_start_time: create, execution_end_time: create + (create < 1e11 ? 2.5 : 2500) }], pagination: { offset: 0, limit: 100, total: 1, has_more: false } });

  it('writes the cloud’s sort names and reads its seconds', async () => {
    server.use(http.get(`${BASE}/api/job/:id/status`, () => HttpResponse.json({ status: 'pending' })), http.get(`${BASE}/api/jobs`, () => page(1_700_000_000)));
    const c = new CloudClient({ baseUrl: BASE, apiKey: 'sk-list', runtime: 'cloud' });
    const { jobs } = await c.jobs.list({ sortBy: 'executionTime', outputType: 'video', status: 'completed' });
    expect(jobs[0]).toMatchObject({ promptId: 'p', status: 'completed', raw: 'success', createdAt: 1_700_000_000_000, durationMs: 2500 });
    expect(Object.fromEntries(seen.at(-1)!.url.searchParams)).toEqual({ status: 'completed', sort_by: 'execution_time', output_type: 'video', offset: '0', limit: '100' });
  });

  it('finds out a local runtime first (auto), then writes its sort names and reads its milliseconds', async () => {
    server.use(
      http.get(`${BASE}/api/job/:id/status`, () => HttpResponse.json({ message: 'no route' }, { status: 404 })),
      http.get(`${BASE}/history/:id`, () => HttpResponse.json({})),
      http.get(`${BASE}/api/jobs`, () => page(1_700_000_000_000)),
    );
    const c = new CloudClient({ baseUrl: BASE });
    const { jobs } = await c.jobs.list({ sortBy: 'createdAt', sortOrder: 'asc' });
    expect(jobs[0]).toMatchObject({ createdAt: 1_700_000_000_000, durationMs: 2500 });
    expect(seen.at(-1)!.url.searchParams.get('sort_by')).toBe('created_at');
    await expect(c.jobs.list({ outputType: 'image' })).rejects.toBeInstanceOf(ValidationError);
    expect(seen.filter((r) => r.url.pathname.startsWith('/api/job/'))).toHaveLength(1);
  });

  it('checks every filter before sending anything', async () => {
    const c = new CloudClient({ baseUrl: BASE, apiKey: 'sk-list' });
    const error = (await c.jobs.list({ status: 'done' as never, limit: 0, sortBy: 'created' as never, offset: -1, colour: 1 } as never).catch((e: unknown) => e)) as ValidationError;
    expect(error.issues.map((i) => i.path)).toEqual(['params.status', 'params.limit', 'params.sortBy', 'params.offset', 'params.colour']);
    expect(() => c.jobs.listAll({ sortOrder: 'up' as never })).toThrow(ValidationError);
    await expect(c.jobs.get('..')).rejects.toBeInstanceOf(ValidationError);
    await expect(c.jobs.cancel('', {})).rejects.toBeInstanceOf(ValidationError);
    await expect(c.jobs.getQueue({ timeout: -1 })).rejects.toBeInstanceOf(ValidationError);
    await expect(c.jobs.interruptAll({ retry: 'x' } as never)).rejects.toBeInstanceOf(ValidationError);
    expect(seen).toHaveLength(0);
  });

  it('reads a local queue item (extra_data fourth) without keeping its extra_data', async () => {
    server.use(http.get(`${BASE}/api/queue`, () => HttpResponse.json({ queue_running: [], queue_pending: [[7, 'b', { '1': { class_type: 'X', inputs: {} } }, { api_key_platform_org: 'sk-partner', client_id: 'c' }, ['9']], [5, 'a', {}, {}, ['9']]] })));
    const queue = await new CloudClient({ baseUrl: BASE, runtime: 'local' }).jobs.getQueue();
    expect(queue.pending.map((i) => [i.promptId, i.position, i.outputNodes])).toEqual([['a', 1, ['9']], ['b', 2, ['9']]]);
    expect(JSON.stringify(queue)).not.toContain('sk-partner');
  });

  it('scrubs the key from error texts the server echoes', async () => {
    server.use(http.get(`${BASE}/api/jobs/p`, () => HttpResponse.json({ id: 'p', status: 'failed', create_time: 1, execution_error: { exception_message: 'bad key sk-secret-key', node_id: '3', node_type: 'X', exception_type: 'E', traceback: ['sk-secret-key'] } })));
    const job = await new CloudClient({ baseUrl: BASE, apiKey: 'sk-secret-key', runtime: 'cloud' }).jobs.get('p');
    expect(job?.error?.message).toBe('bad key [REDACTED]');
    expect(JSON.stringify(job)).not.toContain('sk-secret-key');
  });

  it('reads a job’s extra_data (without partner credentials) from the job route and from a local history', async () => {
    const extra = { client_id: 'c', tag: 'nightly', api_key_platform_org: 'sk-partner', auth_token_platform_org: 'tok-partner' };
    server.use(
      http.get(`${BASE}/api/jobs/p`, () => HttpResponse.json({ id: 'p', status: 'completed', create_time: 1, outputs: {}, workflow: { prompt: { '1': { class_type: 'X', inputs: {} } }, extra_data: extra } })),
      http.get(`${BASE}/api/jobs/old`, () => HttpResponse.json({ id: 'old', status: 'completed', create_time: 1, workflow: { prompt: {} } })),
    );
    const cloud = new CloudClient({ baseUrl: BASE, apiKey: 'sk-list', runtime: 'cloud' });
    expect((await cloud.jobs.get('p'))?.extraData).toEqual({ client_id: 'c', tag: 'nightly' });
    expect((await cloud.jobs.get('old'))?.extraData).toBeUndefined();
    server.use(
      http.get(`${BASE}/api/jobs/:id`, () => HttpResponse.json({ message: 'Not Found' }, { status: 404 })),
      http.get(`${BASE}/api/queue`, () => HttpResponse.json({ queue_running: [], queue_pending: [] })),
      http.get(`${BASE}/history/done`, () => HttpResponse.json({ done: { prompt: [2, 'done', {}, extra, ['9']], outputs: {}, status: { status_str: 'success', completed: true, messages: [] } } })),
    );
    const local = await new CloudClient({ baseUrl: BASE, runtime: 'local' }).jobs.get('done');
    expect(local?.extraData).toEqual({ client_id: 'c', tag: 'nightly' });
    expect(JSON.stringify(local)).not.toContain('partner');
  });

  it('looks a job up through the queue and /history on a local runtime without the job route', async () => {
    server.use(
      http.get(`${BASE}/api/jobs/:id`, () => HttpResponse.json({ message: 'Not Found' }, { status: 404 })),
      http.get(`${BASE}/api/queue`, () => HttpResponse.json({ queue_running: [[3, 'running', { '1': { class_type: 'X', inputs: {} } }, {}, ['1']]], queue_pending: [] })),
      http.get(`${BASE}/history/:id`, ({ params }) =>
        HttpResponse.json(params.id === 'done' ? { done: { prompt: [2, 'done', {}, {}, ['9']], outputs: { '9': { images: [{ filename: 'a.png' }] } }, status: { status_str: 'success', completed: true, messages: [] } } } : {}),
      ),
    );
    const c = new CloudClient({ baseUrl: BASE, runtime: 'local' });
    expect(await c.jobs.get('running')).toMatchObject({ promptId: 'running', status: 'in_progress', number: 3, workflow: { '1': { class_type: 'X' } } });
    expect(await c.jobs.get('done')).toMatchObject({ promptId: 'done', status: 'completed', number: 2, outputs: { '9': { images: [{ filename: 'a.png' }] } } });
    expect(await c.jobs.get('gone')).toBeUndefined();
  });
});
