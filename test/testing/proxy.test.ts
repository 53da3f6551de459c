import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { encodePng } from '../../src/testing/index.js';

let sim: Simulator | undefined;
let clock = 0;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function started(): Promise<Simulator> {
  clock = 1_700_000_000_000;
  sim = await startSimulator({ taskDurationMs: 900, now: () => clock });
  return sim;
}

const IMAGE = '/proxy/imagevendor/v1/ai';

/** A PNG whose IHDR claims a large size (the upscaler limit reads only the header). */
function largePngHeader(width: number, height: number): string {
  const bytes = Buffer.from(encodePng(1, 1, [0, 0, 0]));
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes.toString('base64');
}
const post = (s: Simulator, path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${s.token}` }): Promise<Response> =>
  fetch(`${s.proxyUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const poll = (s: Simulator, path: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${s.proxyUrl}${path}`, { headers: { authorization: `Bearer ${s.token}`, ...headers } });

describe('image proxy submissions', () => {
  it('validates the documented limits with 400 {error, message}', async () => {
    const s = await started();
    const cases: [string, Record<string, unknown>][] = [
      ['image-relight', { prompt: 'no image' }],
      ['image-relight', { image: 'aGVsbG8=', light_transfer_strength: 101 }],
      ['image-relight', { image: 'aGVsbG8=', prompt: 'a (sunset:2) glow' }],
      ['image-relight', { image: 'aGVsbG8=', transfer_light_from_lightmap: 'aGk=', transfer_light_from_reference_image: 'aGk=' }],
      ['image-relight', { image: 'aGVsbG8=', advanced_settings: { engine: 'turbo' } }],
      ['image-upscaler', { image: 'aGVsbG8=', creativity: -11 }],
      ['image-upscaler', { image: 'aGVsbG8=', scale_factor: '3x' }],
      ['image-upscaler', { image: largePngHeader(3000, 3000), scale_factor: '2x' }],
      ['image-style-transfer', { image: 'aGVsbG8=' }],
      ['skin-enhancer/faithful', { image: 'aGVsbG8=', skin_detail: 200 }],
      ['skin-enhancer/creative', { image: 'aGVsbG8=', sharpen: 1.5 }],
    ];
    for (const [endpoint, body] of cases) {
      const res = await post(s, `${IMAGE}/${endpoint}`, body);
      expect(res.status, `${endpoint} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      expect(await res.json()).toEqual({ error: expect.any(String), message: expect.any(String) });
    }
  });

  it('requires a Bearer token or the platform key as X-API-Key', async () => {
    const s = await started();
    expect((await post(s, `${IMAGE}/image-relight`, { image: 'aGk=' }, {})).status).toBe(401);
    expect((await post(s, `${IMAGE}/image-relight`, { image: 'aGk=' }, { 'x-api-key': s.apiKey })).status).toBe(200);
  });

  it('moves an image task CREATED -> IN_PROGRESS -> COMPLETED with a fetchable result URL', async () => {
    const s = await started();
    const created = (await (await post(s, `${IMAGE}/image-upscaler`, { image: 'https://example.com/cat.png', scale_factor: '2x' })).json()) as { data: { task_id: string; status: string; generated: string[] } };
    expect(created.data).toEqual({ task_id: expect.any(String), status: 'CREATED', generated: [] });
    const path = `${IMAGE}/image-upscaler/${created.data.task_id}`;
    clock += 400;
    expect(await (await poll(s, path)).json()).toMatchObject({ data: { status: 'IN_PROGRESS' } });
    clock += 600;
    const done = (await (await poll(s, path)).json()) as { data: { status: string; generated: string[] } };
    expect(done.data.status).toBe('COMPLETED');
    const result = await fetch(done.data.generated[0] ?? '');
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toBe('image/png');
    expect(s.state.filesOriginSawCredentials()).toBe(false);
  });

  it('fails a task whose prompt asks for it', async () => {
    const s = await started();
    const created = (await (await post(s, `${IMAGE}/image-relight`, { image: 'aGk=', prompt: 'please fail' })).json()) as { data: { task_id: string } };
    clock += 1000;
    expect(await (await poll(s, `${IMAGE}/image-relight/${created.data.task_id}`)).json()).toMatchObject({ data: { status: 'FAILED', generated: [] } });
  });

  it('answers style transfer at the top level and both skin enhancers on one polling path', async () => {
    const s = await started();
    const style = (await (await post(s, `${IMAGE}/image-style-transfer`, { image: 'aGk=', reference_image: 'aGk=' })).json()) as Record<string, unknown>;
    expect(style).toEqual({ task_id: expect.any(String), status: 'CREATED', generated: [] });
    expect(await (await poll(s, `${IMAGE}/image-style-transfer/${String(style.task_id)}`)).json()).toMatchObject({ status: 'CREATED' });
    for (const mode of ['creative', 'faithful']) {
      const created = (await (await post(s, `${IMAGE}/skin-enhancer/${mode}`, { image: 'aGk=' })).json()) as { data: { task_id: string } };
      expect((await poll(s, `${IMAGE}/skin-enhancer/${created.data.task_id}`)).status).toBe(200);
    }
  });

  it('answers 404 with no body for an unknown task', async () => {
    const s = await started();
    const res = await poll(s, `${IMAGE}/image-relight/00000000-0000-4000-8000-000000000000`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('');
  });
});

