// Conformance with the vendors' real published schemas: every response field is optional, and
// three client-side checks differ from the interface document (docs/wire-protocol.md#media-proxy-submissions-and-envelopes,
// docs/wire-protocol.md#media-proxy-limits-checked-before-sending).
import { http, HttpResponse, type JsonBodyType } from 'msw';
import { describe, expect, it } from 'vitest';
import { ResponseValidationError, TimeoutError, ValidationError } from '../../src/core/index.js';
import type { ProxyClient } from '../../src/proxy/client.js';
import { TaskFailedError } from '../../src/proxy/errors.js';
import { BASE, client, useProxyServer } from './helpers.js';

const { server, seen } = useProxyServer();
const IMG = 'https://cdn.example.com/in.png';
const V = 'https://cdn.example.com/v.mp4';
const VIDEO_STATUS = '/proxy/videovendor/tasks/v-1/creations';
const unsafe = <T>(value: unknown) => value as T;

function answerPost(path: string, body: JsonBodyType): void {
  server.use(http.post(`${BASE}${path}`, () => HttpResponse.json(body)));
}

/** Answers GET `path` with `bodies` in order (the last one repeats). */
function answerStatus(path: string, bodies: JsonBodyType[]): void {
  let index = 0;
  server.use(http.get(`${BASE}${path}`, () => HttpResponse.json(bodies[Math.min(index++, bodies.length - 1)])));
}

// The shortest polls allowed (100 ms): these tests use real timers and a few short delays.
const FAST = { poll: { minDelayMs: 100, maxDelayMs: 100 } };

describe('proxy submissions: an answer without a task id', () => {
  const cases: [string, string, JsonBodyType, (p: ProxyClient, wait: boolean) => Promise<unknown>][] = [
    ['image, no task_id', '/proxy/imagevendor/v1/ai/image-upscaler', { data: { status: 'CREATED' } }, (p, wait) => p.image.upscale({ image: IMG }, { wait })],
    ['image, task_id ""', '/proxy/imagevendor/v1/ai/image-relight', { data: { task_id: '', status: 'CREATED', generated: [] } }, (p, wait) => p.image.relight({ image: IMG }, { wait })],
    ['style transfer, top level, task_id null', '/proxy/imagevendor/v1/ai/image-style-transfer', { task_id: null }, (p, wait) => p.image.styleTransfer({ image: IMG, reference_image: IMG }, { wait })],
    ['video, no task_id', '/proxy/videovendor/reference2video', { state: 'created', credits: 10 }, (p, wait) => p.video.referenceToVideo({ model: 'videoq2-pro', prompt: 'x' }, { wait })],
    ['video, task_id ""', '/proxy/videovendor/extend', { task_id: '', state: 'created' }, (p, wait) => p.video.extend({ model: 'videoq2-pro' }, { wait })],
    // Ids no URL can carry: a lone surrogate (encodeURIComponent throws), dot segments (another route).
    ['image, task_id with a lone surrogate', '/proxy/imagevendor/v1/ai/image-upscaler', { data: { task_id: '\ud800' } }, (p, wait) => p.image.upscale({ image: IMG }, { wait })],
    ['video, task_id ".."', '/proxy/videovendor/reference2video', { task_id: '..', state: 'created' }, (p, wait) => p.video.referenceToVideo({ model: 'videoq2-pro', prompt: 'x' }, { wait })],
    ['image, task_id "%2e"', '/proxy/imagevendor/v1/ai/image-relight', { data: { task_id: '%2e' } }, (p, wait) => p.image.relight({ image: IMG }, { wait })],
  ];

  it.each(cases)('%s: rejects with a typed error naming task_id and saying the task may have been accepted', async (_name, path, body, call) => {
    answerPost(path, body);
    for (const wait of [false, true]) {
      const error = await call(client(), wait).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseValidationError);
      const { field, message } = error as ResponseValidationError;
      expect(field).toMatch(/(^|\.)task_id$/);
      expect(message).toContain('task_id');
      expect(message).toMatch(/may have been accepted/);
    }
    // Each call sent its submission once and never asked for a status it cannot name.
    expect(seen.map((r) => r.method)).toEqual(['POST', 'POST']);
  });

  it('accepts an image answer that carries only a task id', async () => {
    answerPost('/proxy/imagevendor/v1/ai/image-upscaler', { data: { task_id: 't-7' } });
    const task = await client().image.upscale({ image: IMG });
    expect(task).toMatchObject({ kind: 'upscale', taskId: 't-7', status: 'CREATED', generated: [] });
  });

  it('accepts a video answer that carries only a task id', async () => {
    answerPost('/proxy/videovendor/reference2video', { task_id: 'v-7' });
    const task = await client().video.referenceToVideo({ model: 'videoq2-pro', prompt: 'x' });
    expect(task).toMatchObject({ kind: 'referenceToVideo', taskId: 'v-7', state: 'created', credits: undefined });
  });
});

