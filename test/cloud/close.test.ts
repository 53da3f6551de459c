import { delay, http, HttpResponse, ws } from 'msw';
import { describe, expect, it } from 'vitest';
import { ClientClosedError } from '../../src/core/index.js';
import { CloudClient, WatcherClosedError, type Workflow } from '../../src/index.js';
import { type JobWatcher } from '../../src/cloud/watch/job-watcher.js';
import { useMsw } from '../helpers/msw.js';

const BASE = 'https://cloud.test';
const { server, seen } = useMsw();
const link = ws.link('wss://cloud.test/ws');
const WORKFLOW: Workflow = { '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } } };
const make = () => new CloudClient({ baseUrl: BASE, apiKey: 'sk-close', watcher: { socket: { idleCloseMs: 5 } } });

function serveRunningJobs(): void {
  server.use(
    link.addEventListener('connection', () => undefined),
    http.get(`${BASE}/api/job/:id/status`, () => HttpResponse.json({ status: 'executing' })),
  );
}

describe('cloud.close()', () => {
  it('ends every wait with a WatcherClosedError naming its job, the ClientClosedError as its cause', async () => {
    serveRunningJobs();
    const cloud = make();
    const watchers = [cloud.jobs.watch('a'), cloud.jobs.watch('b')];
    await cloud.close();
    for (const [i, watcher] of watchers.entries()) {
      const error = await watcher.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WatcherClosedError);
      expect(error).toMatchObject({ promptId: ['a', 'b'][i], submitted: { kind: 'job', promptId: ['a', 'b'][i] } });
      expect((error as Error).cause).toBeInstanceOf(ClientClosedError);
    }
  });

  it('refuses every later call with a ClientClosedError, sending nothing', async () => {
    const cloud = make();
    await cloud.close();
    const calls: (() => unknown)[] = [
      () => cloud.runWorkflow(WORKFLOW),
      () => cloud.runWorkflow(WORKFLOW, { validate: false }),
      () => cloud.jobs.submit(WORKFLOW),
      () => cloud.jobs.getStatus('p'),
      () => cloud.jobs.getOutputs('p'),
      () => cloud.jobs.watch('p'),
      () => cloud.nodes.list(),
      () => cloud.nodes.get('LoadImage'),
      () => cloud.files.upload(new Uint8Array([1])),
      () => cloud.files.get({ filename: 'out.png' }),
      () => cloud.validateWorkflow(WORKFLOW),
    ];
    for (const call of calls) {
      const error = await (async () => call())().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClientClosedError);
      expect((error as Error).message).toContain('The CloudClient was closed');
    }
    expect(seen).toHaveLength(0);
    await cloud.close(); // closing twice is fine
  });

  it('aborts a request in flight', async () => {
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    server.use(
      http.get(`${BASE}/api/object_info`, async () => {
        started();
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const cloud = make();
    const listing = cloud.nodes.list().catch((e: unknown) => e);
    await inFlight;
    await cloud.close();
    expect(await listing).toBeInstanceOf(ClientClosedError);
  });

  it('rejects a run waiting for the socket with the ClientClosedError', async () => {
    let opened!: () => void;
    const connecting = new Promise<void>((resolve) => (opened = resolve));
    // The connection is accepted but never opened on the client's side before close().
    class Pending {
      readyState = 0;
      binaryType = 'blob';
      constructor() {
        opened();
      }
      send(): void {}
      close(): void {}
      addEventListener(): void {}
    }
    const cloud = new CloudClient({ baseUrl: BASE, apiKey: 'sk-close', WebSocket: Pending });
    const run = cloud.runWorkflow(WORKFLOW, { validate: false }).catch((e: unknown) => e);
    await connecting;
    await cloud.close();
    expect(await run).toBeInstanceOf(ClientClosedError);
    expect(seen).toHaveLength(0);
  });
});

describe('await using cloud = new CloudClient(...)', () => {
  it('closes the client at the end of the block', async () => {
    serveRunningJobs();
    let watcher: JobWatcher | undefined;
    let scoped: CloudClient | undefined;
    {
      await using cloud = make();
      scoped = cloud;
      watcher = cloud.jobs.watch('p');
    }
    await expect(watcher.result()).rejects.toBeInstanceOf(WatcherClosedError);
    await expect(scoped.nodes.list()).rejects.toBeInstanceOf(ClientClosedError);
  });
});
