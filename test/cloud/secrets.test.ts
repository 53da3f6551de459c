import { inspect } from 'node:util';
import { http, HttpResponse, ws } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { CloudClient, JobFailedError, type JobResult } from '../../src/index.js';
import { useMsw } from '../helpers/msw.js';

// Issue 19 item 1: every secret the client was given is scrubbed from every surface, not only the
// credential of the request at hand. A careless cloud echoes the submitted extra_data (the partner
// key) in a socket error, in binary frames, in the job record and in later errors.
const BASE = 'https://cloud.test';
const KEY = 'sk-cloud-secrets-1a2b3c4d';
const PARTNER = 'sk-partner-secrets-5e6f7a8b';
const { server } = useMsw();
const link = ws.link('wss://cloud.test/ws');
const WORKFLOW = { '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } }, '9': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } };
let cloud: CloudClient | undefined;

afterEach(async () => {
  await cloud?.close();
  cloud = undefined;
});

/** Every way a value can be printed: inspect, JSON, String, and each cause's message and stack. */
const rendered = (value: unknown) => {
  const parts = [inspect(value, { depth: 20, showHidden: true }), JSON.stringify(value) ?? '', String(value)];
  for (let c: unknown = value; c instanceof Error; c = c.cause) parts.push(c.stack ?? '', c.message);
  return parts.join('\n');
};

/** A binary frame: two 4-byte big-endian integers, then the payload (docs/wire-protocol.md#cloud-binary-frames). */
function frame(type: number, second: number, ...parts: Uint8Array[]): ArrayBuffer {
  const size = 8 + parts.reduce((n, p) => n + p.byteLength, 0);
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, type);
  view.setUint32(4, second);
  let at = 8;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return bytes.buffer;
}

/** A cloud that echoes the extra_data it was sent on every surface it has. */
function echoingCloud() {
  let extra = '';
  server.use(
    link.addEventListener('connection', () => undefined),
    http.post(`${BASE}/api/prompt`, async ({ request }) => {
      const body = (await request.json()) as { extra_data?: unknown };
      extra = JSON.stringify(body.extra_data);
      const encoder = new TextEncoder();
      queueMicrotask(() => {
        for (const peer of link.clients) {
          peer.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: 'p1' } }));
          peer.send(JSON.stringify({ type: 'progress', data: { prompt_id: 'p1', node: `1 ${extra}`, value: 1, max: 2 } }));
          const node = encoder.encode('1');
          peer.send(frame(3, node.byteLength, node, encoder.encode(`text frame: ${extra}`)));
          const meta = encoder.encode(JSON.stringify({ prompt_id: 'p1', node_id: `1 ${extra}`, display_node_id: extra, image_type: 'image/png' }));
          peer.send(frame(4, meta.byteLength, meta, new Uint8Array([137, 80, 78, 71])));
          peer.send(JSON.stringify({ type: 'execution_error', data: { prompt_id: 'p1', node_id: '1', node_type: 'LoadImage', exception_message: `bad extra_data ${extra}`, exception_type: 'ValueError', traceback: [`extra_data=${extra}`], current_inputs: { extra }, timestamp: 1 } }));
        }
      });
      return HttpResponse.json({ prompt_id: 'p1', number: 1, node_errors: {} });
    }),
    http.get(`${BASE}/api/job/p1/status`, () => HttpResponse.json({ status: 'error', error_message: `failed with ${extra}` })),
    http.get(`${BASE}/api/jobs/p1`, () => HttpResponse.json({ id: 'p1', status: 'failed', execution_error: { exception_message: `failed with ${extra}` }, workflow: { prompt: WORKFLOW, extra_data: JSON.parse(extra || '{}') as unknown } })),
    http.get(`${BASE}/api/queue`, () => HttpResponse.json({ message: `queue down, last job ${extra}` }, { status: 500 })),
  );
}

describe('cloud: the partner key is scrubbed from every surface, as the API key is', () => {
  it('runWorkflow(): a socket execution_error echoing extra_data leaks neither key into the error, the result, events, progress or hook payloads', async () => {
    echoingCloud();
    const seen: unknown[] = [];
    const hooks = { onRequest: (e: unknown) => seen.push(e), onResponse: (e: unknown) => seen.push(e) };
    cloud = new CloudClient({ baseUrl: BASE, apiKey: KEY, retry: false, ...hooks, watcher: { socket: { idleCloseMs: 5 } } });
    const error = await cloud
      .runWorkflow(WORKFLOW, { validate: false, partnerApiKey: PARTNER, onEvent: (e) => seen.push(e), onProgress: (p) => seen.push(p) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    const result = (error as JobFailedError).result as JobResult;
    expect(result.error?.message).toContain('[REDACTED]');
    expect(seen.some((e) => rendered(e).includes('text frame'))).toBe(true);
    expect(seen.some((e) => (e as { type?: string }).type === 'preview')).toBe(true);
    const everything = [error, result, result.error?.message, ...seen].map(rendered).join('\n');
    expect(everything).toContain('[REDACTED]');
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(PARTNER);
  });

  it('later reads (the job status and record, and a failing queue read) leak neither key', async () => {
    echoingCloud();
    cloud = new CloudClient({ baseUrl: BASE, apiKey: KEY, retry: false, watcher: { socket: { idleCloseMs: 5 } } });
    await cloud.runWorkflow(WORKFLOW, { validate: false, partnerApiKey: PARTNER }).catch(() => undefined);
    const surfaces = [
      await cloud.jobs.getStatus('p1').catch((e: unknown) => e),
      await cloud.jobs.get('p1').catch((e: unknown) => e),
      await cloud.jobs.getQueue().catch((e: unknown) => e),
    ];
    const everything = surfaces.map(rendered).join('\n');
    expect(everything).toContain('[REDACTED]');
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(PARTNER);
  });
});