describe('proxy status reads: every field optional', () => {
  it('reads a video status without state as running, and goes on to the result', async () => {
    answerStatus(VIDEO_STATUS, [{}, { id: 'v-1', progress: 40 }, { state: 'success', creations: [{ url: 'https://cdn.test/v.mp4' }] }]);
    const phases: string[] = [];
    const result = await client().waitForTask({ kind: 'extend', taskId: 'v-1' }, { ...FAST, onUpdate: (s) => phases.push(s.phase) });
    expect(result).toMatchObject({ taskId: 'v-1', status: 'success', urls: ['https://cdn.test/v.mp4'] });
    expect(phases).toEqual(['running', 'running', 'succeeded']);
  });

  it('charges a video status without state to the wait budget (it never passes for queued)', async () => {
    answerStatus(VIDEO_STATUS, [{}]);
    const error = await client().waitForTask({ kind: 'extend', taskId: 'v-1', state: 'created' }, { ...FAST, waitTimeout: 250 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).submitted).toEqual({ kind: 'extend', taskId: 'v-1', state: 'created' });
  });

  it('keeps creations without a url, and takes the result from those that have one', async () => {
    const creations = [{ id: 'c-0', cover_url: 'https://cdn.test/c0.png' }, { id: 'c-1', url: 'https://cdn.test/v1.mp4', cover_url: null }];
    answerStatus(VIDEO_STATUS, [{ state: 'success', creations }]);
    const result = await client().waitForTask({ kind: 'extend', taskId: 'v-1' }, FAST);
    expect(result.urls).toEqual(['https://cdn.test/v1.mp4']);
    expect((result as { creations: unknown[] }).creations).toEqual([{ id: 'c-0', cover_url: 'https://cdn.test/c0.png' }, { id: 'c-1', url: 'https://cdn.test/v1.mp4' }]);
  });

  it('reports a success whose creations have no url as a task without result', async () => {
    answerStatus(VIDEO_STATUS, [{ state: 'success', creations: [{ id: 'c-0' }] }]);
    const error = await client().waitForTask({ kind: 'extend', taskId: 'v-1' }, FAST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error).toMatchObject({ reason: 'no-result', taskId: 'v-1' });
  });

  it.each([
    ['image', 'upscale', '/proxy/imagevendor/v1/ai/image-upscaler/t-1', { data: { status: 'COMPLETED', generated: ['https://cdn.test/o.png'] } }],
    ['video', 'extend', '/proxy/videovendor/tasks/t-1/creations', { data: { state: 'success', creations: [{ url: 'https://cdn.test/v.mp4' }] } }],
  ] as const)('reads a %s status whose data is null, a string or a list as one without fields (running)', async (_family, kind, path, done) => {
    answerStatus(path, [{ data: null }, { data: 'pending' }, { data: [] }, done]);
    const phases: string[] = [];
    const result = await client().waitForTask({ kind, taskId: 't-1' }, { ...FAST, onUpdate: (s) => phases.push(s.phase) });
    expect(result.urls).toHaveLength(1);
    expect(phases).toEqual(['running', 'succeeded']);
  });

  it('reads an image status without task_id, status or generated as running, owned by the task asked about', async () => {
    answerStatus('/proxy/imagevendor/v1/ai/image-upscaler/t-1', [{ data: {} }, {}, { data: { status: 'COMPLETED', generated: ['https://cdn.test/o.png'] } }]);
    const result = await client().waitForTask({ kind: 'upscale', taskId: 't-1' }, FAST);
    expect(result).toMatchObject({ taskId: 't-1', status: 'COMPLETED', urls: ['https://cdn.test/o.png'] });
  });
});

