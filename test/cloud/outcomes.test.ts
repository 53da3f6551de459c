import { delay, http, HttpResponse, ws } from 'msw';
import { describe, expect, it } from 'vitest';
import { ClientClosedError, ConnectionError, ResponseValidationError } from '../../src/core/index.js';
import { CloudClient, OutputDownloadError, SubmissionUnknownError, WatcherClosedError } from '../../src/index.js';
import { useMsw } from '../helpers/msw.js';

// What the caller is left with when something goes wrong around a paid submission.
const BASE = 'https://cloud.test';
const KEY = 'sk-outcome-secret-5678';
const { server } = useMsw();
const socket = ws.link('wss://cloud.test/ws');
const client = () => new CloudClient({ baseUrl: BASE, apiKey: KEY, retry: { limit: 3, minDelayMs: 1, maxDelayMs: 2 }, watcher: { socket: { idleCloseMs: 5 } } });
const WORKFLOW = { '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } }, '9': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } };

describe('cloud.jobs.submit()', () => {
  it('does not retry a submission whose answer was lost, and says the job may exist', async () => {
    let submits = 0;
    server.use(http.post(`${BASE}/api/prompt`, () => (submits++, HttpResponse.error())));
    const cloud = client();
    const error = await cloud.jobs.submit(WORKFLOW, { validate: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubmissionUnknownError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/may have been created/);
    expect((error as Error).message).not.toContain(KEY);
    expect(submits).toBe(1);
    await cloud.close();
  });

  it.each(['\ud800', '..', '%2e%2e', ' '])('refuses an answer whose prompt_id %j no URL can carry, saying the job may exist, and asks nothing more', async (promptId) => {
    const asked: string[] = [];
    server.use(
      socket.addEventListener('connection', () => undefined),
      http.post(`${BASE}/api/prompt`, () => HttpResponse.json({ prompt_id: promptId, number: 1, node_errors: {} })),
      http.all(`${BASE}/*`, ({ request }) => (asked.push(`${request.method} ${new URL(request.url).pathname}`), HttpResponse.json({}))),
    );
    const cloud = client();
    for (const call of [() => cloud.jobs.submit(WORKFLOW, { validate: false }), () => cloud.runWorkflow(WORKFLOW, { validate: false })]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect(error).toMatchObject({ field: 'prompt_id' });
      expect((error as Error).message).toMatch(/may have been created/);
    }
    expect(asked).toEqual([]);
    await cloud.close();
  });

  it('treats a submission that timed out after it was sent the same way', async () => {
    let submits = 0;
    server.use(
      http.post(`${BASE}/api/prompt`, async () => {
        submits++;
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const cloud = client();
    const error = await cloud.jobs.submit(WORKFLOW, { validate: false, timeout: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubmissionUnknownError);
    expect(submits).toBe(1);
    await cloud.close();
  });
});

describe('cloud.runWorkflow()', () => {
  it('keeps the result of a finished run when downloading its outputs fails', async () => {
    server.use(
      socket.addEventListener('connection', () => undefined),
      http.post(`${BASE}/api/prompt`, () => {
        queueMicrotask(() => {
          for (const peer of socket.clients) {
            peer.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: 'p1' } }));
            peer.send(JSON.stringify({ type: 'executed', data: { prompt_id: 'p1', node: '9', output: { images: [{ filename: 'out.png', subfolder: '', type: 'output' }] } } }));
            peer.send(JSON.stringify({ type: 'execution_success', data: { prompt_id: 'p1' } }));
          }
        });
        return HttpResponse.json({ prompt_id: 'p1', number: 1, node_errors: {} });
      }),
      http.get(`${BASE}/api/view`, () => HttpResponse.json({ message: 'signing failed' }, { status: 403 })),
    );
    const cloud = client();
    const error = await cloud.runWorkflow(WORKFLOW, { validate: false, download: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputDownloadError);
    expect((error as OutputDownloadError).result).toMatchObject({ promptId: 'p1', status: 'completed', outputs: { '9': { images: [{ filename: 'out.png' }] } } });
    await cloud.close();
  });

  it('names the prompt id when the client is closed while the submission is in flight', async () => {
    const cloud = client();
    server.use(
      socket.addEventListener('connection', () => undefined),
      http.post(`${BASE}/api/prompt`, async () => {
        await cloud.close();
        return HttpResponse.json({ prompt_id: 'p2', number: 1, node_errors: {} });
      }),
    );
    const error = await cloud.runWorkflow(WORKFLOW, { validate: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WatcherClosedError);
    expect((error as WatcherClosedError).promptId).toBe('p2');
    expect(error).toMatchObject({ submitted: { kind: 'job', promptId: 'p2' } });
    expect((error as Error).cause).toBeInstanceOf(ClientClosedError);
  });

  it('stops an upload in flight when the client is closed, and submits nothing', async () => {
    const cloud = client();
    let submits = 0;
    let uploading!: () => void;
    const started = new Promise<void>((resolve) => (uploading = resolve));
    server.use(
      socket.addEventListener('connection', () => undefined),
      http.post(`${BASE}/api/upload/image`, async ({ request }) => {
        // Read the body first: msw's own copy of it must not be cut short by the abort.
        await request.arrayBuffer();
        await delay(5);
        uploading();
        await delay('infinite');
        return HttpResponse.json({});
      }),
      http.post(`${BASE}/api/prompt`, () => (submits++, HttpResponse.json({ prompt_id: 'p3' }))),
    );
    const run = cloud.runWorkflow(WORKFLOW, { validate: false, uploads: { '1.image': new Uint8Array([1]) } }).catch((e: unknown) => e);
    await started;
    await cloud.close();
    const error = await run;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect((error as Error).message).toMatch(/CloudClient was closed/);
    expect(submits).toBe(0);
  });

  it('tells onSubmitted the prompt id before the wait, so an abort afterwards loses nothing', async () => {
    const cloud = client();
    const controller = new AbortController();
    const seen: string[] = [];
    const cancelled: string[] = [];
    server.use(
      socket.addEventListener('connection', () => undefined),
      http.post(`${BASE}/api/prompt`, () => HttpResponse.json({ prompt_id: 'p4', number: 1, node_errors: {} })),
      http.post(`${BASE}/api/jobs/:id/cancel`, ({ params }) => (cancelled.push(String(params.id)), HttpResponse.json({}))),
    );
    const reason = new Error('user left');
    const run = cloud
      .runWorkflow(WORKFLOW, {
        validate: false,
        signal: controller.signal,
        onSubmitted: ({ promptId }) => {
          seen.push(promptId);
          controller.abort(reason);
          throw new Error('a broken observer must not matter');
        },
      })
      .catch((e: unknown) => e);
    expect(await run).toBe(reason);
    expect(seen).toEqual(['p4']);
    // The abort cancels the job it stopped waiting for (cancelOnAbort, on by default).
    await expect.poll(() => cancelled).toEqual(['p4']);
    await cloud.close();
  });
});
