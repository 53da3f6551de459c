import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { PermissionDeniedError, ValidationError } from '../../src/core/index.js';
import { CloudClient } from '../../src/index.js';
import { useMsw } from '../helpers/msw.js';

// The exact wire of cloud.jobs.cancel() and interruptAll(), and the jobRoutes option.
const BASE = 'https://cloud.test';
const { server, seen } = useMsw();
const calls = () => seen.map((r) => `${r.method} ${r.url.pathname}${r.body ? ` ${r.body}` : ''}`);
const queue = (pending: string[], running: string[] = []) =>
  http.get(`${BASE}/api/queue`, () => HttpResponse.json({ queue_running: running.map((id, i) => [i, id, {}, []]), queue_pending: pending.map((id, i) => [10 + i, id, {}, []]) }));

describe('cloud.jobs.cancel() on the wire', () => {
  it('falls back to the queue when the cancel route answers 405, and remembers it', async () => {
    server.use(
      http.post(`${BASE}/api/jobs/:id/cancel`, () => HttpResponse.json({ message: 'Method Not Allowed' }, { status: 405 })),
      http.get(`${BASE}/api/job/:id/status`, () => HttpResponse.json({ status: 'pending' })),
      queue(['a', 'b']),
      http.post(`${BASE}/api/queue`, async ({ request }) => HttpResponse.json({ deleted: ((await request.json()) as { delete: string[] }).delete, cleared: false })),
    );
    const cloud = new CloudClient({ baseUrl: BASE, apiKey: 'sk-cancel', retry: false });
    expect(await cloud.jobs.cancel('a')).toEqual({ cancelled: true, via: 'queue', reason: undefined });
    expect(await cloud.jobs.cancel('b')).toMatchObject({ cancelled: true, via: 'queue' });
    expect(calls().filter((c) => c.includes('/cancel'))).toHaveLength(1);
    expect(calls()).toContain('POST /api/queue {"delete":["a"]}');
  });

  it('throws what the cancel route answers for a job of another user (403), without falling back', async () => {
    server.use(http.post(`${BASE}/api/jobs/:id/cancel`, () => HttpResponse.json({ message: 'Access denied' }, { status: 403 })));
    const cloud = new CloudClient({ baseUrl: BASE, apiKey: 'sk-cancel', retry: false });
    await expect(cloud.jobs.cancel('theirs')).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(calls()).toEqual(['POST /api/jobs/theirs/cancel']);
  });

  it('sends no body to /api/interrupt from interruptAll(), and the prompt id only on a local runtime', async () => {
    server.use(queue([], ['r']), http.post(`${BASE}/api/interrupt`, () => new HttpResponse(null, { status: 200 })));
    const local = new CloudClient({ baseUrl: BASE, runtime: 'local', jobRoutes: { cancel: false } });
    expect(await local.jobs.cancel('r')).toEqual({ cancelled: true, via: 'interrupt', reason: undefined });
    await local.jobs.interruptAll();
    expect(calls()).toEqual(['GET /api/queue', 'POST /api/interrupt {"prompt_id":"r"}', 'POST /api/interrupt']);
  });

  it('uses the routes given in jobRoutes', async () => {
    server.use(
      http.post(`${BASE}/v2/jobs/:id/stop`, () => HttpResponse.json({ cancelled: true })),
      http.get(`${BASE}/v2/jobs`, () => HttpResponse.json({ jobs: [] })),
      http.get(`${BASE}/v2/queue`, () => HttpResponse.json({ queue_running: [], queue_pending: [] })),
    );
    const cloud = new CloudClient({ baseUrl: BASE, apiKey: 'sk-cancel', runtime: 'cloud', jobRoutes: { cancel: '/v2/jobs/{id}/stop', jobs: '/v2/jobs', queue: '/v2/queue' } });
    expect(await cloud.jobs.cancel('p')).toMatchObject({ cancelled: true });
    expect(await cloud.jobs.list()).toMatchObject({ jobs: [], hasMore: false });
    expect(await cloud.jobs.getQueue()).toEqual({ running: [], pending: [] });
    expect(calls()).toEqual(['POST /v2/jobs/p/stop', 'GET /v2/jobs', 'GET /v2/queue']);
  });

  it('checks jobRoutes when the client is made', () => {
    const make = (jobRoutes: unknown) => () => new CloudClient({ baseUrl: BASE, apiKey: 'k', jobRoutes: jobRoutes as never });
    expect(make({ cancel: 'api/x/{id}' })).toThrow(ValidationError);
    expect(make({ job: '/api/jobs' })).toThrow('options.jobRoutes.job');
    expect(make({ cancell: false })).toThrow('did you mean "cancel"');
    expect(make({ cancel: true })).toThrow(ValidationError);
    expect(make({ cancel: false, jobs: undefined })).not.toThrow();
  });
});
