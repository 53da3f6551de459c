import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { http, HttpResponse, ws } from 'msw';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, InternalServerError, ResponseValidationError } from '../../src/core/index.js';
import { CloudClient, InsufficientCreditsError, InvalidWorkflowError, SubscriptionInactiveError, WorkflowError, validateWorkflow, WorkflowAddressError, WorkflowValidationError } from '../../src/index.js';
import { type ObjectInfo } from '../../src/cloud/workflow/validate.js';
import { useMsw } from '../helpers/msw.js';

const BASE = 'https://cloud.test';
const KEY = 'sk-cloud-secret-1234';
const { server, seen } = useMsw();
const client = (extra: Partial<ConstructorParameters<typeof CloudClient>[0]> = {}) => new CloudClient({ baseUrl: BASE, apiKey: KEY, retry: { minDelayMs: 1, maxDelayMs: 2 }, ...extra });

const OBJECT_INFO = {
  KSampler: {
    input: {
      required: {
        model: ['MODEL'],
        seed: ['INT', { default: 0, min: 0, max: 100 }],
        cfg: ['FLOAT', { default: 8, min: 0, max: 100, step: 0.1 }],
        sampler_name: [['euler', 'ddim'], {}],
        scheduler: ['COMBO', { options: ['normal', 'karras'] }],
      },
      optional: { denoise: ['FLOAT', { min: 0, max: 1 }] },
      hidden: { unique_id: 'UNIQUE_ID' },
    },
    output: ['LATENT'],
    output_node: false,
    name: 'KSampler',
    python_module: 'nodes',
  },
  CheckpointLoader: { input: { required: { ckpt_name: [['a.safetensors']] } }, output: ['MODEL'] },
  SaveText: { input: { required: { text: ['STRING', { multiline: true }], flag: ['BOOLEAN'] } } },
};

describe('new CloudClient()', () => {
  it('keeps the key out of util.inspect, JSON and errors', async () => {
    const cloud = client();
    expect(inspect(cloud)).toBe("CloudClient { baseUrl: 'https://cloud.test/' }");
    expect(inspect(cloud, { depth: 5, showHidden: true })).not.toContain(KEY);
    expect(JSON.stringify(cloud)).not.toContain(KEY);
    server.use(http.get(`${BASE}/api/object_info`, () => HttpResponse.json({ message: `bad key ${KEY}` }, { status: 401 })));
    const error = await cloud.nodes.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(JSON.stringify(error)).not.toContain(KEY);
    expect(String((error as Error).message)).not.toContain(KEY);
  });

  it('requires an API key when runtime is cloud', () => {
    expect(() => new CloudClient({ baseUrl: BASE, runtime: 'cloud' })).toThrow(/apiKey/);
    expect(seen).toHaveLength(0);
  });
});

describe('cloud.nodes.list()', () => {
  it('returns typed node definitions and sends X-API-Key', async () => {
    server.use(http.get(`${BASE}/api/object_info`, () => HttpResponse.json(OBJECT_INFO)));
    const info = await client().nodes.list();
    expect(info.KSampler?.input.required?.seed).toEqual(['INT', { default: 0, min: 0, max: 100 }]);
    expect(info.KSampler?.input.required?.sampler_name?.[0]).toEqual(['euler', 'ddim']);
    expect(info.KSampler?.input.hidden).toEqual({ unique_id: 'UNIQUE_ID' });
    expect(info.KSampler?.python_module).toBe('nodes');
    expect(seen[0]?.headers.get('x-api-key')).toBe(KEY);
  });

  it('lists a definition without an input object with no inputs, and rejects an answer that is no catalog', async () => {
    server.use(http.get(`${BASE}/api/object_info`, () => HttpResponse.json({ Broken: { output: [] } })));
    expect(await client().nodes.list()).toEqual({ Broken: { input: {}, output: [] } });
    server.use(http.get(`${BASE}/api/object_info`, () => HttpResponse.json(['Broken'])));
    await expect(client().nodes.list()).rejects.toBeInstanceOf(ResponseValidationError);
  });
});

