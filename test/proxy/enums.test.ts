import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { PROXY_DEFAULTS } from '../../src/proxy/defaults.js';
import { PROXY_ENUMS } from '../../src/proxy/enums.js';
import { BASE, client, useProxyServer } from './helpers.js';

const { server, seen } = useProxyServer();

describe('PROXY_ENUMS and PROXY_DEFAULTS', () => {
  it('lists values the submissions accept', async () => {
    server.use(http.post(`${BASE}/proxy/imagevendor/v1/ai/image-upscaler`, () => HttpResponse.json({ data: { task_id: 't', status: 'CREATED' } })));
    const p = client();
    for (const scale_factor of PROXY_ENUMS.upscale.scale_factor) await p.image.upscale({ image: 'https://cdn.test/a.png', scale_factor });
    expect(seen.map((r) => (JSON.parse(r.body) as { scale_factor: string }).scale_factor)).toEqual(['2x', '4x', '8x', '16x']);
  });

  it('cannot be changed at run time (the checks read the same lists)', () => {
    expect(() => (PROXY_ENUMS.upscale.scale_factor as unknown as string[]).push('3x')).toThrow(TypeError);
    expect(() => Object.assign(PROXY_ENUMS.referenceToVideo.duration['videoq3-pro'] as object, { max: 99 })).toThrow(TypeError);
    expect(() => Object.assign(PROXY_DEFAULTS.wait.poll, { minDelayMs: 1 })).toThrow(TypeError);
    expect(() => Object.assign(PROXY_DEFAULTS.statusPaths, { upscale: '/x/{task_id}' })).toThrow(TypeError);
  });
});
