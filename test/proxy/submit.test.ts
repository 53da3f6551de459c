import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, BadRequestError, InternalServerError, ValidationError } from '../../src/core/index.js';
import { ProxyClient } from '../../src/proxy/client.js';
import { BASE, client, pngHeader, toBase64, TOKEN, useProxyServer } from './helpers.js';

const { server, seen } = useProxyServer();
const IMG = 'https://cdn.example.com/in.png';
const TASK = '4f1c2b4e-1111-4222-8333-444455556666';
const enveloped = { data: { task_id: TASK, status: 'CREATED', generated: [] } };
const video = { task_id: 'v-1', state: 'created', credits: 20 };

function answer(path: string, body: Record<string, unknown>, status = 200) {
  server.use(http.post(`${BASE}${path}`, () => HttpResponse.json(body, { status })));
}

function sent() {
  expect(seen).toHaveLength(1);
  const request = seen[0]!;
  return { request, body: JSON.parse(request.body) as Record<string, unknown> };
}

describe('proxy submissions: exact wire shape', () => {
  const cases = [
    {
      name: 'image.relight()',
      path: '/proxy/imagevendor/v1/ai/image-relight',
      response: enveloped,
      call: (p: ProxyClient) => p.image.relight({ image: IMG, prompt: 'golden hour (warm:1.2)', style: 'clean', light_transfer_strength: 0, transfer_light_from_reference_image: 'https://cdn.example.com/ref.png', advanced_settings: { whites: 100, engine: 'fairy', transfer_light_b: 'soft_mid' }, webhook_url: 'https://hooks.example.com/x?sig=abc' }),
      body: { image: IMG, prompt: 'golden hour (warm:1.2)', style: 'clean', light_transfer_strength: 0, transfer_light_from_reference_image: 'https://cdn.example.com/ref.png', advanced_settings: { whites: 100, engine: 'fairy', transfer_light_b: 'soft_mid' }, webhook_url: 'https://hooks.example.com/x?sig=abc' },
    },
    {
      name: 'image.upscale()',
      path: '/proxy/imagevendor/v1/ai/image-upscaler',
      response: enveloped,
      call: (p: ProxyClient) => p.image.upscale({ image: IMG, scale_factor: '16x', creativity: -10, hdr: 10, engine: 'vendor_sparkle', optimized_for: '3d_renders' }),
      body: { image: IMG, scale_factor: '16x', creativity: -10, hdr: 10, engine: 'vendor_sparkle', optimized_for: '3d_renders' },
    },
    {
      name: 'image.styleTransfer()',
      path: '/proxy/imagevendor/v1/ai/image-style-transfer',
      response: { task_id: TASK, status: 'CREATED', generated: [] },
      call: (p: ProxyClient) => p.image.styleTransfer({ image: IMG, reference_image: 'https://cdn.example.com/style.png', is_portrait: true, portrait_style: 'super_pop', style_strength: 100, flavor: 'gen_z' }),
      body: { image: IMG, reference_image: 'https://cdn.example.com/style.png', is_portrait: true, portrait_style: 'super_pop', style_strength: 100, flavor: 'gen_z' },
    },
    {
      name: 'image.skinEnhancerCreative()',
      path: '/proxy/imagevendor/v1/ai/skin-enhancer/creative',
      response: enveloped,
      call: (p: ProxyClient) => p.image.skinEnhancerCreative({ image: IMG, sharpen: 0, smart_grain: 100 }),
      body: { image: IMG, sharpen: 0, smart_grain: 100 },
    },
    {
      name: 'image.skinEnhancerFaithful()',
      path: '/proxy/imagevendor/v1/ai/skin-enhancer/faithful',
      response: enveloped,
      call: (p: ProxyClient) => p.image.skinEnhancerFaithful({ image: IMG, skin_detail: 80 }),
      body: { image: IMG, skin_detail: 80 },
    },
    {
      name: 'video.referenceToVideo()',
      path: '/proxy/videovendor/reference2video',
      response: video,
      call: (p: ProxyClient) => p.video.referenceToVideo({ model: 'videoq3-pro', prompt: 'a boat', images: [IMG], duration: 16, resolution: '2K', seed: 2147483647, wm_position: 4, meta_data: '{"order":1}', callback_url: 'https://hooks.example.com/v' }),
      body: { model: 'videoq3-pro', prompt: 'a boat', images: [IMG], duration: 16, resolution: '2K', seed: 2147483647, wm_position: 4, meta_data: '{"order":1}', callback_url: 'https://hooks.example.com/v' },
    },
    {
      name: 'video.extend()',
      path: '/proxy/videovendor/extend',
      response: video,
      call: (p: ProxyClient) => p.video.extend({ model: 'videoq2-turbo', video_creation_id: 'c-1', video_url: 'https://cdn.example.com/v.mp4', duration: 7, resolution: '540p' }),
      body: { model: 'videoq2-turbo', video_creation_id: 'c-1', video_url: 'https://cdn.example.com/v.mp4', duration: 7, resolution: '540p' },
    },
    {
      name: 'video.multiframe()',
      path: '/proxy/videovendor/multiframe',
      response: video,
      call: (p: ProxyClient) => p.video.multiframe({ model: 'videoq2-pro', start_image: IMG, image_settings: [{ key_image: IMG, duration: 2, prompt: 'left' }, { key_image: IMG, duration: 3 }], resolution: '1080p' }),
      body: { model: 'videoq2-pro', start_image: IMG, image_settings: [{ key_image: IMG, duration: 2, prompt: 'left' }, { key_image: IMG, duration: 3 }], resolution: '1080p' },
    },
  ];

  for (const c of cases) {
    it(`${c.name} POSTs the exact body with the Bearer token`, async () => {
      answer(c.path, c.response);
      await c.call(client());
      const { request, body } = sent();
      expect(request.method).toBe('POST');
      expect(request.url.pathname).toBe(c.path);
      expect(request.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
      expect(request.headers.get('x-api-key')).toBeNull();
      expect(request.headers.get('content-type')).toBe('application/json');
      expect(body).toEqual(c.body);
    });
  }

  it('sends the platform key as X-API-Key when given apiKey', async () => {
    answer('/proxy/videovendor/extend', video);
    await new ProxyClient({ baseUrl: BASE, apiKey: 'key-9' }).video.extend({ model: 'videoq2-pro', video_creation_id: 'c', video_url: 'https://x.test/v.mp4' });
    expect(sent().request.headers.get('x-api-key')).toBe('key-9');
    expect(seen[0]!.headers.get('authorization')).toBeNull();
  });

  it('scrubs the credential a submission answer echoes from the task and its raw body', async () => {
    const secret = 'sk-live-7d1e2f3a9b';
    answer('/proxy/imagevendor/v1/ai/image-upscaler', { data: { task_id: TASK, status: 'CREATED', generated: [], echo: `Bearer ${secret}` } });
    answer('/proxy/videovendor/extend', { ...video, note: { [secret]: 'platform-key-42' } });
    const image = await client({ token: secret }).image.upscale({ image: IMG });
    const clip = await new ProxyClient({ baseUrl: BASE, apiKey: 'platform-key-42' }).video.extend({ model: 'videoq2-pro', video_creation_id: 'c', video_url: 'https://x.test/v.mp4' });
    expect(image.taskId).toBe(TASK);
    expect(JSON.stringify(image)).not.toContain(secret);
    expect(JSON.stringify(clip)).not.toContain('platform-key-42');
  });

  it('refuses token and apiKey together', () => {
    expect(() => new ProxyClient({ baseUrl: BASE, token: 'a', apiKey: 'b' })).toThrow(ValidationError);
  });

  it('passes unknown fields through and does not mutate the params', async () => {
    answer('/proxy/imagevendor/v1/ai/image-upscaler', enveloped);
    const params = { image: new Uint8Array([1, 2, 3]), scale_factor: '2x' as const, future_flag: 'on' };
    await client().image.upscale(params);
    expect(sent().body).toEqual({ image: 'AQID', scale_factor: '2x', future_flag: 'on' });
    expect(params.image).toBeInstanceOf(Uint8Array);
  });

  it('submits through a method taken off its resource (methods are bound)', async () => {
    server.use(http.post(`${BASE}/proxy/imagevendor/v1/ai/image-upscaler`, () => HttpResponse.json({ data: { task_id: 't-bound', status: 'CREATED', generated: [] } })));
    const { upscale } = client().image;
    const task = await upscale({ image: 'https://cdn.test/a.png', scale_factor: '2x' });
    expect(task.taskId).toBe('t-bound');
    expect(seen).toHaveLength(1);
  });

  it('keeps its credential out of util.inspect', () => {
    const text = inspect(client(), { depth: 5 });
    expect(text).toMatch(/^ProxyClient \{ baseUrl: 'https:\/\/proxy\.test\/?' \}$/);
    expect(text).not.toContain(TOKEN);
  });
});

describe('proxy submissions: image inputs', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxy-test-'));
    await writeFile(join(dir, 'a.png'), pngHeader(4, 4));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('encodes bytes, a Blob and { path } as raw Base64 for image tasks', async () => {
    answer('/proxy/imagevendor/v1/ai/image-relight', enveloped);
    const png = pngHeader(4, 4);
    await client().image.relight({ image: { path: join(dir, 'a.png') }, transfer_light_from_lightmap: new Blob([png as Uint8Array<ArrayBuffer>]) });
    const { body } = sent();
    expect(body.image).toBe(toBase64(png));
    expect(body.transfer_light_from_lightmap).toBe(toBase64(png));
  });

  it('encodes bytes as data: URLs for video tasks, nested ones included', async () => {
    answer('/proxy/videovendor/multiframe', video);
    const png = pngHeader(2, 2);
    await client().video.multiframe({ model: 'videoq2-pro', start_image: Buffer.from(png), image_settings: [{ key_image: png }, { key_image: IMG }] });
    const { body } = sent();
    const dataUrl = `data:image/png;base64,${toBase64(png)}`;
    expect(body.start_image).toBe(dataUrl);
    expect(body.image_settings).toEqual([{ key_image: dataUrl }, { key_image: IMG }]);
  });

  it('sends strings unchanged: URLs, data: URLs, Base64', async () => {
    answer('/proxy/videovendor/reference2video', video);
    const dataUrl = `data:image/png;base64,${toBase64(pngHeader(1, 1))}`;
    await client().video.referenceToVideo({ images: [dataUrl] });
    expect(sent().body.images).toEqual([dataUrl]);
  });

  it('honours base64Format overrides', async () => {
    answer('/proxy/imagevendor/v1/ai/skin-enhancer/creative', enveloped);
    const png = pngHeader(1, 1);
    await client({ base64Format: { image: 'data-url' } }).image.skinEnhancerCreative({ image: png });
    expect(sent().body.image).toBe(`data:image/png;base64,${toBase64(png)}`);
  });

  it('reports an unreadable file as a ValidationError and sends nothing', async () => {
    const error = await client().image.upscale({ image: { path: join(dir, 'missing.png') } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]?.path).toBe('image');
    expect(seen).toHaveLength(0);
  });
});

