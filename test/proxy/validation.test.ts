import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import type { ProxyClient } from '../../src/proxy/client.js';
import { BASE, client, jpegHeader, pngHeader, toBase64, useProxyServer, webpHeader } from './helpers.js';

const { server, seen } = useProxyServer();
const IMG = 'https://cdn.example.com/in.png';
const V = 'https://cdn.example.com/v.mp4';

beforeEach(() => {
  server.use(
    http.post(`${BASE}/proxy/imagevendor/*`, () => HttpResponse.json({ data: { task_id: 't', status: 'CREATED', generated: [] } })),
    http.post(`${BASE}/proxy/videovendor/*`, () => HttpResponse.json({ task_id: 'v', state: 'created', credits: 1 })),
  );
});

type Call = (p: ProxyClient) => Promise<unknown>;
// Every call below breaks (or meets at its edge) one documented limit; `unsafe` lets a test send
// what the types forbid, as JavaScript callers can.
const unsafe = <T>(value: unknown) => value as T;
const r2v = (extra: object): Call => (p) => p.video.referenceToVideo(unsafe({ model: 'videoq2-pro', prompt: 'x', ...extra }));
const extend = (extra: object): Call => (p) => p.video.extend(unsafe({ model: 'videoq2-pro', video_creation_id: 'c', video_url: V, ...extra }));
const frames = (n: number) => Array.from({ length: n }, () => ({ key_image: IMG, duration: 2 }));
const multi = (extra: object): Call => (p) => p.video.multiframe(unsafe({ model: 'videoq2-pro', start_image: IMG, image_settings: frames(2), ...extra }));
const relight = (extra: object): Call => (p) => p.image.relight(unsafe({ image: IMG, ...extra }));
const upscale = (extra: object): Call => (p) => p.image.upscale(unsafe({ image: IMG, ...extra }));
const style = (extra: object): Call => (p) => p.image.styleTransfer(unsafe({ image: IMG, reference_image: IMG, ...extra }));
const creative = (extra: object): Call => (p) => p.image.skinEnhancerCreative(unsafe({ image: IMG, ...extra }));
const faithful = (extra: object): Call => (p) => p.image.skinEnhancerFaithful(unsafe({ image: IMG, ...extra }));

