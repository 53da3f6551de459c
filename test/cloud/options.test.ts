import { ws } from 'msw';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import { CloudClient, type Workflow } from '../../src/index.js';
import { type CloudClientOptions } from '../../src/cloud/client.js';
import { useMsw } from '../helpers/msw.js';

// Every public call checks its options (and ids) before any request or socket: a bad value is a
// ValidationError naming the option, and nothing reaches the server.
const BASE = 'https://cloud.test';
const { server, seen } = useMsw();
const link = ws.link('wss://cloud.test/ws');
const WORKFLOW: Workflow = { '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } } };
const REF = { filename: 'out.png', subfolder: '', type: 'output' };

async function refusal(call: () => unknown): Promise<ValidationError> {
  let sockets = 0;
  server.use(link.addEventListener('connection', () => sockets++));
  let error: unknown;
  try {
    await call();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ValidationError);
  expect(seen).toHaveLength(0);
  expect(sockets).toBe(0);
  return error as ValidationError;
}

const cloud = () => new CloudClient({ baseUrl: BASE, apiKey: 'sk-options' });
const paths = (error: ValidationError) => error.issues.map((issue) => issue.path);

describe('cloud.runWorkflow() options', () => {
  it.each([
    ['timeout: -1', { timeout: -1 }, 'options.timeout'],
    ['timeout: NaN', { timeout: Number.NaN }, 'options.timeout'],
    ['totalTimeout: 0', { totalTimeout: 0 }, 'options.totalTimeout'],
    ['waitTimeout: NaN', { waitTimeout: Number.NaN }, 'options.waitTimeout'],
    ['waitTimeout: 0', { waitTimeout: 0 }, 'options.waitTimeout'],
    ['waitTimeout: -5', { waitTimeout: -5 }, 'options.waitTimeout'],
    ['a poll delay of 0', { poll: { minDelayMs: 0 } }, 'options.poll.minDelayMs'],
    ['a poll delay below the floor', { poll: { maxDelayMs: 5 } }, 'options.poll.maxDelayMs'],
    ['growFactor: 0.5', { poll: { growFactor: 0.5 } }, 'options.poll.growFactor'],
    ['onProgress: 5', { onProgress: 5 }, 'options.onProgress'],
    ['onEvent: "log"', { onEvent: 'log' }, 'options.onEvent'],
    ['onSubmitted: {}', { onSubmitted: {} }, 'options.onSubmitted'],
    ['validate: "yes"', { validate: 'yes' }, 'options.validate'],
    ['download: 1', { download: 1 }, 'options.download'],
    ['signal: "stop"', { signal: 'stop' }, 'options.signal'],
    ['retry: { limit: -1 }', { retry: { limit: -1 } }, 'options.retry.limit'],
    ['headers with a line break', { headers: { 'x-a': 'b\r\nc' } }, 'options.headers.x-a'],
    ['partnerApiKey: ""', { partnerApiKey: '' }, 'options.partnerApiKey'],
    ['extraData: []', { extraData: [] }, 'options.extraData'],
    ['uploads: "a.png"', { uploads: 'a.png' }, 'options.uploads'],
    ['an upload that is not a file', { uploads: { '1.image': 42 } }, 'options.uploads["1.image"]'],
    ['an upload spec with a bad type', { uploads: { '1.image': { file: new Uint8Array([1]), type: 'output' } } }, 'options.uploads["1.image"].type'],
    ['a misspelled option', { timout: 5 }, 'options.timout'],
  ])('refuses %s', async (_name, options, path) => {
    const error = await refusal(() => cloud().runWorkflow(WORKFLOW, options as never));
    expect(paths(error)).toContain(path);
  });

  it('refuses null options, and names the closest known option of a misspelled one', async () => {
    expect(paths(await refusal(() => cloud().runWorkflow(WORKFLOW, null as never)))).toEqual(['options']);
    const error = await refusal(() => cloud().runWorkflow(WORKFLOW, { waitTimout: 5 } as never));
    expect(error.issues[0]?.rule).toContain('did you mean "waitTimeout"');
  });

  it('refuses a workflow that is not an API-format workflow', async () => {
    expect(paths(await refusal(() => cloud().runWorkflow([] as never)))).toEqual(['workflow']);
    const broken = await refusal(() => cloud().runWorkflow({ nodes: [], links: {} } as never));
    expect(broken.issues).toHaveLength(1);
    expect(broken.issues[0]?.rule).toContain('saved from the web UI');
    const body = await refusal(() => cloud().runWorkflow({ prompt: { '1': { class_type: 'X', inputs: {} } }, client_id: 'c' } as never));
    expect(body.issues[0]?.rule).toContain('pass the value of "prompt"');
  });

  it('lists every bad option at once', async () => {
    const error = await refusal(() => cloud().runWorkflow(WORKFLOW, { timeout: -1, waitTimeout: Number.NaN, onProgress: 5 as never }));
    expect(paths(error)).toEqual(['options.timeout', 'options.waitTimeout', 'options.onProgress']);
  });
});

describe('every other public call', () => {
  it.each([
    ['jobs.submit() timeout: -1', (c: CloudClient) => c.jobs.submit(WORKFLOW, { timeout: -1 }), 'options.timeout'],
    ['jobs.submit() null options', (c: CloudClient) => c.jobs.submit(WORKFLOW, null as never), 'options'],
    ['jobs.submit() an empty workflow', (c: CloudClient) => c.jobs.submit({}), 'workflow'],
    ['jobs.getStatus() ".."', (c: CloudClient) => c.jobs.getStatus('..'), 'promptId'],
    ['jobs.getStatus() an encoded "."', (c: CloudClient) => c.jobs.getStatus('%2E'), 'promptId'],
    ['jobs.getStatus() ""', (c: CloudClient) => c.jobs.getStatus(''), 'promptId'],
    ['jobs.getStatus() timeout: NaN', (c: CloudClient) => c.jobs.getStatus('p', { timeout: Number.NaN }), 'options.timeout'],
    ['jobs.getOutputs() retry: { budgetMs: -1 }', (c: CloudClient) => c.jobs.getOutputs('p', { retry: { budgetMs: -1 } }), 'options.retry.budgetMs'],
    ['jobs.watch() waitTimeout: NaN', (c: CloudClient) => c.jobs.watch('p', { waitTimeout: Number.NaN }), 'options.waitTimeout'],
    ['jobs.watch() a poll delay of 0', (c: CloudClient) => c.jobs.watch('p', { poll: { minDelayMs: 0 } }), 'options.poll.minDelayMs'],
    ['jobs.watch() timeout (not a watch option)', (c: CloudClient) => c.jobs.watch('p', { timeout: 5 } as never), 'options.timeout'],
    ['jobs.watch() ".."', (c: CloudClient) => c.jobs.watch('..'), 'promptId'],
    ['files.upload() timeout: -1', (c: CloudClient) => c.files.upload(new Uint8Array([1]), { timeout: -1 }), 'options.timeout'],
    ['files.upload() no file', (c: CloudClient) => c.files.upload(undefined as never), 'input'],
    ['files.uploadMask() no originalRef', (c: CloudClient) => c.files.uploadMask(new Uint8Array([1]), undefined as never), 'options.originalRef'],
    ['files.get() an empty filename', (c: CloudClient) => c.files.get({ filename: '' }), 'ref.filename'],
    ['files.get() null options', (c: CloudClient) => c.files.get(REF, null as never), 'options'],
    ['files.getResponse() no ref', (c: CloudClient) => c.files.getResponse(undefined as never), 'ref'],
    ['nodes.list() retry: { limit: 99 }', (c: CloudClient) => c.nodes.list({ retry: { limit: 99 } }), 'options.retry.limit'],
    ['nodes.get() ".."', (c: CloudClient) => c.nodes.get('..'), 'classType'],
    ['validateWorkflow() signal: "x"', (c: CloudClient) => c.validateWorkflow(WORKFLOW, { signal: 'x' as never }), 'options.signal'],
  ])('%s', async (_name, call, path) => {
    const error = await refusal(() => call(cloud()));
    expect(paths(error)).toContain(path);
  });
});

describe('new CloudClient() options', () => {
  const base = { baseUrl: BASE, apiKey: 'sk-options' };
  it.each([
    ['null options', null, 'options'],
    ['no baseUrl', { apiKey: 'k' }, 'options.baseUrl'],
    ['a relative baseUrl', { baseUrl: '/api' }, 'options.baseUrl'],
    ['timeout: -1', { ...base, timeout: -1 }, 'options.timeout'],
    ['an empty apiKey', { ...base, apiKey: '' }, 'options.apiKey'],
    ['an unknown runtime', { ...base, runtime: 'remote' }, 'options.runtime'],
    ['a WebSocket that is not a constructor', { ...base, WebSocket: 'ws' }, 'options.WebSocket'],
    ['an empty clientId', { ...base, clientId: '' }, 'options.clientId'],
    ['watcher.waitTimeout: 0', { ...base, watcher: { waitTimeout: 0 } }, 'options.watcher.waitTimeout'],
    ['a poll delay of 0', { ...base, watcher: { poll: { minDelayMs: 0 } } }, 'options.watcher.poll.minDelayMs'],
    ['a silence below the floor', { ...base, watcher: { poll: { silenceMs: 1 } } }, 'options.watcher.poll.silenceMs'],
    ['poll.concurrency: 0', { ...base, watcher: { poll: { concurrency: 0 } } }, 'options.watcher.poll.concurrency'],
    ['poll.concurrency: 2.5', { ...base, watcher: { poll: { concurrency: 2.5 } } }, 'options.watcher.poll.concurrency'],
    ['poll.notFoundGraceMs: NaN', { ...base, watcher: { poll: { notFoundGraceMs: Number.NaN } } }, 'options.watcher.poll.notFoundGraceMs'],
    ['the 0.1 poll field names', { ...base, watcher: { poll: { minIntervalMs: 200 } } }, 'options.watcher.poll.minIntervalMs'],
    ['a minDelayMs above its maxDelayMs', { ...base, watcher: { poll: { minDelayMs: 5_000, maxDelayMs: 1_000 } } }, 'options.watcher.poll.minDelayMs'],
    ['socket.growFactor: 0.5', { ...base, watcher: { socket: { growFactor: 0.5 } } }, 'options.watcher.socket.growFactor'],
    ['socket.minDelayMs: 0', { ...base, watcher: { socket: { minDelayMs: 0 } } }, 'options.watcher.socket.minDelayMs'],
    ['socket.connectionTimeoutMs: Infinity', { ...base, watcher: { socket: { connectionTimeoutMs: Number.POSITIVE_INFINITY } } }, 'options.watcher.socket.connectionTimeoutMs'],
    ['a close code that is not one', { ...base, watcher: { socket: { authCloseCodes: [99] } } }, 'options.watcher.socket.authCloseCodes[0]'],
    ['hold.maxBytes: -1', { ...base, watcher: { hold: { maxBytes: -1 } } }, 'options.watcher.hold.maxBytes'],
    ['hold.maxPreviewBytes: NaN', { ...base, watcher: { hold: { maxPreviewBytes: Number.NaN } } }, 'options.watcher.hold.maxPreviewBytes'],
    ['the 0.1 watch.timeoutMs', { ...base, watcher: { watch: { timeoutMs: 0 } } }, 'options.watcher.watch'],
    ['a statusMap entry with an unknown status', { ...base, statusMap: { warming_up: { status: 'warming', terminal: false } } }, 'options.statusMap["warming_up"].status'],
    ['an output route without {id}', { ...base, outputRoutes: ['/api/jobs'] }, 'options.outputRoutes[0]'],
  ])('refuses %s', async (_name, options, path) => {
    const error = await refusal(() => new CloudClient(options as CloudClientOptions));
    expect(paths(error)).toContain(path);
    expect(error.message).toContain('new CloudClient()');
  });

  it('never echoes a bad apiKey', async () => {
    const error = await refusal(() => new CloudClient({ baseUrl: BASE, apiKey: 42 as never }));
    expect(error.issues[0]).toMatchObject({ path: 'options.apiKey', received: 'number' });
  });
});
