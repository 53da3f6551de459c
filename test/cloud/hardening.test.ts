import { inspect } from 'node:util';
import { http, HttpResponse, passthrough, ws } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthenticationError, BadRequestError, ConnectionError, ValidationError } from '../../src/core/index.js';
import { CloudClient, JobFailedError, SubmissionUnknownError, WorkflowError, WorkflowValidationError } from '../../src/index.js';
import { useMsw } from '../helpers/msw.js';

// The cloud's promises against a hostile server and hostile input: each test failed on 0.1.0.
const BASE = 'https://cloud.test';
const KEY = 'sk-cloud-hardening-0a1b2c3d';
const PARTNER = 'sk-partner-hardening-9z8y7x';
const { server, seen } = useMsw();
const link = ws.link('wss://cloud.test/ws');
const workflow = { '1': { class_type: 'SaveImage', inputs: { images: ['2', 0] } }, '2': { class_type: 'LoadImage', inputs: { image: 'a.png' } } };
let cloud: CloudClient | undefined;

afterEach(async () => {
  await cloud?.close();
  cloud = undefined;
});

const make = () => (cloud = new CloudClient({ baseUrl: BASE, apiKey: KEY, retry: false, watcher: { socket: { minDelayMs: 50, maxDelayMs: 100, idleCloseMs: 100 }, poll: { silenceMs: 60_000, minDelayMs: 100, maxDelayMs: 200 } } }));
const rendered = (value: unknown) => {
  const parts = [inspect(value, { depth: 20 }), JSON.stringify(value) ?? '', String(value)];
  for (let c: unknown = value; c instanceof Error; c = c.cause) parts.push(c.stack ?? '', c.message);
  return parts.join('\n');
};

describe('cloud.jobs.submit(): "certainly not sent" versus "may have been created"', () => {
  it('says a refused connection sent nothing (a ConnectionError, safe to submit again), keeping the refusal', async () => {
    // Port 2 is privileged, unused and not blocked by fetch; a port freed by listen(0) could be taken by another file's server.
    const origin = 'http://127.0.0.1:2';
    server.use(http.all(`${origin}/*`, () => passthrough()));
    cloud = new CloudClient({ baseUrl: origin, apiKey: KEY });
    const error = await cloud.jobs.submit(workflow, { validate: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(SubmissionUnknownError);
    expect((error as ConnectionError).notSent).toBe(true);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).message).toContain('safe to send again');
  });

  it('keeps SubmissionUnknownError ("the job may exist") for a connection that broke after sending', async () => {
    server.use(http.post(`${BASE}/api/prompt`, () => HttpResponse.error()));
    const error = await make().jobs.submit(workflow, { validate: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubmissionUnknownError);
  });
});

describe('cloud: every credential a request carried is scrubbed from what the server echoes', () => {
  it('scrubs the partner key from a 400 and a 500 body, and the key from a 200 {error}', async () => {
    server.use(
      http.post(`${BASE}/api/prompt`, async ({ request }) => {
        const body = (await request.json()) as { extra_data?: { api_key_platform_org?: string }; prompt: Record<string, unknown> };
        const partner = body.extra_data?.api_key_platform_org;
        if (Object.keys(body.prompt).length === 2 && partner) return HttpResponse.json({ error: { type: 'x', message: `bad partner key ${partner}` }, node_errors: {} }, { status: 400 });
        if (partner) return HttpResponse.json({ message: `echo ${JSON.stringify(body)}` }, { status: 500 });
        return HttpResponse.json({ error: `key ${request.headers.get('x-api-key')} is not allowed here` });
      }),
    );
    const c = make();
    const errors = [
      await c.jobs.submit(workflow, { validate: false, partnerApiKey: PARTNER }).catch((e: unknown) => e),
      await c.jobs.submit({ ...workflow, '3': { class_type: 'X', inputs: {} } }, { validate: false, partnerApiKey: PARTNER }).catch((e: unknown) => e),
      await c.jobs.submit(workflow, { validate: false, partnerApiKey: true }).catch((e: unknown) => e),
      await c.jobs.submit(workflow, { validate: false }).catch((e: unknown) => e),
    ];
    expect(errors[3]).toBeInstanceOf(WorkflowError);
    for (const error of errors) {
      expect(error).toBeInstanceOf(Error);
      expect(rendered(error)).not.toContain(PARTNER);
      expect(rendered(error)).not.toContain(KEY);
    }
  });

  it('scrubs the key from a status error_message', async () => {
    server.use(http.get(`${BASE}/api/job/p1/status`, ({ request }) => HttpResponse.json({ status: 'error', error_message: `upstream refused ${request.headers.get('x-api-key')}` })));
    const status = await make().jobs.getStatus('p1');
    expect(status.errorMessage).toContain('[REDACTED]');
    expect(rendered(status)).not.toContain(KEY);
  });

  it('scrubs the key from an execution_error message and traceback, and from a socket close reason', async () => {
    server.use(
      http.get(`${BASE}/api/job/:id/status`, () => HttpResponse.json({ status: 'executing' })),
      link.addEventListener('connection', ({ client }) => {
        const key = client.url.searchParams.get('token');
        if (client.url.searchParams.get('clientId') === 'refuse') {
          client.close(4401, `token ${key} rejected`);
          return;
        }
        setTimeout(() => client.send(JSON.stringify({ type: 'execution_error', data: { prompt_id: 'p', exception_message: `auth ${key}`, exception_type: 'E', traceback: [`line with ${key}`], timestamp: 1 } })), 20);
      }),
    );
    const result = await make().jobs.watch('p').result();
    expect(result.status).toBe('failed');
    expect(result.error?.message).toContain('[REDACTED]');
    expect(rendered(result)).not.toContain(KEY);
    expect(rendered(new JobFailedError(result as never))).not.toContain(KEY);
    cloud = new CloudClient({ baseUrl: BASE, apiKey: KEY, clientId: 'refuse', retry: false });
    const refused = await cloud.jobs.watch('p').result().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(rendered(refused)).not.toContain(KEY);
  });
});

describe('cloud: unchecked values are refused before anything is sent', () => {
  it.each([
    ['a workflow node that is null', { '1': null }, {}],
    ['a partner key that is a number', workflow, { partnerApiKey: 5 }],
    ['extra_data that is a string', workflow, { extraData: 'x' }],
    ['null options', workflow, null],
  ])('refuses %s', async (_name, wf, options) => {
    const error = await make().jobs.submit(wf as never, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(seen).toHaveLength(0);
  });

  it('refuses a callback that is not a function in runWorkflow before any request', async () => {
    const error = await make().runWorkflow(workflow, { onProgress: 5 as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(seen).toHaveLength(0);
  });
});

describe('cloud error classes', () => {
  it('a rejected workflow (400 with node_errors) is also a BadRequestError', async () => {
    server.use(http.post(`${BASE}/api/prompt`, () => HttpResponse.json({ error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation' }, node_errors: { '1': { errors: [{ type: 'value_not_in_list', message: 'Value not in list', details: 'ckpt_name: "x" not in [a, b]' }], class_type: 'CheckpointLoaderSimple' } } }, { status: 400 })));
    const error = await make().jobs.submit(workflow, { validate: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowValidationError);
    expect(error).toBeInstanceOf(BadRequestError);
  });
});