const failing: [string, Call, string][] = [
  ['relight light_transfer_strength above 100', relight({ light_transfer_strength: 101 }), 'light_transfer_strength'],
  ['relight light_transfer_strength below 0', relight({ light_transfer_strength: -1 }), 'light_transfer_strength'],
  ['relight light_transfer_strength not an integer', relight({ light_transfer_strength: 50.5 }), 'light_transfer_strength'],
  ['relight style outside the enum', relight({ style: 'moody' }), 'style'],
  ['relight boolean given as a string', relight({ change_background: 'true' }), 'change_background'],
  ['relight lightmap and reference image together', relight({ transfer_light_from_lightmap: IMG, transfer_light_from_reference_image: IMG }), 'transfer_light_from_reference_image'],
  ['relight prompt weight above 1.4', relight({ prompt: 'a room (warm light:1.5)' }), 'prompt'],
  ['relight prompt weight below 1', relight({ prompt: 'a room (warm light:0.9)' }), 'prompt'],
  ['relight prompt weight of 2', relight({ prompt: 'a room (warm light: 2)' }), 'prompt'],
  ['relight advanced slider above 100', relight({ advanced_settings: { contrast: 101 } }), 'advanced_settings.contrast'],
  ['relight advanced slider below 0', relight({ advanced_settings: { blacks: -1 } }), 'advanced_settings.blacks'],
  ['relight advanced engine outside the enum', relight({ advanced_settings: { engine: 'turbo' } }), 'advanced_settings.engine'],
  ['relight transfer_light_a outside the enum', relight({ advanced_settings: { transfer_light_a: 'huge' } }), 'advanced_settings.transfer_light_a'],
  ['relight transfer_light_b outside the enum', relight({ advanced_settings: { transfer_light_b: 'wobbly' } }), 'advanced_settings.transfer_light_b'],
  ['relight advanced fixed_generation not boolean', relight({ advanced_settings: { fixed_generation: 1 } }), 'advanced_settings.fixed_generation'],
  ['relight without image', (p) => p.image.relight(unsafe({ prompt: 'x' })), 'image'],
  ['an image given as a bare file path', relight({ image: './photo.png' }), 'image'],
  ['a webhook_url that is not a URL', relight({ webhook_url: 'hooks/relight' }), 'webhook_url'],
  ['upscale creativity above 10', upscale({ creativity: 11 }), 'creativity'],
  ['upscale fractality below -10', upscale({ fractality: -11 }), 'fractality'],
  ['upscale hdr not an integer', upscale({ hdr: 2.5 }), 'hdr'],
  ['upscale resemblance above 10', upscale({ resemblance: 10.1 }), 'resemblance'],
  ['upscale scale_factor outside the enum', upscale({ scale_factor: '3x' }), 'scale_factor'],
  ['upscale engine outside the enum', upscale({ engine: 'magic' }), 'engine'],
  ['upscale optimized_for outside the enum', upscale({ optimized_for: 'cats' }), 'optimized_for'],
  ['upscale result over 25.3 MP (PNG bytes, 4x)', upscale({ image: pngHeader(1251, 1265), scale_factor: '4x' }), 'image'],
  ['upscale result over 25.3 MP (JPEG Base64, 16x)', upscale({ image: toBase64(jpegHeader(400, 300, 5000)), scale_factor: '16x' }), 'image'],
  ['upscale result over 25.3 MP (WebP Blob, 8x)', upscale({ image: new Blob([webpHeader('VP8X', 700, 700) as Uint8Array<ArrayBuffer>]), scale_factor: '8x' }), 'image'],
  ['upscale result over 25.3 MP at the smallest scale when none is given', upscale({ image: pngHeader(2600, 2500) }), 'image'],
  ['style transfer style_strength above 100', style({ style_strength: 101 }), 'style_strength'],
  ['style transfer structure_strength below 0', style({ structure_strength: -1 }), 'structure_strength'],
  ['style transfer engine outside the enum', style({ engine: 'oil' }), 'engine'],
  ['style transfer flavor outside the enum', style({ flavor: 'boomer' }), 'flavor'],
  ['style transfer portrait_style outside the enum', style({ is_portrait: true, portrait_style: 'rock' }), 'portrait_style'],
  ['style transfer without reference_image', (p) => p.image.styleTransfer(unsafe({ image: IMG })), 'reference_image'],
  ['skin creative sharpen above 100', creative({ sharpen: 101 }), 'sharpen'],
  ['skin creative smart_grain below 0', creative({ smart_grain: -1 }), 'smart_grain'],
  ['skin faithful skin_detail above 100', faithful({ skin_detail: 101 }), 'skin_detail'],
  ['skin faithful sharpen not an integer', faithful({ sharpen: 0.5 }), 'sharpen'],
  ['skin faithful smart_grain above 100', faithful({ smart_grain: 200 }), 'smart_grain'],
  ['skin creative image at a plain http URL (the interface: an HTTPS URL)', creative({ image: 'http://cdn.example.com/in.png' }), 'image'],
  ['skin faithful image at a plain http URL (the interface: an HTTPS URL)', faithful({ image: 'http://cdn.example.com/in.png' }), 'image'],
  ['video prompt of 2001 characters outside the BMP', r2v({ prompt: '🎬'.repeat(2001) }), 'prompt'],
  ['video prompt over 2000 characters', r2v({ prompt: 'x'.repeat(2001) }), 'prompt'],
  ['extend prompt over 2000 characters', extend({ prompt: 'x'.repeat(2001) }), 'prompt'],
  ['video payload over 1,048,576 characters', r2v({ payload: 'x'.repeat(1_048_577) }), 'payload'],
  ['multiframe payload over 1,048,576 characters', multi({ payload: 'x'.repeat(1_048_577) }), 'payload'],
  ['meta_data that is not JSON', r2v({ meta_data: '{order: 1}' }), 'meta_data'],
  ['meta_data given as an object', r2v({ meta_data: { order: 1 } }), 'meta_data'],
  ['videoq3-pro duration over 16', r2v({ model: 'videoq3-pro', duration: 17 }), 'duration'],
  ['videoq2-pro-fast duration over 10', r2v({ model: 'videoq2-pro-fast', duration: 11 }), 'duration'],
  ['videoq2-pro duration over 8', r2v({ model: 'videoq2-pro', duration: 9 }), 'duration'],
  ['videoq2-turbo duration over 8', r2v({ model: 'videoq2-turbo', duration: 9 }), 'duration'],
  ['video duration of 0', r2v({ model: 'videoq3-pro', duration: 0 }), 'duration'],
  ['video model outside the list', r2v({ model: 'videoq9' }), 'model'],
  ['video resolution outside the list', r2v({ resolution: '4K' }), 'resolution'],
  ['video with two images', r2v({ images: [IMG, IMG] }), 'images'],
  ['video with an empty images list', r2v({ images: [] }), 'images'],
  ['video audio_type outside the enum', r2v({ audio_type: 'music' }), 'audio_type'],
  ['video movement_amplitude outside the enum', r2v({ movement_amplitude: 'huge' }), 'movement_amplitude'],
  ['video style outside the enum', r2v({ style: 'noir' }), 'style'],
  ['video wm_position 5', r2v({ wm_position: 5 }), 'wm_position'],
  ['video wm_position 0', r2v({ wm_position: 0 }), 'wm_position'],
  ['video seed above int32', r2v({ seed: 2 ** 31 }), 'seed'],
  ['video seed below int32', r2v({ seed: -(2 ** 31) - 1 }), 'seed'],
  ['video priority not an integer', r2v({ priority: 1.5 }), 'priority'],
  ['video callback_url that is not a URL', r2v({ callback_url: 'not a url' }), 'callback_url'],
  // A model that is not a documented one has no duration range: the lookup neither throws a TypeError
  // (an object without a prototype) nor reads Object.prototype's members (whose missing min let 0 s pass).
  ['video model that is an object without a prototype', r2v({ model: Object.create(null) as object, duration: 5 }), 'model'],
  ['video model named like an Object.prototype member, with a duration of 0', r2v({ model: 'constructor', duration: 0 }), 'duration'],
  ['extend duration over 7', extend({ duration: 8 }), 'duration'],
  ['extend duration of 0', extend({ duration: 0 }), 'duration'],
  ['extend model q3 (only q2-pro, q2-turbo)', extend({ model: 'videoq3-pro' }), 'model'],
  ['extend without model', (p) => p.video.extend(unsafe({ video_creation_id: 'c', video_url: V })), 'model'],
  ['extend resolution 360p', extend({ resolution: '360p' }), 'resolution'],
  ['extend with two images', extend({ images: [IMG, IMG] }), 'images'],
  ['extend video_creation_id without video_url', (p) => p.video.extend(unsafe({ model: 'videoq2-pro', video_creation_id: 'c' })), 'video_url'],
  ['extend video_url without video_creation_id', (p) => p.video.extend(unsafe({ model: 'videoq2-pro', video_url: V })), 'video_creation_id'],
  ['multiframe with 1 key frame', multi({ image_settings: frames(1) }), 'image_settings'],
  ['multiframe with 10 key frames', multi({ image_settings: frames(10) }), 'image_settings'],
  ['multiframe key frame without key_image', multi({ image_settings: [{ key_image: IMG }, { duration: 2 }] }), 'image_settings[1].key_image'],
  ['multiframe key frame duration not an integer', multi({ image_settings: [{ key_image: IMG, duration: 2.5 }, { key_image: IMG }] }), 'image_settings[0].duration'],
  ['multiframe key frame of 1 s (2 to 7)', multi({ image_settings: [{ key_image: IMG, duration: 1 }, { key_image: IMG }] }), 'image_settings[0].duration'],
  ['multiframe key frame of 8 s (2 to 7)', multi({ image_settings: [{ key_image: IMG }, { key_image: IMG, duration: 8 }] }), 'image_settings[1].duration'],
  ['multiframe without image_settings', multi({ image_settings: undefined }), 'image_settings'],
  ['multiframe without start_image', multi({ start_image: undefined }), 'start_image'],
  ['multiframe model videoq1', multi({ model: 'videoq1' }), 'model'],
  ['multiframe resolution 2K', multi({ resolution: '2K' }), 'resolution'],
];

