import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { encodePng } from '../../src/testing/index.js';
import { json, png, scaleWorkflow, submit, upgradeStatus, upload, wsUrl } from './helpers.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function started(options: Parameters<typeof startSimulator>[0] = {}): Promise<Simulator> {
  sim = await startSimulator({ stepDelayMs: 0, ...options });
  return sim;
}

describe('cloud authentication', () => {
  it('answers 401 {message} for a bad X-API-Key and refuses a socket upgrade with HTTP 401', async () => {
    const s = await started();
    const res = await fetch(`${s.cloudUrl}/api/object_info`, { headers: { 'X-API-Key': 'wrong' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: expect.any(String) });
    expect(await upgradeStatus(wsUrl(s, { token: 'wrong' }))).toBe(401);
    expect(await upgradeStatus(wsUrl(s, { token: s.apiKey }))).toBe(101);
    const ws = new WebSocket(wsUrl(s, { token: 'wrong' }));
    const outcome = await new Promise<string>((resolve) => {
      ws.addEventListener('open', () => resolve('open'));
      ws.addEventListener('error', () => resolve('error'));
    });
    expect(outcome).toBe('error');
    expect(s.state.requests.some((r) => r.path === '/ws' && r.status === 401)).toBe(true);
  });
});

describe('GET /api/object_info', () => {
  it('describes the node set with tuple COMBOs, ranges, optional and hidden inputs', async () => {
    const s = await started();
    await upload(s, 'a.png', png());
    const info = await json(await fetch(`${s.cloudUrl}/api/object_info`, { headers: { 'X-API-Key': s.apiKey } }));
    expect(Object.keys(info)).toEqual(expect.arrayContaining(['LoadImage', 'ImageScale', 'ImageScaleBy', 'SaveImage', 'UpscaleViaProxy', 'FailNode', 'BlockExecution']));
    expect(info.LoadImage).toMatchObject({ input: { required: { image: [['a.png'], { image_upload: true }] } }, output: ['IMAGE', 'MASK'], output_name: ['IMAGE', 'MASK'], category: 'image', display_name: 'Load Image' });
    expect(info.ImageScale).toMatchObject({ input: { required: { image: ['IMAGE', {}], width: ['INT', { min: 0, max: 16384 }], upscale_method: [expect.arrayContaining(['bilinear']), {}] } } });
    expect(info.ImageScaleBy).toMatchObject({ input: { required: { scale_by: ['FLOAT', { min: 0.01, max: 8 }] } } });
    expect(info.SaveImage).toMatchObject({ output_node: true, input: { hidden: { prompt: 'PROMPT' } } });
    expect(info.UpscaleViaProxy).toMatchObject({ api_node: true, input: { optional: { prompt: ['STRING', {}] }, hidden: { api_key_platform_org: 'API_KEY_PLATFORM_ORG' } } });
  });
});

describe('POST /api/prompt validation', () => {
  const errorShape = { type: expect.any(String), message: expect.any(String), details: expect.any(String), extra_info: expect.any(Object) };

  it('rejects an unknown class_type with missing_node_type', async () => {
    const s = await started();
    const res = await submit(s, { prompt: { '1': { class_type: 'Nope', inputs: {} } } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { ...errorShape, type: 'missing_node_type' }, node_errors: {} });
  });

  it('rejects an empty prompt with no_prompt and a prompt without outputs with prompt_no_outputs', async () => {
    const s = await started();
    expect(await json(await submit(s, { prompt: {} }))).toMatchObject({ error: { type: 'no_prompt' } });
    const noOutputs = await submit(s, { prompt: { '1': { class_type: 'FailNode', inputs: { message: 'x' } } } });
    expect(noOutputs.status).toBe(400);
    expect(await noOutputs.json()).toMatchObject({ error: { type: 'prompt_no_outputs' }, node_errors: {} });
  });

  it('reports failed inputs per node in node_errors', async () => {
    const s = await started();
    await upload(s, 'cat.png', png());
    const prompt = scaleWorkflow('missing.png', 99_999);
    (prompt['2'] as { inputs: Record<string, unknown> }).inputs.upscale_method = 'cubic-ish';
    const res = await submit(s, { prompt });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toEqual({ ...errorShape, type: 'prompt_outputs_failed_validation' });
    const nodeErrors = body.node_errors as Record<string, { errors: { type: string }[]; dependent_outputs: string[]; class_type: string }>;
    expect(nodeErrors['1']).toMatchObject({ class_type: 'LoadImage', dependent_outputs: ['3'], errors: [{ ...errorShape, type: 'value_not_in_list' }] });
    expect(nodeErrors['2']?.errors.map((e) => e.type).sort()).toEqual(['value_bigger_than_max', 'value_not_in_list']);
    const missing = await submit(s, { prompt: { '1': { class_type: 'SaveImage', inputs: { filename_prefix: 'x' } } } });
    expect(await missing.json()).toMatchObject({ node_errors: { '1': { errors: [{ type: 'required_input_missing', details: 'images' }] } } });
  });

  it('runs the valid outputs and reports the invalid ones on a 200', async () => {
    const s = await started();
    await upload(s, 'cat.png', png());
    const prompt = { ...scaleWorkflow('cat.png'), '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'broken' } } };
    const res = await submit(s, { prompt });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ prompt_id: expect.any(String), node_errors: { '9': { class_type: 'SaveImage' } } });
  });

  it('honours a client prompt_id on a local runtime and answers 409 for a duplicate, 400 invalid_prompt_id for a malformed one', async () => {
    const s = await started({ runtime: 'local' });
    await upload(s, 'cat.png', png());
    const promptId = crypto.randomUUID();
    expect(await json(await submit(s, { prompt: scaleWorkflow('cat.png'), prompt_id: promptId }))).toMatchObject({ prompt_id: promptId });
    expect((await submit(s, { prompt: scaleWorkflow('cat.png'), prompt_id: promptId })).status).toBe(409);
    expect(await json(await submit(s, { prompt: scaleWorkflow('cat.png'), prompt_id: 'NOT-A-UUID' }))).toMatchObject({ error: { type: 'invalid_prompt_id' } });
  });

  it('ignores a client prompt_id on the cloud and assigns its own', async () => {
    const s = await started();
    await upload(s, 'cat.png', png());
    const promptId = crypto.randomUUID();
    const answer = await json(await submit(s, { prompt: scaleWorkflow('cat.png'), prompt_id: promptId }));
    expect(answer.prompt_id).toEqual(expect.any(String));
    expect(answer.prompt_id).not.toBe(promptId);
    expect((await submit(s, { prompt: scaleWorkflow('cat.png'), prompt_id: 'NOT-A-UUID' })).status).toBe(200);
  });
});