describe('proxy submissions: envelopes', () => {
  it('reads the image task under data, at the top level, and with task_status', async () => {
    const p = client();
    answer('/proxy/imagevendor/v1/ai/image-upscaler', { task_id: 't-top', task_status: 'created', generated: [] });
    await expect(p.image.upscale({ image: IMG })).resolves.toMatchObject({ kind: 'upscale', taskId: 't-top', status: 'CREATED', generated: [] });
    answer('/proxy/imagevendor/v1/ai/image-style-transfer', { data: { task_id: 't-wrapped', status: 'IN_PROGRESS' } });
    const task = await p.image.styleTransfer({ image: IMG, reference_image: IMG });
    expect(task).toEqual({ kind: 'styleTransfer', taskId: 't-wrapped', status: 'IN_PROGRESS', generated: [], raw: { data: { task_id: 't-wrapped', status: 'IN_PROGRESS' } } });
  });

  it('normalises a video task, and does not fail a paid submission over a missing credits field', async () => {
    answer('/proxy/videovendor/extend', { task_id: 'v-9', state: 'Queueing', model: 'videoq2-pro' });
    const task = await client().video.extend({ model: 'videoq2-pro', video_creation_id: 'c', video_url: IMG });
    expect(task).toEqual({ kind: 'extend', taskId: 'v-9', state: 'queueing', credits: undefined, raw: { task_id: 'v-9', state: 'Queueing', model: 'videoq2-pro' } });
  });
});

describe('proxy submissions: errors', () => {
  it('turns an image error {error, message} into an ApiError with its code', async () => {
    answer('/proxy/imagevendor/v1/ai/image-relight', { error: 'invalid_image', message: 'cannot decode image' }, 400);
    const error = (await client().image.relight({ image: IMG }).catch((e: unknown) => e)) as BadRequestError;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.code).toBe('invalid_image');
    expect(error.message).toContain('cannot decode image');
  });

  it('turns a video error {details, message} into an ApiError keeping details', async () => {
    answer('/proxy/videovendor/reference2video', { details: ['duration too long'], message: 'bad request' }, 400);
    const error = (await client().video.referenceToVideo({ prompt: 'x' }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.details).toEqual(['duration too long']);
  });

  it('never retries a submission, even on 503', async () => {
    answer('/proxy/imagevendor/v1/ai/image-upscaler', { error: 'busy', message: 'try later' }, 503);
    await expect(client().image.upscale({ image: IMG })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1);
  });
});