describe('cloud.files.upload() and cloud.files.uploadMask()', () => {
  it('sends multipart form data with the built-in boundary and returns the server name', async () => {
    let form: FormData | undefined;
    server.use(
      http.post(`${BASE}/api/upload/image`, async ({ request }) => {
        form = await request.formData();
        return HttpResponse.json({ name: 'photo (1).png', subfolder: '', type: 'input' });
      }),
    );
    const dir = await mkdtemp(join(tmpdir(), 'gc-upload-'));
    try {
      await writeFile(join(dir, 'photo.png'), new Uint8Array([137, 80, 78, 71]));
      const result = await client().files.upload(join(dir, 'photo.png'), { overwrite: true });
      expect(result).toEqual({ name: 'photo (1).png', subfolder: '', type: 'input' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(seen[0]?.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0]?.headers.get('x-api-key')).toBe(KEY);
    const file = form?.get('image') as File;
    expect(file.name).toBe('photo.png');
    expect(file.type).toBe('image/png');
    expect([...new Uint8Array(await file.arrayBuffer())]).toEqual([137, 80, 78, 71]);
    expect(form?.get('type')).toBe('input');
    expect(form?.get('overwrite')).toBe('true');
  });

  it('sends original_ref of a mask as a JSON string', async () => {
    let form: FormData | undefined;
    server.use(
      http.post(`${BASE}/api/upload/mask`, async ({ request }) => {
        form = await request.formData();
        return HttpResponse.json({ name: 'mask.png', subfolder: '' });
      }),
    );
    const result = await client().files.uploadMask(new Blob([new Uint8Array([1, 2])], { type: 'image/png' }), { originalRef: { name: 'photo.png', subfolder: '' }, filename: 'mask.png' });
    expect(result).toEqual({ name: 'mask.png', subfolder: '', type: undefined });
    expect(JSON.parse(String(form?.get('original_ref')))).toEqual({ filename: 'photo.png', subfolder: '', type: 'input' });
  });

  it('lists every bad argument before sending anything', async () => {
    const error = await client().files.upload(new Uint8Array([1]), { type: 'output' as never, overwrite: 'yes' as never }).catch((e: unknown) => e);
    expect((error as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['options.type', 'options.overwrite']);
    expect(seen).toHaveLength(0);
  });
});

describe('cloud.jobs.submit()', () => {
  const workflow = { '1': { class_type: 'SaveText', inputs: { text: 'hi', flag: true } } };

  it('sends prompt, client_id and the partner key, and returns node_errors of a 200', async () => {
    server.use(http.post(`${BASE}/api/prompt`, () => HttpResponse.json({ prompt_id: 'p1', number: 3, node_errors: { '9': { errors: [{ type: 'x', message: 'dropped' }], class_type: 'SaveText' } } })));
    const cloud = client();
    const result = await cloud.jobs.submit(workflow, { validate: false, partnerApiKey: true, extraData: { extra: 1 } });
    expect(result).toEqual({ promptId: 'p1', number: 3, nodeErrors: { '9': { class_type: 'SaveText', errors: [{ type: 'x', message: 'dropped', details: undefined, extra_info: undefined }], dependent_outputs: undefined } } });
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ prompt: workflow, client_id: cloud.clientId, prompt_id: expect.stringMatching(/^[0-9a-f-]{36}$/), extra_data: { extra: 1, api_key_platform_org: KEY } });
  });

  it('throws WorkflowValidationError for a 400 with node_errors', async () => {
    server.use(
      http.post(`${BASE}/api/prompt`, () =>
        HttpResponse.json(
          { error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: '', extra_info: {} }, node_errors: { '1': { errors: [{ type: 'value_bigger_than_max', message: 'seed too big' }], class_type: 'KSampler', dependent_outputs: ['9'] } } },
          { status: 400 },
        ),
      ),
    );
    const error = await client().jobs.submit(workflow, { validate: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowValidationError);
    expect(error).toMatchObject({ status: 400, type: 'prompt_outputs_failed_validation', nodeErrors: { '1': { class_type: 'KSampler', errors: [{ type: 'value_bigger_than_max', message: 'seed too big' }] } } });
    expect((error as Error).message).toContain('node 1 (KSampler): seed too big');
  });

  it('throws WorkflowError for a 200 carrying error', async () => {
    server.use(http.post(`${BASE}/api/prompt`, () => HttpResponse.json({ error: 'no_prompt' })));
    const error = await client().jobs.submit(workflow, { validate: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowError);
    expect(error).toMatchObject({ message: 'Workflow rejected: no_prompt' });
  });

  it.each([
    [402, InsufficientCreditsError],
    [429, SubscriptionInactiveError],
    [503, InternalServerError],
  ])('maps %i to its class and never retries the POST', async (status, ErrorClass) => {
    server.use(http.post(`${BASE}/api/prompt`, () => HttpResponse.json({ message: 'no' }, { status, headers: { 'retry-after': '0' } })));
    await expect(client().jobs.submit(workflow, { validate: false })).rejects.toBeInstanceOf(ErrorClass);
    expect(seen).toHaveLength(1);
  });
});

describe('cloud.jobs.getStatus()', () => {
  it.each([
    ['pending', 'pending', false],
    ['in_progress', 'in_progress', false],
    ['completed', 'completed', true],
    ['failed', 'failed', true],
    ['cancelled', 'cancelled', true],
    ['success', 'completed', true],
    ['error', 'failed', true],
    ['non_retryable_error', 'failed', true],
    ['lost', 'failed', true],
    ['submitted', 'pending', false],
    ['queued_limited', 'pending', false],
    ['queued_waiting', 'pending', false],
    ['waiting_to_dispatch', 'pending', false],
    ['allocated', 'pending', false],
    ['preparing', 'pending', false],
    ['pending_execution', 'pending', false],
    ['executing', 'in_progress', false],
    ['executed', 'in_progress', false],
    ['erroring', 'failed', false],
    ['cancel_requested', 'cancelled', false],
    ['cancel_pending', 'cancelled', false],
    ['cancelling_preparing', 'cancelled', false],
    ['something_new', 'in_progress', false],
  ])('maps %s to %s (terminal: %s) and keeps the raw value', async (raw, status, terminal) => {
    server.use(http.get(`${BASE}/api/job/:id/status`, () => HttpResponse.json({ status: raw, id: 'p 1', error_message: null })));
    expect(await client().jobs.getStatus('p 1')).toEqual({ promptId: 'p 1', status, terminal, raw, errorMessage: undefined });
    expect(seen[0]?.url.pathname).toBe('/api/job/p%201/status');
  });

  it('does not retry the cloud 429 (subscription inactive) on a GET', async () => {
    server.use(http.get(`${BASE}/api/job/:id/status`, () => HttpResponse.json({ message: 'inactive' }, { status: 429, headers: { 'retry-after': '0' } })));
    await expect(client().jobs.getStatus('p')).rejects.toBeInstanceOf(SubscriptionInactiveError);
    expect(seen).toHaveLength(1);
  });

  it('reads /history on a local runtime whose status route answers 404', async () => {
    server.use(
      http.get(`${BASE}/api/job/:id/status`, () => HttpResponse.json({ message: 'nope' }, { status: 404 })),
      http.get(`${BASE}/history/:id`, ({ params }) =>
        HttpResponse.json(params.id === 'done' ? { done: { outputs: {}, status: { status_str: 'error', completed: false, messages: [['execution_error', { exception_message: 'OOM' }]] } } } : {}),
      ),
    );
    const cloud = client();
    expect(await cloud.jobs.getStatus('done')).toMatchObject({ status: 'failed', terminal: true, raw: 'error', errorMessage: 'OOM' });
    expect(await cloud.jobs.getStatus('running')).toMatchObject({ status: 'pending', terminal: false, raw: 'history:absent' });
    // Detected as local: the status route is not asked again.
    expect(seen.map((r) => r.url.pathname)).toEqual(['/api/job/done/status', '/history/done', '/history/running']);
  });
});

describe('cloud.files.get()', () => {
  it('follows the 302 to another origin without the API key', async () => {
    server.use(
      http.get(`${BASE}/api/view`, () => new HttpResponse(null, { status: 302, headers: { location: 'https://files.test/signed/out.png?sig=abc' } })),
      http.get('https://files.test/signed/out.png', () => HttpResponse.arrayBuffer(new Uint8Array([1, 2, 3]).buffer, { headers: { 'content-type': 'image/png' } })),
    );
    const bytes = await client().files.get({ filename: 'out.png', subfolder: '', type: 'output' });
    expect([...bytes]).toEqual([1, 2, 3]);
    expect(seen.map((r) => [r.url.host, r.headers.get('x-api-key')])).toEqual([
      ['cloud.test', KEY],
      ['files.test', null],
    ]);
    expect(Object.fromEntries(seen[0]?.url.searchParams ?? [])).toEqual({ filename: 'out.png', subfolder: '', type: 'output' });
  });
});

describe('validateWorkflow()', () => {
  it('returns every issue, typed', async () => {
    const issues = validateWorkflow(
      {
        '1': { class_type: 'KSampler', inputs: { model: ['7', 0], seed: 101, cfg: 'high', sampler_name: 'plms', scheduler: 'karras', denoise: 2 } },
        '2': { class_type: 'Nope', inputs: {} },
        '3': { class_type: 'SaveText', inputs: { flag: 1 } },
        '4': { class_type: 'CheckpointLoader', inputs: { ckpt_name: 'a.safetensors' } },
      },
      OBJECT_INFO as unknown as ObjectInfo,
    );
    expect(issues.map((i) => [i.nodeId, i.input, i.code])).toEqual([
      ['1', 'model', 'missing_link_target'],
      ['1', 'seed', 'out_of_range'],
      ['1', 'cfg', 'wrong_type'],
      ['1', 'sampler_name', 'not_in_options'],
      ['1', 'denoise', 'out_of_range'],
      ['2', undefined, 'unknown_class_type'],
      ['3', 'text', 'missing_required_input'],
      ['3', 'flag', 'wrong_type'],
    ]);
    expect(seen).toHaveLength(0);
  });
});

describe('validateWorkflow() on hostile input', () => {
  it('reports node types and inputs named like Object methods as unknown, without throwing', () => {
    const issues = validateWorkflow(
      { '1': { class_type: 'constructor', inputs: {} }, '2': { class_type: 'SaveText', inputs: { text: 'x', flag: true, toString: 1 } }, '3': { class_type: 'SaveText', inputs: { text: ['hasOwnProperty', 0], flag: true } } },
      OBJECT_INFO as unknown as ObjectInfo,
    );
    expect(issues.map((i) => [i.nodeId, i.input, i.code])).toEqual([
      ['1', undefined, 'unknown_class_type'],
      ['3', 'text', 'missing_link_target'],
    ]);
  });
});

describe('cloud.runWorkflow()', () => {
  const socket = ws.link('wss://cloud.test/ws');

  it('opens the socket before submitting, uploads in parallel, and leaves the caller workflow untouched', async () => {
    const order: string[] = [];
    let submitted: unknown;
    server.use(
      socket.addEventListener('connection', ({ client: peer }) => {
        order.push(`socket ${peer.url.searchParams.get('token') === KEY ? 'with token' : 'without token'}`);
        peer.addEventListener('message', (event) => {
          order.push(`client sent ${JSON.parse(String(event.data)).type}`);
        });
      }),
      http.post(`${BASE}/api/upload/image`, async ({ request }) => {
        const file = (await request.formData()).get('image') as File;
        order.push(`upload ${file.name}`);
        return HttpResponse.json({ name: `stored-${file.name}`, subfolder: '' });
      }),
      http.post(`${BASE}/api/prompt`, async ({ request }) => {
        submitted = await request.json();
        order.push('submit');
        // The run ends before this response: the messages must be held, not lost.
        for (const peer of socket.clients) {
          peer.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: 'p9' } }));
          peer.send(JSON.stringify({ type: 'executed', data: { prompt_id: 'p9', node: '2', output: { text: ['ok'] } } }));
          peer.send(JSON.stringify({ type: 'execution_success', data: { prompt_id: 'p9' } }));
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
        return HttpResponse.json({ prompt_id: 'p9', number: 1, node_errors: {} });
      }),
    );
    const workflow = {
      '1': { class_type: 'LoadImage', inputs: { image: 'placeholder' } },
      '3': { class_type: 'LoadImage', inputs: { image: 'placeholder' } },
      '2': { class_type: 'SaveText', inputs: { text: 'x', flag: true } },
    };
    const snapshot = structuredClone(workflow);
    const cloud = client();
    const result = await cloud.runWorkflow(workflow, { validate: false, uploads: { '1.image': new File([new Uint8Array([1])], 'a.png'), '3.image': { file: new Uint8Array([2]), filename: 'b.png' } } });
    expect(result).toMatchObject({ promptId: 'p9', status: 'completed', outputs: { '2': { text: ['ok'] } }, outputsComplete: true, via: 'socket' });
    expect(workflow).toEqual(snapshot);
    expect((submitted as { prompt: Record<string, { inputs: { image?: string } }> }).prompt['1']?.inputs.image).toBe('stored-a.png');
    expect((submitted as { prompt: Record<string, { inputs: { image?: string } }> }).prompt['3']?.inputs.image).toBe('stored-b.png');
    expect(order.indexOf('socket with token')).toBeLessThan(order.indexOf('submit'));
    expect(order).toContain('client sent feature_flags');
    expect(order.filter((o) => o.startsWith('upload')).sort()).toEqual(['upload a.png', 'upload b.png']);
    await cloud.close();
  });

  it('throws InvalidWorkflowError with validate: true, before any upload or submission', async () => {
    server.use(
      socket.addEventListener('connection', () => undefined),
      http.get(`${BASE}/api/object_info`, () => HttpResponse.json(OBJECT_INFO)),
    );
    const cloud = client();
    const error = await cloud.runWorkflow({ '1': { class_type: 'KSampler', inputs: { seed: -1 } } }, { validate: true, uploads: { '1.model': new Uint8Array([1]) } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidWorkflowError);
    expect((error as InvalidWorkflowError).workflowIssues.map((i) => `${i.input}:${i.code}`)).toEqual(['cfg:missing_required_input', 'sampler_name:missing_required_input', 'scheduler:missing_required_input', 'seed:out_of_range']);
    expect(seen.map((r) => r.url.pathname)).toEqual(['/api/object_info']);
    await cloud.close();
  });

  it('rejects upload addresses that name no node before sending anything', async () => {
    const cloud = client();
    for (const address of ['image', '7.image']) {
      const error = await cloud.runWorkflow({ '1': { class_type: 'X', inputs: {} } }, { uploads: { [address]: new Uint8Array([1]) } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkflowAddressError);
      expect((error as WorkflowAddressError).address).toBe(address);
    }
    expect(seen).toHaveLength(0);
    await cloud.close();
  });
});