const passing: [string, Call][] = [
  ['relight prompt with ordinary parentheses', (p) => p.image.relight({ image: IMG, prompt: 'portrait (style: cinematic) (no weights here:)' })],
  ['relight strength 0 and 100, sliders 0 and 100, weight 1 and 1.4', (p) => p.image.relight({ image: IMG, light_transfer_strength: 0, prompt: '(a:1) (b:1.4)', advanced_settings: { whites: 0, blacks: 100 } })],
  ['relight strength 100 and a lightmap alone', relight({ light_transfer_strength: 100, transfer_light_from_lightmap: IMG })],
  ['upscale sliders at -10 and 10', upscale({ creativity: -10, fractality: 10, hdr: -10, resemblance: 10 })],
  ['upscale result of exactly 25.3 MP (1250×1265 at 4x)', upscale({ image: pngHeader(1250, 1265), scale_factor: '4x' })],
  ['upscale of a JPEG under the limit (Base64 at 2x)', upscale({ image: toBase64(jpegHeader(2000, 3000)), scale_factor: '2x' })],
  ['upscale of a WebP VP8 under the limit', upscale({ image: webpHeader('VP8 ', 1000, 1000), scale_factor: '4x' })],
  ['upscale of a WebP VP8L under the limit', upscale({ image: webpHeader('VP8L', 2500, 2530), scale_factor: '2x' })],
  ['upscale from a URL (size unknown, not refused)', upscale({ image: IMG, scale_factor: '16x' })],
  ['style transfer portrait fields without is_portrait (ignored, as the server does)', style({ portrait_style: 'pop', portrait_beautifier: 'beautify_face' })],
  ['style transfer portrait fields with is_portrait true, strengths 0 and 100', style({ is_portrait: true, portrait_style: 'pop', portrait_beautifier: 'beautify_face_max', style_strength: 100, structure_strength: 0 })],
  ['skin enhancers at 0 and 100', faithful({ sharpen: 0, skin_detail: 100, smart_grain: 100 })],
  ['video prompt of exactly 2000 characters', r2v({ prompt: 'x'.repeat(2000) })],
  ['video prompt of 2000 characters outside the BMP (4000 UTF-16 units)', r2v({ prompt: '🎬'.repeat(2000) })],
  ['extend prompt of 1500 CJK and emoji characters', extend({ prompt: '海🌊'.repeat(750) })],
  ['video payload of exactly 1,048,576 characters', r2v({ payload: 'x'.repeat(1_048_576) })],
  ['videoq3-pro 16 s', r2v({ model: 'videoq3-pro', duration: 16 })],
  ['videoq2-pro-fast 10 s', r2v({ model: 'videoq2-pro-fast', duration: 10 })],
  ['videoq2-turbo 8 s and 1 s', r2v({ model: 'videoq2-turbo', duration: 8, seed: 2 ** 31 - 1 })],
  ['videoq2-pro 1 s, seed at the int32 minimum', r2v({ model: 'videoq2-pro', duration: 1, seed: -(2 ** 31) })],
  ['wm_position 1 and one image', r2v({ wm_position: 1, images: [IMG] })],
  ['wm_position 4 and JSON meta_data', r2v({ wm_position: 4, meta_data: '{"a":[1]}' })],
  ['extend 7 s and 1 s with one image', extend({ duration: 7, images: [IMG], resolution: '1080p' })],
  ['extend 1 s', extend({ duration: 1 })],
  ['extend with neither video_creation_id nor video_url', (p) => p.video.extend({ model: 'videoq2-pro' })],
  ['multiframe with 2 key frames', multi({ image_settings: frames(2) })],
  ['multiframe with 9 key frames', multi({ image_settings: frames(9), resolution: '540p' })],
  ['multiframe key frames of 2 and 7 s', multi({ image_settings: [{ key_image: IMG, duration: 2 }, { key_image: IMG, duration: 7 }] })],
];

