import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { CloudClient, GraphcloudError, ValidationError } from '../../src/index.js';
import type { JobResult, OutputFile } from '../../src/cloud/shared/types.js';
import type { PreviewData, WatchEvent } from '../../src/cloud/watch/events.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { png, relayStarter, scaleByWorkflow, type RunningRelay } from './helpers.js';

/** What the page saw: every request (URL, headers), every answer body, every socket URL and frame. */
interface Traffic {
  seen: string[];
  sent: string[];
}

/** A fetch that records what goes out and what comes back. */
function recordingFetch(traffic: Traffic): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    traffic.seen.push(`${request.method} ${request.url} ${JSON.stringify([...request.headers])}`);
    const response = await fetch(request);
    const copy = response.clone();
    void copy.arrayBuffer().then((bytes) => traffic.seen.push(`${response.status} ${JSON.stringify([...response.headers])} ${new TextDecoder().decode(bytes)}`));
    return response;
  };
}

/** A WebSocket that records its URL and frames, optionally connecting elsewhere (another relay instance). */
function recordingSocket(traffic: Traffic, rewrite: (url: string) => string = (url) => url): typeof WebSocket {
  return class extends WebSocket {
    constructor(url: string | URL) {
      traffic.seen.push(`socket ${String(url)}`);
      super(rewrite(String(url)));
      this.addEventListener('message', (event: MessageEvent) => traffic.seen.push(typeof event.data === 'string' ? event.data : new TextDecoder().decode(event.data as ArrayBuffer)));
    }
    override send(data: Parameters<WebSocket['send']>[0]): void {
      traffic.sent.push(String(data));
      super.send(data);
    }
  };
}

