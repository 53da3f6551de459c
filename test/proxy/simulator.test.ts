import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePng } from '../../src/testing/index.js';
import { startSimulator } from '../../src/testing/index.js';
import { AuthenticationError } from '../../src/core/index.js';
import { ProxyClient } from '../../src/proxy/client.js';
import { TaskFailedError } from '../../src/proxy/errors.js';
import type { ProxyClientOptions } from '../../src/proxy/options.js';

// Flows against the local simulator (real HTTP on 127.0.0.1): submit, poll, fetch the result.
type Sim = Awaited<ReturnType<typeof startSimulator>>;
let sim: Sim;
let proxy: ProxyClient;
// Polls every 50 to 200 ms (the floor of poll.minDelayMs is 100 ms; jitter draws half to all of it).
const fast: ProxyClientOptions['wait'] = { poll: { minDelayMs: 100, maxDelayMs: 200 }, waitTimeout: 10_000 };
const png = encodePng(64, 48, [200, 100, 50]);

beforeAll(async () => {
  sim = await startSimulator({ taskDurationMs: 150, stepDelayMs: 0 });
  proxy = new ProxyClient({ baseUrl: sim.proxyUrl, token: sim.token, wait: fast });
});
afterAll(() => sim?.close());

describe('ProxyClient against the simulator', () => {
  it('runs each image task to its result, encoding bytes as Base64', async () => {
    const results = [
      await proxy.image.relight({ image: png, prompt: 'warm (sun:1.2)' }, { wait: true }),
      await proxy.image.upscale({ image: png, scale_factor: '4x' }, { wait: true }),
      await proxy.image.styleTransfer({ image: png, reference_image: png, style_strength: 50 }, { wait: true }),
      await proxy.image.skinEnhancerCreative({ image: png }, { wait: true }),
      await proxy.image.skinEnhancerFaithful({ image: png, skin_detail: 80 }, { wait: true }),
    ];
    for (const result of results) expect(result.urls.length).toBeGreaterThan(0);
    expect(results.map((r) => r.kind)).toEqual(['relight', 'upscale', 'styleTransfer', 'skinEnhancerCreative', 'skinEnhancerFaithful']);
    const image = await fetch(results[1]!.urls[0]!);
    expect(image.ok).toBe(true);
  });

  it('runs each video task to creations with a cover', async () => {
    const first = await proxy.video.referenceToVideo({ model: 'videoq2-pro', prompt: 'waves', images: [png], duration: 4 }, { wait: true });
    expect(first.urls[0]).toMatch(/^http/);
    const creation = first.creations[0]!;
    expect(creation.cover_url).toMatch(/^http/);
    const extended = await proxy.video.extend({ model: 'videoq2-pro', video_creation_id: creation.id ?? 'c', video_url: first.urls[0]! }, { wait: true });
    const multi = await proxy.video.multiframe({ model: 'videoq2-turbo', start_image: png, image_settings: [{ key_image: png, duration: 2 }, { key_image: png, duration: 2 }] }, { wait: true });
    for (const result of [first, extended, multi]) expect(result.urls.length).toBeGreaterThan(0);
  });

  it('rejects with TaskFailedError when the task fails', async () => {
    await expect(proxy.image.upscale({ image: png, prompt: 'please fail' }, { wait: true })).rejects.toBeInstanceOf(TaskFailedError);
    await expect(proxy.video.referenceToVideo({ model: 'videoq2-pro', prompt: 'fail now' }, { wait: true })).rejects.toBeInstanceOf(TaskFailedError);
  });

  it('survives 404s after submission, task_status and a wrapped style transfer', async () => {
    const headers = { 'x-sim-fault': 'not-found-polls=2, task-status-field=task_status, wrap-style-transfer' };
    const result = await proxy.image.styleTransfer({ image: png, reference_image: png }, { headers, wait: true });
    expect(result.urls.length).toBeGreaterThan(0);
  });

  it('waits out a 429 with Retry-After while polling', async () => {
    const task = await proxy.image.upscale({ image: png });
    const rule = sim.faults.failRequests({ method: 'GET', path: '/proxy/imagevendor/v1/ai/image-upscaler/', status: 429, retryAfter: 1, times: 1 });
    const result = await proxy.waitForTask(task);
    expect(rule.hits).toBe(1);
    expect(result.urls.length).toBeGreaterThan(0);
  });

  it('accepts X-API-Key instead of a Bearer token; a wrong one is an AuthenticationError', async () => {
    const byKey = new ProxyClient({ baseUrl: sim.proxyUrl, apiKey: sim.apiKey, wait: fast });
    await expect(byKey.image.upscale({ image: png }, { wait: true })).resolves.toMatchObject({ kind: 'upscale' });
    const wrong = new ProxyClient({ baseUrl: sim.proxyUrl, apiKey: 'nope' });
    await expect(wrong.image.upscale({ image: png })).rejects.toBeInstanceOf(AuthenticationError);
  });
});