describe('proxy limits: each broken limit is refused before any request', () => {
  it.each(failing)('%s', async (_name, call, path) => {
    const error = await call(client()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toContain(path);
    expect(seen).toHaveLength(0);
  });
});

describe('proxy limits: values at the edge are sent', () => {
  it.each(passing)('%s', async (_name, call) => {
    await expect(call(client())).resolves.toBeDefined();
    expect(seen).toHaveLength(1);
  });
});

describe('proxy limits: reporting', () => {
  it('lists every broken rule at once, with path, rule and value', async () => {
    const error = (await client()
      .video.multiframe(unsafe({ model: 'videoq3-pro', image_settings: frames(1), payload: 'x'.repeat(1_048_577) }))
      .catch((e: unknown) => e)) as ValidationError;
    expect(error.issues.map((i) => i.path).sort()).toEqual(['image_settings', 'model', 'payload', 'start_image']);
    expect(error.issues.find((i) => i.path === 'model')).toMatchObject({ rule: 'one of: videoq2-pro, videoq2-turbo', received: 'videoq3-pro' });
    expect(error.message).toContain('proxy.video.multiframe()');
    expect(seen).toHaveLength(0);
  });

  it('names the pixel count in the upscaler refusal', async () => {
    const error = (await upscale({ image: pngHeader(1251, 1265), scale_factor: '4x' })(client()).catch((e: unknown) => e)) as ValidationError;
    expect(error.issues[0]?.rule).toContain('25,300,000');
    expect(error.issues[0]?.received).toBe('1251×1265 image/png');
  });

  it('sends unchecked values with validate: false (binary inputs still encoded)', async () => {
    await client().video.extend(unsafe({ model: 'videoq3-pro', duration: 12, images: [pngHeader(1, 1)] }), { validate: false });
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!.body)).toEqual({ model: 'videoq3-pro', duration: 12, images: [`data:image/png;base64,${toBase64(pngHeader(1, 1))}`] });
  });

  it('refuses params that are not an object', async () => {
    await expect(client().image.upscale(unsafe(null))).rejects.toBeInstanceOf(ValidationError);
    expect(seen).toHaveLength(0);
  });
});