describe('CloudClient in a browser page, through the relay (no key in the page)', () => {
  let sim: Simulator;
  const clients: CloudClient[] = [];
  const start = relayStarter(() => sim);
  /** A page served by `relay`: `location` set, the client on the relay's path, no key. */
  const page = (relay: RunningRelay, traffic: Traffic, rewrite?: (url: string) => string) => {
    vi.stubGlobal('location', { href: `${relay.origin}/app/index.html` });
    const cloud = new CloudClient({ baseUrl: '/api/graphcloud', fetch: recordingFetch(traffic), WebSocket: recordingSocket(traffic, rewrite), watcher: { poll: { minDelayMs: 100, maxDelayMs: 200 } } });
    clients.push(cloud);
    return cloud;
  };

  beforeAll(async () => {
    sim = await startSimulator({ stepDelayMs: 2, progressSteps: 2 });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((cloud) => cloud.close()));
    vi.unstubAllGlobals();
    sim.faults.reset();
  });
  afterAll(() => sim.close());

  it('takes a path as baseUrl in a browser page, and refuses it anywhere else', async () => {
    const relay = await start();
    expect(() => new CloudClient({ baseUrl: '/api/graphcloud' })).toThrow(ValidationError);
    expect(() => new CloudClient({ baseUrl: '/api/graphcloud' })).toThrow('a path such as /api/graphcloud works in a browser page only');
    const cloud = page(relay, { seen: [], sent: [] });
    expect(cloud.baseUrl).toBe(relay.url);
  });

  it('runs a workflow with live events and previews, downloads its output and gives an <img> URL; the key never reaches the page', async () => {
    const relay = await start();
    const traffic: Traffic = { seen: [], sent: [] };
    const cloud = page(relay, traffic);
    const events: WatchEvent[] = [];
    const result = await cloud.runWorkflow(scaleByWorkflow('placeholder.png'), { uploads: { '1.image': png(30, 12, 11) }, onEvent: (event) => void events.push(event), download: true });
    expect(result.status).toBe('completed');
    expect(events.some((event) => event.type === 'progress')).toBe(true);
    const previews = events.filter((event): event is Extract<WatchEvent, { type: 'preview' }> => event.type === 'preview');
    expect(previews.length).toBeGreaterThan(0);
    expect(previews.every((preview) => preview.data.promptId === result.promptId)).toBe(true);
    // Bytes typed for the browser's own APIs, no cast.
    expect(new Blob([previews[0]!.data.data], { type: previews[0]!.data.mimeType }).size).toBeGreaterThan(0);
    const [file] = result.files!;
    expect(pngSize(file!.data)).toEqual([60, 24]);
    expect(new Blob([file!.data]).size).toBe(file!.data.byteLength);
    const ref = file!.ref;
    expect(pngSize(await cloud.files.get(ref, { promptId: result.promptId }))).toEqual([60, 24]);
    const url = cloud.files.url(ref, { promptId: result.promptId });
    expect(url.startsWith(`${relay.url}/api/view?`)).toBe(true);
    const img = await fetch(url, { headers: { accept: 'image/avif,image/webp,*/*' } });
    expect(img.status).toBe(200);
    expect(pngSize(new Uint8Array(await img.arrayBuffer()))).toEqual([60, 24]);
    // The page subscribed on the socket with the job's token.
    expect(traffic.sent.some((text) => text.includes('graphcloud_subscribe'))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(traffic.seen.length).toBeGreaterThan(10);
    for (const line of traffic.seen) expect(line).not.toContain(sim.apiKey);
    for (const line of traffic.sent) expect(line).not.toContain(sim.apiKey);
  });

  it('works across two relay instances: requests to one, the socket on the other', async () => {
    const a = await start();
    const b = await start();
    const traffic: Traffic = { seen: [], sent: [] };
    const cloud = page(a, traffic, (url) => url.replace(a.origin.replace('http', 'ws'), b.origin.replace('http', 'ws')));
    const events: string[] = [];
    const result = await cloud.runWorkflow(scaleByWorkflow('x.png', 3), { uploads: { '1.image': png(10, 10, 12) }, onEvent: (event) => void events.push(event.type) });
    expect(result).toMatchObject({ status: 'completed', via: 'socket', outputsComplete: true });
    expect(events).toContain('execution_success');
    expect(b.relay.stats().browsers).toBe(1);
    expect(a.relay.stats().browsers).toBe(0);
  });

  it('watches again after a page reload with the stored relayToken', async () => {
    const relay = await start();
    const first = page(relay, { seen: [], sent: [] });
    const { name } = await first.files.upload(png(6, 6, 13), { filename: 'reload.png' });
    const submitted = await first.jobs.submit(scaleByWorkflow(name, 2, 'reload'));
    expect(submitted.relayToken).toMatch(/^[\w-]+\.[\w-]+$/);
    await first.close();
    // A new page: a new client, which knows the job only by what the app stored.
    const second = page(relay, { seen: [], sent: [] });
    const result: JobResult = await second.jobs.watch(submitted.promptId, { relayToken: submitted.relayToken }).result();
    expect(result.status).toBe('completed');
    expect((await second.jobs.getStatus(submitted.promptId)).status).toBe('completed');
    const image = (result.outputs['3'] as { images: { filename: string; subfolder: string; type: string }[] }).images[0]!;
    expect((await fetch(second.files.url(image, { promptId: submitted.promptId }))).status).toBe(200);
    // Without the token the relay refuses the job's routes.
    const third = page(relay, { seen: [], sent: [] });
    await expect(third.jobs.getStatus(submitted.promptId)).rejects.toMatchObject({ status: 403, code: 'job_token_required' });
  });

  it('reads the job’s status with its token while the relay’s socket is down, and ends', async () => {
    const relay = await start({ socket: { reconnect: { minDelayMs: 50, maxDelayMs: 100 } } });
    const cloud = page(relay, { seen: [], sent: [] });
    sim.faults.set({ dropSocketsMidRun: true });
    const result = await cloud.runWorkflow(scaleByWorkflow('y.png', 2, 'dropped'), { uploads: { '1.image': png(8, 8, 14) } });
    expect(result.status).toBe('completed');
    expect(cloud.jobs.stats().polls).toBeGreaterThan(0);
  });

  it('cancels its job through the relay (the token opens the cancel route)', async () => {
    const slow = await startSimulator({ stepDelayMs: 40, progressSteps: 3 });
    try {
      const relay = await start({}, slow);
      const cloud = page(relay, { seen: [], sent: [] });
      let promptId = '';
      const run = cloud.runWorkflow(scaleByWorkflow('c.png', 2, 'cancel'), {
        uploads: { '1.image': png(9, 9, 16) },
        onEvent: (event) => {
          if (event.type === 'progress' && promptId === '') promptId = event.data.prompt_id;
        },
      });
      const outcome = run.catch((error: unknown) => error);
      while (promptId === '') await new Promise((resolve) => setTimeout(resolve, 1));
      expect(await cloud.jobs.cancel(promptId)).toMatchObject({ cancelled: true });
      expect(await outcome).toMatchObject({ name: 'JobFailedError', status: 'cancelled' });
      await slow.state.waitForIdle();
      expect(slow.state.jobs().find((job) => job.id === promptId)?.status).toBe('cancelled');
    } finally {
      await slow.close();
    }
  });

  it('gets output bytes from a relay in url mode (the signed URL fetched with no credential)', async () => {
    const relay = await start({ viewMode: 'url' });
    const cloud = page(relay, { seen: [], sent: [] });
    const result = await cloud.runWorkflow(scaleByWorkflow('z.png', 2, 'urlmode'), { uploads: { '1.image': png(7, 5, 15) }, download: true });
    expect(pngSize(result.files![0]!.data)).toEqual([14, 10]);
    expect(sim.state.filesOriginSawCredentials()).toBe(false);
  });

  it('types preview and output bytes as Uint8Array<ArrayBuffer>, which new Blob() takes as they are', () => {
    expectTypeOf<PreviewData['data']>().toEqualTypeOf<Uint8Array<ArrayBuffer>>();
    expectTypeOf<OutputFile['data']>().toEqualTypeOf<Uint8Array<ArrayBuffer>>();
    expectTypeOf<CloudClient['files']['get']>().returns.resolves.toEqualTypeOf<Uint8Array<ArrayBuffer>>();
  });

  it('says how to set up the relay when a browser meets the cloud’s redirect to a signed URL', async () => {
    // A browser's fetch answers a manual redirect with an opaque response that hides its target.
    const opaque: typeof fetch = async () => {
      const response = new Response(null, { status: 200 });
      Object.defineProperty(response, 'type', { value: 'opaqueredirect' });
      return response;
    };
    const cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, fetch: opaque });
    clients.push(cloud);
    const error = await cloud.files.get({ filename: 'a.png', subfolder: '', type: 'output' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphcloudError);
    expect((error as Error).message).toContain('graphcloud/server');
    expect((error as Error).message).toContain('docs/browser.md');
    expect((error as Error).message).not.toContain(sim.apiKey);
  });
});

function pngSize(bytes: Uint8Array): [number, number] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return [view.getUint32(16), view.getUint32(20)];
}