describe('image proxy faults', () => {
  it('spells status as task_status, wraps style transfer and hides new tasks for N polls', async () => {
    const s = await started();
    s.faults.set({ taskStatusField: 'task_status', wrapStyleTransfer: true, taskNotFoundPolls: 2 });
    const style = (await (await post(s, `${IMAGE}/image-style-transfer`, { image: 'aGk=', reference_image: 'aGk=' })).json()) as { data: Record<string, unknown> };
    expect(style.data).toEqual({ task_id: expect.any(String), task_status: 'CREATED', generated: [] });
    const path = `${IMAGE}/image-style-transfer/${String(style.data.task_id)}`;
    expect((await poll(s, path)).status).toBe(404);
    expect((await poll(s, path)).status).toBe(404);
    expect((await poll(s, path)).status).toBe(200);
  });

  it('applies the same switches per request through x-sim-fault', async () => {
    const s = await started();
    const res = await post(s, `${IMAGE}/image-relight`, { image: 'aGk=' }, { authorization: `Bearer ${s.token}`, 'x-sim-fault': 'task-status-field=task_status, not-found-polls=1' });
    const body = (await res.json()) as { data: Record<string, unknown> };
    expect(body.data).toHaveProperty('task_status', 'CREATED');
    const path = `${IMAGE}/image-relight/${String(body.data.task_id)}`;
    expect((await poll(s, path)).status).toBe(404);
    expect(await (await poll(s, path)).json()).toMatchObject({ data: { task_status: 'CREATED' } });
  });
});

describe('video proxy', () => {
  it('validates with 400 {details: [...], message}', async () => {
    const s = await started();
    const cases: [string, Record<string, unknown>][] = [
      ['reference2video', { prompt: 'no model' }],
      ['reference2video', { model: 'videoq2-pro', duration: 9 }],
      ['reference2video', { model: 'videoq3-pro', prompt: 'x'.repeat(2001) }],
      ['reference2video', { model: 'videoq3-pro', images: ['a', 'b'] }],
      ['extend', { model: 'videoq2-pro', duration: 8 }],
      ['extend', { model: 'videoq3-pro' }],
      ['extend', { model: 'videoq2-pro', video_url: 'https://example.com/v.mp4' }],
      ['multiframe', { model: 'videoq2-pro', start_image: 'aGk=', image_settings: [{ key_image: 'aGk=', duration: 2, prompt: 'a' }] }],
      ['multiframe', { model: 'videoq2-pro', image_settings: Array.from({ length: 10 }, () => ({})) }],
      ['multiframe', { model: 'videoq2-pro', start_image: 'aGk=', image_settings: [{ key_image: 'aGk=', duration: 1 }, { key_image: 'aGk=', duration: 2 }] }],
    ];
    for (const [endpoint, body] of cases) {
      const res = await post(s, `/proxy/videovendor/${endpoint}`, body);
      expect(res.status, `${endpoint} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      const json = (await res.json()) as { details: string[]; message: string };
      expect(json).toEqual({ details: expect.any(Array), message: expect.any(String) });
      expect(json.details.length).toBeGreaterThan(0);
    }
  });

  it('moves a video task created -> queueing -> processing -> success with a creation URL', async () => {
    const s = await started();
    const res = await post(s, '/proxy/videovendor/reference2video', { model: 'videoq3-pro', prompt: 'a cat', duration: 5, is_rec: true });
    const created = (await res.json()) as Record<string, unknown>;
    expect(created).toMatchObject({ task_id: expect.any(String), state: 'created', credits: 60, model: 'videoq3-pro' });
    const path = `/proxy/videovendor/tasks/${String(created.task_id)}/creations`;
    const states: string[] = [];
    for (let step = 0; step < 4; step += 1) {
      states.push(String(((await (await poll(s, path)).json()) as { state: string }).state));
      clock += 300;
    }
    expect(states).toEqual(['created', 'queueing', 'processing', 'success']);
    const done = (await (await poll(s, path)).json()) as { creations: { url: string; cover_url: string }[]; err_code: string };
    expect(done).toMatchObject({ id: created.task_id, err_code: '', progress: 100, creations: [{ id: expect.any(String) }] });
    const video = await fetch(done.creations[0]?.url ?? '');
    expect(video.headers.get('content-type')).toBe('video/mp4');
    expect((await fetch(done.creations[0]?.cover_url ?? '')).status).toBe(200);
  });

  it('fails a video task whose prompt asks for it, and 404s an unknown one', async () => {
    const s = await started();
    const created = (await (await post(s, '/proxy/videovendor/extend', { model: 'videoq2-turbo', prompt: 'fail please' })).json()) as { task_id: string };
    clock += 1000;
    expect(await (await poll(s, `/proxy/videovendor/tasks/${created.task_id}/creations`)).json()).toMatchObject({ state: 'failed', creations: [] });
    expect((await poll(s, '/proxy/videovendor/tasks/nope/creations')).status).toBe(404);
  });
});
