import { EventEmitter } from 'eventemitter3';
import { http, HttpResponse, ws } from 'msw';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, BadRequestError, RateLimitError, ValidationError } from '../../src/core/index.js';
import { CloudClient, InsufficientCreditsError, SubscriptionInactiveError, WorkflowValidationError, type Workflow } from '../../src/index.js';
import { mapJobStatus } from '../../src/cloud/shared/status.js';
import { useMsw } from '../helpers/msw.js';

const BASE = 'https://cloud.test';
const { server, seen } = useMsw();
const link = ws.link('wss://cloud.test/ws');
const make = () => new CloudClient({ baseUrl: BASE, apiKey: 'sk-errors', retry: false, watcher: { socket: { idleCloseMs: 5 } } });
const WORKFLOW: Workflow = { '1': { class_type: 'SaveText', inputs: { text: 'hi' } } };
const send = (peer: { send(data: string): void }, type: string, data: Record<string, unknown>) => peer.send(JSON.stringify({ type, data }));

describe("the cloud's error meanings (the mapError hook)", () => {
  it('gives 402 and 429 their cloud classes on any route of the cloud', async () => {
    server.use(http.get(`${BASE}/api/object_info`, () => HttpResponse.json({ message: 'no credits' }, { status: 402 })));
    await expect(make().nodes.list()).rejects.toBeInstanceOf(InsufficientCreditsError);
    server.use(http.get(`${BASE}/api/job/p/status`, () => HttpResponse.json({ message: 'inactive' }, { status: 429 })));
    await expect(make().jobs.getStatus('p')).rejects.toBeInstanceOf(SubscriptionInactiveError);
  });

  it("keeps another origin's 429 (a signed file URL) a plain RateLimitError", async () => {
    server.use(
      http.get(`${BASE}/api/view`, () => new HttpResponse(null, { status: 302, headers: { location: 'https://files.test/out.png?sig=1' } })),
      http.get('https://files.test/out.png', () => HttpResponse.json({ message: 'slow down' }, { status: 429 })),
    );
    const error = await make().files.get({ filename: 'out.png' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).not.toBeInstanceOf(SubscriptionInactiveError);
  });

  it('reads a 400 as a rejected workflow only on the submission route', async () => {
    server.use(http.post(`${BASE}/api/upload/image`, () => HttpResponse.json({ error: { type: 'invalid_image', message: 'not an image' } }, { status: 400 })));
    const error = await make().files.upload(new Uint8Array([1])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).name).toBe('BadRequestError');
  });

  it('refuses partnerApiKey: true on a client without a key, sending nothing', async () => {
    const local = new CloudClient({ baseUrl: BASE, runtime: 'local' });
    const error = await local.jobs.submit(WORKFLOW, { validate: false, partnerApiKey: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]?.path).toBe('options.partnerApiKey');
    expect(seen).toHaveLength(0);
  });

  it('maps a status named like an Object method as in flight', () => {
    expect(mapJobStatus('constructor')).toEqual({ status: 'in_progress', terminal: false });
    expect(mapJobStatus('__proto__', { __proto__: { status: 'completed', terminal: true } } as never)).toEqual({ status: 'in_progress', terminal: false });
  });
});

describe('a wait that loses track of a paid job', () => {
  it('names each job in its own error when the status route refuses the key', async () => {
    server.use(
      link.addEventListener('connection', () => undefined),
      http.get(`${BASE}/api/job/:id/status`, () => HttpResponse.json({ message: 'bad key' }, { status: 401 })),
    );
    const cloud = make();
    const errors = await Promise.all(['a', 'b', 'c'].map((id) => cloud.jobs.watch(id).result().catch((e: unknown) => e)));
    for (const [i, error] of errors.entries()) {
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({ submitted: { kind: 'job', promptId: ['a', 'b', 'c'][i] } });
    }
    await cloud.close();
  });
});


