import { http, HttpResponse, ws } from 'msw';
import { describe, expect, it } from 'vitest';
import { CloudClient, InvalidWorkflowError, type Workflow } from '../../src/index.js';
import { useMsw } from '../helpers/msw.js';

const BASE = 'https://cloud.test';
const { server, seen } = useMsw();
const link = ws.link('wss://cloud.test/ws');
const cloud = () => new CloudClient({ baseUrl: BASE, apiKey: 'sk-nodes', retry: false });

const LOAD = { input: { required: { image: [['a.png'], { image_upload: true }] } }, output: ['IMAGE'] };
const SAVE = { input: { required: { images: ['IMAGE'], filename_prefix: ['STRING'] } } };
const UPSCALE = { input: { required: { image: ['IMAGE'], scale: [['2x', '4x']] } }, output: ['IMAGE'] };
const WORKFLOW: Workflow = {
  '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
};
const objectInfoCalls = () => seen.filter((r) => r.url.pathname === '/api/object_info').length;

/** Serves the definitions; `next()` changes what the following requests get. */
function serveDefinitions(first: Record<string, unknown>) {
  let current = first;
  server.use(http.get(`${BASE}/api/object_info`, () => HttpResponse.json(current)));
  return { next: (definitions: Record<string, unknown>) => (current = definitions) };
}

describe('node definitions cache', () => {
  it('fetches the definitions on the first check and reuses them for the next ones', async () => {
    serveDefinitions({ LoadImage: LOAD, SaveImage: SAVE });
    const client = cloud();
    expect(await client.validateWorkflow(WORKFLOW)).toEqual([]);
    expect(await client.validateWorkflow(WORKFLOW)).toEqual([]);
    expect(await client.validateWorkflow({ '1': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 7 } } })).toMatchObject([{ code: 'wrong_type' }]);
    expect(objectInfoCalls()).toBe(1);
  });

  it('shares one request between concurrent first checks', async () => {
    serveDefinitions({ LoadImage: LOAD, SaveImage: SAVE });
    const client = cloud();
    const results = await Promise.all(Array.from({ length: 20 }, () => client.validateWorkflow(WORKFLOW)));
    expect(results.every((issues) => issues.length === 0)).toBe(true);
    expect(objectInfoCalls()).toBe(1);
  });

  it("lets one caller's abort leave the shared request to the others", async () => {
    serveDefinitions({ LoadImage: LOAD, SaveImage: SAVE });
    const client = cloud();
    const controller = new AbortController();
    const reason = new Error('changed my mind');
    const aborted = client.validateWorkflow(WORKFLOW, { signal: controller.signal });
    const other = client.validateWorkflow(WORKFLOW);
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    await expect(other).resolves.toEqual([]);
  });

  it('refreshes the copy with nodes.list()', async () => {
    const definitions = serveDefinitions({ LoadImage: LOAD, SaveImage: SAVE });
    const client = cloud();
    await client.validateWorkflow(WORKFLOW);
    definitions.next({ LoadImage: LOAD });
    expect(Object.keys(await client.nodes.list())).toEqual(['LoadImage']);
    // The refreshed copy lacks SaveImage: a stale-looking issue refetches once, then reports it.
    expect(await client.validateWorkflow(WORKFLOW)).toMatchObject([{ nodeId: '2', code: 'unknown_class_type' }]);
    expect(objectInfoCalls()).toBe(3);
  });

  it('fetches again once before reporting a node type the cached copy lacks (a node pack installed since)', async () => {
    const definitions = serveDefinitions({ LoadImage: LOAD, SaveImage: SAVE });
    const client = cloud();
    await client.validateWorkflow(WORKFLOW);
    definitions.next({ LoadImage: LOAD, SaveImage: SAVE, Upscale: UPSCALE });
    const withUpscale: Workflow = { ...WORKFLOW, '3': { class_type: 'Upscale', inputs: { image: ['1', 0], scale: '2x' } } };
    expect(await client.validateWorkflow(withUpscale)).toEqual([]);
    expect(objectInfoCalls()).toBe(2);
    expect(await client.validateWorkflow(withUpscale)).toEqual([]);
    expect(objectInfoCalls()).toBe(2);
  });

  it('fetches again once before reporting a file the cached option list lacks (uploaded since)', async () => {
    const definitions = serveDefinitions({ LoadImage: LOAD, SaveImage: SAVE });
    const client = cloud();
    await client.validateWorkflow(WORKFLOW);
    definitions.next({ LoadImage: { input: { required: { image: [['a.png', 'b.png'], { image_upload: true }] } } }, SaveImage: SAVE });
    const withB: Workflow = { ...WORKFLOW, '1': { class_type: 'LoadImage', inputs: { image: 'b.png' } } };
    expect(await client.validateWorkflow(withB)).toEqual([]);
    const withC: Workflow = { ...WORKFLOW, '1': { class_type: 'LoadImage', inputs: { image: 'c.png' } } };
    expect(await client.validateWorkflow(withC)).toMatchObject([{ nodeId: '1', input: 'image', code: 'not_in_options' }]);
    expect(objectInfoCalls()).toBe(3);
  });
});

describe('cloud.nodes.get()', () => {
  it('returns one definition, or undefined for a node type the server lacks', async () => {
    server.use(http.get(`${BASE}/api/object_info/:name`, ({ params }) => HttpResponse.json(params.name === 'LoadImage' ? { LoadImage: LOAD } : {})));
    const client = cloud();
    expect(await client.nodes.get('LoadImage')).toMatchObject({ output: ['IMAGE'] });
    expect(await client.nodes.get('constructor')).toBeUndefined();
    expect(seen.map((r) => r.url.pathname)).toEqual(['/api/object_info/LoadImage', '/api/object_info/constructor']);
  });
});

describe('validate (on by default)', () => {
  it('checks a submission and sends nothing when the check fails', async () => {
    serveDefinitions({ LoadImage: LOAD, SaveImage: SAVE });
    const error = await cloud().jobs.submit({ '1': { class_type: 'LoadImage', inputs: { image: 'z.png' } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidWorkflowError);
    expect((error as InvalidWorkflowError).message).toContain('cloud.jobs.submit()');
    // A fresh copy is not fetched again: only a cached one can be stale.
    expect(seen.map((r) => r.url.pathname)).toEqual(['/api/object_info']);
  });

  it('checks a run before any upload', async () => {
    serveDefinitions({ LoadImage: LOAD, SaveImage: SAVE });
    server.use(link.addEventListener('connection', () => undefined), http.post(`${BASE}/api/upload/image`, () => HttpResponse.json({ name: 'in.png', subfolder: '' })));
    const client = cloud();
    const bad: Workflow = { ...WORKFLOW, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } };
    const error = await client.runWorkflow(bad, { uploads: { '1.image': new Uint8Array([1]) } }).catch((e: unknown) => e);
    expect((error as InvalidWorkflowError).workflowIssues).toMatchObject([{ nodeId: '2', input: 'filename_prefix', code: 'missing_required_input' }]);
    expect(seen.map((r) => r.url.pathname)).toEqual(['/api/object_info']);
    await client.close();
  });
});
