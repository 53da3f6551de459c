import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { JOB_TOKEN_HEADER } from '../../src/server/index.js';
import { png, relayStarter, scaleByWorkflow, submit, upload, type RunningRelay } from './helpers.js';

interface Image {
  filename: string;
  subfolder: string;
  type: string;
}

describe('relay: output files (/api/view)', () => {
  let sim: Simulator;
  const start = relayStarter(() => sim);
  /** Runs a job through the relay to its end; returns its token and output image. */
  const run = async (relay: RunningRelay, width: number) => {
    const name = await upload(relay.url, png(width, 10, width));
    const answer = await submit(relay.url, scaleByWorkflow(name));
    await sim.state.waitForIdle();
    const outputs = sim.state.jobs().find((job) => job.id === answer.prompt_id)?.outputs as Record<string, { images: Image[] }>;
    return { token: answer.relay_token, promptId: answer.prompt_id, image: outputs['3']!.images[0]! };
  };
  const viewUrl = (relay: RunningRelay, image: Image, extra: Record<string, string> = {}) => `${relay.url}/api/view?${new URLSearchParams({ ...image, ...extra })}`;

  beforeAll(async () => {
    sim = await startSimulator({ stepDelayMs: 0, progressSteps: 1 });
  });
  afterEach(async () => {
    sim.state.clearRequests();
  });
  afterAll(() => sim.close());

  it('follows the cloud’s 302 on the server, without the key, and streams the bytes', async () => {
    const relay = await start();
    const { token, image } = await run(relay, 21);
    const response = await fetch(viewUrl(relay, image), { headers: { [JOB_TOKEN_HEADER]: token } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('cache-control')).toBe('private, max-age=300');
    const bytes = new Uint8Array(await response.arrayBuffer());
    const header = new DataView(bytes.buffer);
    expect([header.getUint32(16), header.getUint32(20)]).toEqual([42, 20]);
    // The signed URL on the files origin was fetched by the relay, with no credential.
    expect(sim.state.requests.some((r) => r.area === 'files' && r.path === '/signed/view')).toBe(true);
    expect(sim.state.filesOriginSawCredentials()).toBe(false);
  });

  it('takes the token from the job= query, for <img src>', async () => {
    const relay = await start();
    const { token, image } = await run(relay, 5);
    const response = await fetch(viewUrl(relay, image, { job: token }));
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
    const upstream = sim.state.requests.find((r) => r.area === 'cloud' && r.path === '/api/view');
    expect(upstream?.query).not.toContain('job=');
  });

  it('serves a file only to the token of the job that made it', async () => {
    const relay = await start();
    const first = await run(relay, 6);
    const second = await run(relay, 7);
    const crossed = await fetch(viewUrl(relay, second.image), { headers: { [JOB_TOKEN_HEADER]: first.token } });
    expect(crossed.status).toBe(404);
    expect(await crossed.json()).toMatchObject({ error: 'file_not_in_job' });
    const input = await fetch(viewUrl(relay, { filename: 'anything.png', subfolder: '', type: 'input' }), { headers: { [JOB_TOKEN_HEADER]: first.token } });
    expect(input.status).toBe(404);
    expect((await fetch(viewUrl(relay, first.image))).status).toBe(403);
    expect(sim.state.requests.filter((r) => r.area === 'cloud' && r.path === '/api/view')).toEqual([]);
  });

  it('answers the signed URL as JSON in url mode, and a 302 to an <img>', async () => {
    const relay = await start({ viewMode: 'url' });
    const { token, image } = await run(relay, 9);
    const json = await fetch(viewUrl(relay, image), { headers: { [JOB_TOKEN_HEADER]: token, accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(json.headers.get('x-graphcloud-view')).toBe('url');
    const { url } = (await json.json()) as { url: string };
    expect(url.startsWith(sim.filesUrl)).toBe(true);
    expect(url).not.toContain(sim.apiKey);
    const img = await fetch(viewUrl(relay, image, { job: token }), { headers: { accept: 'image/avif,image/webp,*/*' }, redirect: 'manual' });
    expect(img.status).toBe(302);
    expect(img.headers.get('location')).toMatch(new RegExp(`^${sim.filesUrl}/signed/view`));
    // The relay itself never fetched the file in url mode: the browser does.
    expect(sim.state.requests.filter((r) => r.area === 'files')).toEqual([]);
    expect((await fetch(url)).status).toBe(200);
  });

  it('streams a local runtime’s bytes (it answers 200, no redirect)', async () => {
    const local = await startSimulator({ runtime: 'local', stepDelayMs: 0, progressSteps: 1 });
    try {
      const relay = await start({ apiKey: undefined }, local);
      const name = await upload(relay.url, png(4, 4));
      const answer = await submit(relay.url, scaleByWorkflow(name));
      await local.state.waitForIdle();
      const outputs = local.state.jobs().find((job) => job.id === answer.prompt_id)?.outputs as Record<string, { images: Image[] }>;
      const response = await fetch(viewUrl(relay, outputs['3']!.images[0]!), { headers: { [JOB_TOKEN_HEADER]: answer.relay_token } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
    } finally {
      await local.close();
    }
  });
});
