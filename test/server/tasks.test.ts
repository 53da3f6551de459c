import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProxyClient } from '../../src/index.js';
import { TASK_TOKEN_HEADER } from '../../src/server/index.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { relayStarter, type RunningRelay } from './helpers.js';

describe('relay: media tasks', () => {
  let sim: Simulator;
  const start = relayStarter(() => sim);
  const post = (relay: RunningRelay, path: string, body: unknown) => fetch(`${relay.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    sim = await startSimulator({ taskDurationMs: 40 });
  });
  afterEach(async () => {
    sim.state.clearRequests();
  });
  afterAll(() => sim.close());

  it('signs a task in relay_token, and opens its status route with that token only', async () => {
    const relay = await start();
    const submitted = await post(relay, '/proxy/imagevendor/v1/ai/image-upscaler', { image: 'https://example.com/a.png', scale_factor: '2x' });
    expect(submitted.status).toBe(200);
    const answer = (await submitted.json()) as { data: { task_id: string }; relay_token: string };
    const status = (headers: Record<string, string>) => fetch(`${relay.url}/proxy/imagevendor/v1/ai/image-upscaler/${answer.data.task_id}`, { headers });
    expect((await status({})).status).toBe(403);
    expect((await status({ [TASK_TOKEN_HEADER]: 'nope' })).status).toBe(403);
    const ok = await status({ [TASK_TOKEN_HEADER]: answer.relay_token });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: { task_id: string } }).data.task_id).toBe(answer.data.task_id);
    const upstream = sim.state.requests.find((r) => r.area === 'registry' && r.method === 'GET' && r.path.endsWith(answer.data.task_id));
    expect(upstream?.headers['x-api-key']).toBe(sim.apiKey);
    expect(upstream?.headers[TASK_TOKEN_HEADER]).toBeUndefined();
  });

  it('signs video tasks (no envelope) too', async () => {
    const relay = await start();
    const answer = (await (await post(relay, '/proxy/videovendor/reference2video', { model: 'videoq2-turbo', prompt: 'waves', duration: 4 })).json()) as { task_id: string; relay_token: string };
    const creations = await fetch(`${relay.url}/proxy/videovendor/tasks/${answer.task_id}/creations`, { headers: { [TASK_TOKEN_HEADER]: answer.relay_token } });
    expect(creations.status).toBe(200);
  });

  it('lets onTaskSubmit refuse a task', async () => {
    const relay = await start({ onTaskSubmit: (_body, { path }) => (path.includes('videovendor') ? new Response('no videos here', { status: 403 }) : undefined) });
    expect((await post(relay, '/proxy/videovendor/multiframe', {})).status).toBe(403);
    expect(sim.state.requests.filter((r) => r.area === 'registry')).toEqual([]);
  });

  it('serves no task route without a proxy URL', async () => {
    const relay = await start({ proxyUrl: undefined });
    expect((await post(relay, '/proxy/imagevendor/v1/ai/image-upscaler', {})).status).toBe(403);
  });

  it('works with ProxyClient: the task token as a header of the wait', async () => {
    const relay = await start();
    // The relay holds the credential: the client's token is a placeholder the relay never forwards.
    await using proxy = new ProxyClient({ baseUrl: relay.url, token: 'relay' });
    const task = await proxy.image.upscale({ image: 'https://example.com/b.png', scale_factor: '2x' }, { wait: false });
    const token = (task.raw as { relay_token: string }).relay_token;
    const done = await proxy.waitForTask(task, { headers: { [TASK_TOKEN_HEADER]: token }, poll: { minDelayMs: 100, maxDelayMs: 100 } });
    expect(done.kind).toBe('upscale');
    expect(sim.state.requests.filter((r) => r.area === 'registry').every((r) => r.headers.authorization === undefined && r.headers['x-api-key'] === sim.apiKey)).toBe(true);
  });
});