describe('uploads', () => {
  it('deduplicates identical content, renames different content and honours overwrite', async () => {
    const s = await started();
    const a = png(4, 4);
    const b = encodePng(5, 5, [255, 0, 0]);
    expect(await json(await upload(s, 'x.png', a))).toEqual({ name: 'x.png', subfolder: '', type: 'input' });
    expect(await json(await upload(s, 'x.png', a))).toMatchObject({ name: 'x.png' });
    expect(await json(await upload(s, 'x.png', b))).toMatchObject({ name: 'x (1).png' });
    expect(await json(await upload(s, 'x.png', encodePng(6, 6, [0, 0, 0])))).toMatchObject({ name: 'x (2).png' });
    expect(await json(await upload(s, 'x.png', b, { overwrite: 'true' }))).toMatchObject({ name: 'x.png' });
    expect(await json(await upload(s, 't.png', a, { type: 'temp' }))).toMatchObject({ type: 'temp' });
    expect(s.state.files('input').sort()).toEqual(['x (1).png', 'x (2).png', 'x.png']);
  });

  it('validates that a mask original_ref is a JSON string', async () => {
    const s = await started();
    const bad = await upload(s, 'm.png', png(), { original_ref: 'not json' }, '/api/upload/mask');
    expect(bad.status).toBe(400);
    const ok = await upload(s, 'm.png', png(), { original_ref: JSON.stringify({ filename: 'x.png', subfolder: '', type: 'input' }), subfolder: 'ignored' }, '/api/upload/mask');
    expect(await ok.json()).toEqual({ name: 'm.png', subfolder: '', type: 'input' });
  });

  it('rejects an image beyond 16384 px per edge with 400 in the cloud', async () => {
    const s = await started();
    const header = encodePng(1, 1, [0, 0, 0]);
    const view = new DataView(header.buffer, header.byteOffset);
    view.setUint32(16, 20_000);
    expect((await upload(s, 'huge.png', header)).status).toBe(400);
  });
});

describe('GET /api/view in the cloud', () => {
  it('redirects to a signed URL on another origin that serves the bytes without the key', async () => {
    const s = await started();
    await upload(s, 'cat.png', png(12, 7));
    const view = await fetch(`${s.cloudUrl}/api/view?filename=cat.png&type=input&subfolder=`, { headers: { 'X-API-Key': s.apiKey }, redirect: 'manual' });
    expect(view.status).toBe(302);
    const location = new URL(view.headers.get('location') ?? '');
    expect(location.origin).toBe(s.filesUrl);
    expect(location.searchParams.get('sig')).toBeTruthy();
    expect(location.searchParams.get('expires')).toBeTruthy();
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer()).slice(1, 4)).toEqual(new TextEncoder().encode('PNG'));
    expect(s.state.filesOriginSawCredentials()).toBe(false);
    location.searchParams.set('sig', 'forged');
    expect((await fetch(location)).status).toBe(403);
    await fetch(view.headers.get('location') ?? '', { headers: { 'X-API-Key': s.apiKey } });
    expect(s.state.filesOriginSawCredentials()).toBe(true);
  });

  it('lets a signed URL expire', async () => {
    let clock = 1_000_000;
    const s = await started({ now: () => clock, signedUrlTtlMs: 1000 });
    await upload(s, 'cat.png', png());
    const view = await fetch(`${s.cloudUrl}/api/view?filename=cat.png&type=input`, { headers: { 'X-API-Key': s.apiKey }, redirect: 'manual' });
    clock += 5000;
    expect((await fetch(view.headers.get('location') ?? '')).status).toBe(403);
  });
});

describe('CORS', () => {
  it('answers preflights and adds Access-Control-Allow-Origin when cors is on', async () => {
    const s = await started({ cors: true });
    const preflight = await fetch(`${s.cloudUrl}/api/prompt`, { method: 'OPTIONS', headers: { origin: 'http://example.com', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-API-Key.*Authorization.*Content-Type/);
    const res = await fetch(`${s.registryUrl}/versions`);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});
