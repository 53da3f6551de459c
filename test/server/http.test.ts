import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { JOB_TOKEN_HEADER } from '../../src/server/index.js';
import { png, relayStarter, scaleByWorkflow, submit, upload } from './helpers.js';

describe('relay: HTTP routes', () => {
  let sim: Simulator;
  const start = relayStarter(() => sim);
  const seen = (path: string) => sim.state.requests.filter((r) => r.area === 'cloud' && r.path === path);

  beforeAll(async () => {
    sim = await startSimulator({ stepDelayMs: 0, progressSteps: 1 });
  });
  afterEach(async () => {
    sim.faults.reset();
    sim.state.clearRequests();
  });
  afterAll(() => sim.close());

  it('forwards a listed route with the key added on the server and none of the browser’s credentials', async () => {
    const relay = await start();
    const response = await fetch(`${relay.url}/api/object_info`, { headers: { cookie: 'session=visitor', authorization: 'Bearer visitor', 'x-api-key': 'visitor-key' } });
    expect(response.status).toBe(200);
    expect(Object.keys((await response.json()) as object)).toContain('LoadImage');
    const [upstream] = seen('/api/object_info');
    expect(upstream?.headers['x-api-key']).toBe(sim.apiKey);
    expect(upstream?.headers.cookie).toBeUndefined();
    expect(upstream?.headers.authorization).toBeUndefined();
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a route that is not on its list, and sends nothing upstream', async () => {
    const relay = await start();
    for (const [method, path] of [['GET', '/api/jobs'], ['GET', '/api/queue'], ['POST', '/api/interrupt'], ['POST', '/api/queue'], ['GET', '/nodes/demo-node'], ['DELETE', '/api/object_info'], ['GET', '/api/userdata']]) {
      const response = await fetch(`${relay.url}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(await response.json()).toMatchObject({ error: 'route_not_allowed' });
    }
    expect(sim.state.requests.filter((r) => !r.internal)).toEqual([]);
  });

  it('serves an opt-in route once listed', async () => {
    const relay = await start({ routes: ['listJobs'] });
    expect((await fetch(`${relay.url}/api/jobs`)).status).not.toBe(403);
    expect((await fetch(`${relay.url}/api/object_info`)).status).toBe(403);
  });

  it('refuses a path with an empty, dot or encoded-slash segment', async () => {
    const relay = await start();
    for (const path of ['/api/job/..%2Fqueue/status', '/api/jobs/%2e%2e', '/api//object_info', '/api/job/a%5Cb/status', '/api/jobs/%E0%A4%A']) {
      const response = await fetch(`${relay.url}${path}`);
      expect(response.status, path).toBe(400);
    }
    expect(sim.state.requests.filter((r) => !r.internal)).toEqual([]);
  });

  it('refuses an unauthorized request; authorize sees the request and the route', async () => {
    const calls: string[] = [];
    const relay = await start({
      authorize: (request, { route }) => {
        calls.push(route);
        if (request.headers.get('cookie') === 'session=ok') return true;
        if (request.headers.get('cookie') === 'session=login') return new Response(null, { status: 302, headers: { location: '/login' } });
        if (request.headers.get('cookie') === 'session=broken') throw new Error('session store down');
        return false;
      },
    });
    const anonymous = await fetch(`${relay.url}/api/object_info`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'unauthorized' });
    expect((await fetch(`${relay.url}/api/object_info`, { headers: { cookie: 'session=login' }, redirect: 'manual' })).headers.get('location')).toBe('/login');
    expect((await fetch(`${relay.url}/api/object_info`, { headers: { cookie: 'session=broken' } })).status).toBe(500);
    expect((await fetch(`${relay.url}/api/object_info`, { headers: { cookie: 'session=ok' } })).status).toBe(200);
    expect(calls).toEqual(['objectInfo', 'objectInfo', 'objectInfo', 'objectInfo']);
    expect(seen('/api/object_info')).toHaveLength(1);
  });

  it('refuses a page of another site, unless its origin is allowed', async () => {
    const relay = await start({ allowedOrigins: ['https://app.example.com'] });
    const evil = await fetch(`${relay.url}/api/object_info`, { headers: { origin: 'https://evil.example' } });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ error: 'origin_not_allowed' });
    const allowed = await fetch(`${relay.url}/api/object_info`, { headers: { origin: 'https://app.example.com' } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    const own = await fetch(`${relay.url}/api/object_info`, { headers: { origin: relay.origin } });
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the CORS preflight of an allowed origin before authorize (a preflight has no cookie)', async () => {
    const relay = await start({ allowedOrigins: ['https://app.example.com'], authorize: () => false });
    const preflight = await fetch(`${relay.url}/api/prompt`, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-graphcloud-job-token' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-graphcloud-job-token');
    expect((await fetch(`${relay.url}/api/prompt`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } })).status).toBe(403);
    // The request itself still goes through authorize.
    const refused = await fetch(`${relay.url}/api/object_info`, { headers: { origin: 'https://app.example.com' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it('refuses a body over the bound, declared or streamed, before sending anything', async () => {
    const relay = await start({ maxBodyBytes: 1_000 });
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(5_000)], { type: 'image/png' }), 'big.png');
    const declared = await fetch(`${relay.url}/api/upload/image`, { method: 'POST', body: form });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ error: 'body_too_large' });
    const chunks = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(600));
      },
    });
    const streamed = await fetch(`${relay.url}/api/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chunks, duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(seen('/api/upload/image')).toEqual([]);
    expect(seen('/api/prompt')).toEqual([]);
    // A body within the bound goes through.
    expect(await upload(relay.url, png(2, 2))).toMatch(/\.png$/);
  });

  it('answers 504 when the upstream is slower than the timeout', async () => {
    const relay = await start({ timeout: 100 });
    sim.faults.failRequests({ path: '/api/object_info', delayMs: 2_000 });
    const response = await fetch(`${relay.url}/api/object_info`);
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ error: 'upstream_timeout' });
  });

  it('answers 502 when the upstream cannot be reached', async () => {
    const relay = await start({ cloudUrl: 'http://127.0.0.1:2' });
    const response = await fetch(`${relay.url}/api/object_info`);
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: 'upstream_unreachable' });
  });

  it('opens a job-scoped route only with that job’s token, which never travels upstream', async () => {
    const relay = await start();
    const name = await upload(relay.url, png(8, 8));
    const mine = await submit(relay.url, scaleByWorkflow(name));
    const other = await submit(relay.url, scaleByWorkflow(name, 3));
    const status = (headers: Record<string, string>, query = '') => fetch(`${relay.url}/api/job/${mine.prompt_id}/status${query}`, { headers });
    const missing = await status({});
    expect(missing.status).toBe(403);
    expect(await missing.json()).toMatchObject({ error: 'job_token_required' });
    const wrong = await status({ [JOB_TOKEN_HEADER]: other.relay_token });
    expect(await wrong.json()).toMatchObject({ error: 'job_token_invalid' });
    expect((await status({ [JOB_TOKEN_HEADER]: 'garbage.token' })).status).toBe(403);
    const ok = await status({ [JOB_TOKEN_HEADER]: mine.relay_token });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toHaveProperty('status');
    expect((await status({}, `?job=${encodeURIComponent(mine.relay_token)}`)).status).toBe(200);
    const reads = seen(`/api/job/${mine.prompt_id}/status`);
    expect(reads).toHaveLength(2);
    for (const read of reads) {
      expect(read.headers[JOB_TOKEN_HEADER]).toBeUndefined();
      expect(read.query).toBe('');
    }
    expect((await fetch(`${relay.url}/api/jobs/${mine.prompt_id}`, { headers: { [JOB_TOKEN_HEADER]: mine.relay_token } })).status).toBe(200);
    expect((await fetch(`${relay.url}/api/jobs/${mine.prompt_id}/cancel`, { method: 'POST' })).status).toBe(403);
  });

  it('submits once, with its own client_id, and signs the job in relay_token', async () => {
    const relay = await start({ clientId: 'relay-upstream-1' });
    const name = await upload(relay.url, png(8, 8, 7));
    const answer = await submit(relay.url, scaleByWorkflow(name), { client_id: 'browser-chosen' });
    expect(answer.relay_token).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(answer).toHaveProperty('number');
    expect(sim.state.jobs().find((job) => job.id === answer.prompt_id)?.clientId).toBe('relay-upstream-1');
    expect(seen('/api/prompt')).toHaveLength(1);
  });

  it('takes a submission as JSON only', async () => {
    const relay = await start();
    const text = await fetch(`${relay.url}/api/prompt`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ prompt: {} }) });
    expect(text.status).toBe(415);
    for (const body of ['not json', '[1]', '{"prompt": 5}']) {
      const response = await fetch(`${relay.url}/api/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(response.status, body).toBe(400);
    }
    expect(seen('/api/prompt')).toEqual([]);
  });

  it('lets onSubmit refuse or rewrite a submission', async () => {
    const relay = await start({
      onSubmit: (body, request) => {
        const scale = (body.prompt['2'] as { inputs: { scale_by: number } }).inputs.scale_by;
        if (scale > 4) return new Response(JSON.stringify({ error: 'too_large', message: 'scale at most 4' }), { status: 422 });
        if (request.headers.get('x-pin') === 'yes') return { prompt: scaleByWorkflow((body.prompt['1'] as { inputs: { image: string } }).inputs.image, 1, 'pinned') };
        return undefined;
      },
    });
    const name = await upload(relay.url, png(8, 8, 9));
    const refused = await fetch(`${relay.url}/api/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: scaleByWorkflow(name, 8) }) });
    expect(refused.status).toBe(422);
    expect(seen('/api/prompt')).toEqual([]);
    const pinned = await fetch(`${relay.url}/api/prompt`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-pin': 'yes' }, body: JSON.stringify({ prompt: scaleByWorkflow(name, 2) }) });
    const { prompt_id } = (await pinned.json()) as { prompt_id: string };
    await sim.state.waitForIdle();
    const outputs = sim.state.jobs().find((job) => job.id === prompt_id)?.outputs as Record<string, { images: { filename: string }[] }>;
    expect(outputs['3']?.images[0]?.filename).toMatch(/^pinned_/);
  });

  it('answers 500 when onSubmit throws, and sends nothing', async () => {
    const errors: Error[] = [];
    const relay = await start({ onSubmit: () => { throw new Error('hook bug'); }, onError: (error) => errors.push(error) });
    const response = await fetch(`${relay.url}/api/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: {} }) });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: 'hook_failed' });
    expect(errors.map((e) => e.message)).toEqual(['hook bug']);
    expect(seen('/api/prompt')).toEqual([]);
  });

  it('does not buffer a submission answer without bound (a broken upstream answering megabytes)', async () => {
    const { createServer } = await import('node:http');
    const upstream = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Chunked, no content-length: the relay only learns the size by reading.
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 100 && res.write(chunk)) sent++;
        if (sent >= 100) res.end();
        else res.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    try {
      const relay = await start({ cloudUrl: `http://127.0.0.1:${(upstream.address() as { port: number }).port}` });
      const response = await fetch(`${relay.url}/api/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: {} }) });
      expect(response.status).toBe(502);
      expect(await response.json()).toMatchObject({ error: 'upstream_refused' });
    } finally {
      upstream.closeAllConnections();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it('answers a plain GET of the socket path with 426, and 503 once closed', async () => {
    const relay = await start();
    expect((await fetch(`${relay.url}/ws`)).status).toBe(426);
    expect((await fetch(`${relay.origin}/elsewhere`)).status).toBe(404);
    await relay.relay.close();
    expect((await fetch(`${relay.url}/api/object_info`)).status).toBe(503);
  });
});