/** The socket starts job `p` and says it succeeded; its status route says it is executing. */
function serveJobThatSucceeds(): void {
  server.use(
    link.addEventListener('connection', ({ client }) => {
      send(client, 'execution_start', { prompt_id: 'p' });
      send(client, 'execution_success', { prompt_id: 'p' });
    }),
  );
  server.use(http.get(`${BASE}/api/job/p/status`, () => HttpResponse.json({ status: 'executing' })));
}
describe('user callbacks', () => {
  it('drops what a listener, onEvent, onProgress or onSubmitted throws or rejects with, and calls the others', async () => {
    server.use(
      link.addEventListener('connection', () => undefined),
      http.post(`${BASE}/api/prompt`, () => {
        queueMicrotask(() => {
          for (const peer of link.clients) {
            send(peer, 'execution_start', { prompt_id: 'p1' });
            send(peer, 'progress', { prompt_id: 'p1', value: 1, max: 2 });
            send(peer, 'execution_success', { prompt_id: 'p1' });
          }
        });
        return HttpResponse.json({ prompt_id: 'p1', number: 1, node_errors: {} });
      }),
    );
    const cloud = make();
    const seenBy: string[] = [];
    const result = await cloud.runWorkflow(WORKFLOW, {
      validate: false,
      onSubmitted: async () => {
        seenBy.push('onSubmitted');
        throw new Error('async observer failed');
      },
      onProgress: () => {
        seenBy.push('onProgress');
        throw new Error('progress bar failed');
      },
      onEvent: (event) => {
        seenBy.push(`onEvent ${event.type}`);
        throw new Error('logger failed');
      },
    });
    expect(result.status).toBe('completed');
    expect(seenBy).toEqual(['onSubmitted', 'onEvent execution_start', 'onProgress', 'onEvent progress', 'onEvent job_progress', 'onEvent execution_success', 'onEvent job_progress']);
    await cloud.close();
  });

  it('calls every on() listener even when one throws', async () => {
    serveJobThatSucceeds();
    const cloud = make();
    const watcher = cloud.jobs.watch('p');
    const calls: string[] = [];
    watcher.on('execution_success', () => {
      calls.push('first');
      throw new Error('listener failed');
    });
    watcher.on('execution_success', () => calls.push('second'));
    watcher.once('result', () => calls.push('result'));
    await watcher.result();
    expect(calls).toEqual(['first', 'second', 'result']);
    expect(watcher.listenerCount('result')).toBe(0);
    expect(() => watcher.on('progress', 5 as never)).toThrow(ValidationError);
    expect(() => watcher.onEvent('log' as never)).toThrow(ValidationError);
    await cloud.close();
  });

  it('calls a listener with the watcher as this, or with the context given, as eventemitter3 does', async () => {
    serveJobThatSucceeds();
    const cloud = make();
    const watcher = cloud.jobs.watch('p');
    const context = { name: 'context' };
    const seenAs: unknown[] = [];
    watcher.on('execution_success', function (this: unknown) {
      seenAs.push(this);
    });
    watcher.on('execution_success', function (this: unknown) {
      seenAs.push(this);
    }, context);
    await watcher.result();
    expect(seenAs).toEqual([watcher, context]);
    expect(seenAs[0]).toBe(watcher);
    await cloud.close();
  });

  it('is an eventemitter3 EventEmitter whose every way to add a listener is safe', async () => {
    serveJobThatSucceeds();
    const cloud = make();
    const watcher = cloud.jobs.watch('p');
    expect(watcher).toBeInstanceOf(EventEmitter);
    const calls: string[] = [];
    const thrower = () => {
      calls.push('thrower');
      throw new Error('listener failed');
    };
    const removed = () => calls.push('removed');
    watcher.addListener('execution_start', thrower);
    watcher.addListener('execution_start', removed);
    watcher.once('execution_start', async () => {
      calls.push('async');
      throw new Error('async listener failed');
    });
    watcher.on('execution_start', () => calls.push('last'));
    watcher.removeListener('execution_start', removed);
    expect(watcher.listeners('execution_start')).toContain(thrower);
    expect(watcher.listeners('execution_start')).not.toContain(removed);
    expect(watcher.eventNames()).toEqual(['execution_start']);
    const result = await watcher.result();
    expect(result.status).toBe('completed');
    expect(calls).toEqual(['thrower', 'async', 'last']);
    watcher.off('execution_start', thrower);
    expect(watcher.listeners('execution_start')).toHaveLength(1);
    await cloud.close();
  });
});

describe('WorkflowValidationError messages', () => {
  const reject = (body: Parameters<typeof HttpResponse.json>[0]) => server.use(http.post(`${BASE}/api/prompt`, () => HttpResponse.json(body, { status: 400 })));
  const titled: Workflow = { '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sdxl.safetensors' }, _meta: { title: 'Base model' } }, '9': { class_type: 'SaveImage', inputs: { images: ['4', 0] } } };

  it("keeps the server's details (which input, which value, the allowed list) and the node's title", async () => {
    reject({
      error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: '', extra_info: {} },
      node_errors: {
        '4': {
          class_type: 'CheckpointLoaderSimple',
          dependent_outputs: ['9'],
          errors: [{ type: 'value_not_in_list', message: 'Value not in list', details: "ckpt_name: 'sdxl.safetensors' not in ['v1-5.safetensors', 'dream.safetensors']", extra_info: { input_name: 'ckpt_name', input_config: [['v1-5.safetensors', 'dream.safetensors'], {}], received_value: 'sdxl.safetensors' } }],
        },
        '9': { class_type: 'SaveImage', dependent_outputs: ['9'], errors: [{ type: 'required_input_missing', message: 'Required input is missing', details: '', extra_info: { input_name: 'filename_prefix' } }] },
      },
    });
    const error = (await make().jobs.submit(titled, { validate: false }).catch((e: unknown) => e)) as WorkflowValidationError;
    expect(error).toBeInstanceOf(WorkflowValidationError);
    expect(error.message).toContain(`  - node 4 (CheckpointLoaderSimple "Base model"): Value not in list: ckpt_name: 'sdxl.safetensors' not in ['v1-5.safetensors', 'dream.safetensors']`);
    expect(error.message).toContain('  - node 9 (SaveImage): Required input is missing: input "filename_prefix"');
  });

  it('lists the allowed values from the input definition when the details do not, and says the received value', async () => {
    reject({ error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation' }, node_errors: { '4': { class_type: 'CheckpointLoaderSimple', errors: [{ type: 'value_not_in_list', message: 'Value not in list', extra_info: { input_name: 'ckpt_name', input_config: ['COMBO', { options: ['a.safetensors', 'b.safetensors'] }], received_value: 'c' } }] } } });
    const error = (await make().jobs.submit(titled, { validate: false }).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('node 4 (CheckpointLoaderSimple "Base model"): Value not in list: input "ckpt_name" received "c" (allowed: "a.safetensors", "b.safetensors")');
  });

  it('keeps the details of a rejection that names no node', async () => {
    reject({ error: { type: 'missing_node_type', message: 'Cannot execute because node FancyNode does not exist.', details: "Node ID '#7'", extra_info: { node_id: '7', class_type: 'FancyNode' } }, node_errors: {} });
    const error = (await make().jobs.submit(WORKFLOW, { validate: false }).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/Cannot execute because node FancyNode does not exist\..*\n {2}- Node ID '#7'$/s);
  });
});