describe('proxy limits that follow the real schemas', () => {
  const frames = (...durations: unknown[]) => durations.map((duration) => ({ key_image: IMG, duration }));
  const multi = (image_settings: unknown) => (p: ProxyClient) => p.video.multiframe(unsafe({ model: 'videoq2-pro', start_image: IMG, image_settings }));

  it.each([[1], [8], [0]])('refuses a multi-frame key frame of %i s (2 to 7)', async (duration) => {
    answerPost('/proxy/videovendor/multiframe', { task_id: 'v-1' });
    const error = await multi(frames(3, duration))(client()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([expect.objectContaining({ path: 'image_settings[1].duration', received: duration })]);
    expect((error as ValidationError).issues[0]?.rule).toContain('from 2 to 7');
    expect(seen).toHaveLength(0);
  });

  it('sends multi-frame key frames of 2 and 7 s, and key frames without a duration', async () => {
    answerPost('/proxy/videovendor/multiframe', { task_id: 'v-1' });
    await multi([...frames(2, 7), { key_image: IMG }])(client());
    expect(seen).toHaveLength(1);
  });

  it('sends extend with neither video_creation_id nor video_url', async () => {
    answerPost('/proxy/videovendor/extend', { task_id: 'v-1', state: 'created' });
    const task = await client().video.extend({ model: 'videoq2-pro', prompt: 'longer' });
    expect(task.taskId).toBe('v-1');
    expect(JSON.parse(seen[0]!.body)).toEqual({ model: 'videoq2-pro', prompt: 'longer' });
  });

  it.each([
    ['video_creation_id alone', { video_creation_id: 'c' }, 'video_url'],
    ['video_url alone', { video_url: V }, 'video_creation_id'],
  ])('still refuses extend with %s', async (_name, extra, path) => {
    const error = await client().video.extend(unsafe({ model: 'videoq2-pro', ...extra })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual([path]);
    expect(seen).toHaveLength(0);
  });

  const STYLE = '/proxy/imagevendor/v1/ai/image-style-transfer';
  it.each([
    ['without is_portrait', {}],
    ['with is_portrait: false', { is_portrait: false }],
  ])('ignores the portrait fields %s: not refused, not sent', async (_name, portrait) => {
    answerPost(STYLE, { task_id: 't-1', status: 'CREATED' });
    const params = { image: IMG, reference_image: IMG, ...portrait, portrait_style: 'pop', portrait_beautifier: 'not-a-value' };
    await client().image.styleTransfer(unsafe(params));
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!.body)).toEqual({ image: IMG, reference_image: IMG, ...portrait });
  });

  it('checks and sends the portrait fields with is_portrait: true', async () => {
    answerPost(STYLE, { task_id: 't-1', status: 'CREATED' });
    const refused = await client().image.styleTransfer(unsafe({ image: IMG, reference_image: IMG, is_portrait: true, portrait_style: 'rock' })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(seen).toHaveLength(0);
    await client().image.styleTransfer({ image: IMG, reference_image: IMG, is_portrait: true, portrait_style: 'pop', portrait_beautifier: 'beautify_face' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ image: IMG, reference_image: IMG, is_portrait: true, portrait_style: 'pop', portrait_beautifier: 'beautify_face' });
  });
});

describe('ExtendParams', () => {
  it('types the source video as both fields or neither', () => {
    const p = client();
    void (() => p.video.extend({ model: 'videoq2-pro' }));
    void (() => p.video.extend({ model: 'videoq2-pro', video_creation_id: 'c', video_url: V }));
    // @ts-expect-error video_url without video_creation_id
    void (() => p.video.extend({ model: 'videoq2-pro', video_url: V }));
    expect(seen).toHaveLength(0);
  });
});
