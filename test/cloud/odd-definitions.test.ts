import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { CloudClient, type Workflow } from '../../src/index.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { useMsw } from '../helpers/msw.js';
import { png, scaleWorkflow } from './helpers.js';

// A real local runtime (ComfyUI 0.3.77) serves definitions the contract does not promise
// (docs/wire-protocol.md): one odd node must never cost the whole catalog.
/** A fetch that answers as the server does, with its node catalog changed by `edit` first. */
function editCatalog(edit: (info: Record<string, unknown>) => unknown): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const response = await fetch(input, init);
    if (!url.endsWith('/api/object_info')) return response;
    const info = (await response.json()) as Record<string, unknown>;
    edit(info);
    return Response.json(info);
  };
}

const TRUNCATE = (maxLength: number): Workflow => ({ '9': { class_type: 'TruncateText', inputs: { text: 'a long text', max_length: maxLength } } });

describe('the node catalog of a real local runtime (simulator)', () => {
  let sim: Simulator | undefined;
  let cloud: CloudClient | undefined;
  afterEach(async () => {
    await cloud?.close();
    await sim?.close();
  });

  it('is read whole, and the odd nodes keep their checks', async () => {
    sim = await startSimulator({ runtime: 'local', stepDelayMs: 0, progressSteps: 1 });
    cloud = new CloudClient({ baseUrl: sim.cloudUrl, watcher: { socket: { idleCloseMs: 5 } } });
    const info = await cloud.nodes.list();
    expect(info.TruncateText).toMatchObject({ display_name: null, output_is_list: [null], input: { hidden: { unique_id: ['UNIQUE_ID'] } } });
    expect(info.TruncateText?.input.optional?.seed?.[1]?.max).toBe(2 ** 64); // 18446744073709551615 on the real server: the same double
    expect(await cloud.validateWorkflow(TRUNCATE(20))).toEqual([]);
    expect(await cloud.validateWorkflow(TRUNCATE(0))).toMatchObject([{ nodeId: '9', input: 'max_length', code: 'out_of_range' }]);
    await cloud.files.upload(png(), { filename: 'cat.png' });
    const result = await cloud.runWorkflow(scaleWorkflow('cat.png'));
    expect(result.status).toBe('completed');
  });

  it('places an upload into a node whose definition has no inputs to read (a property test found "has no input")', async () => {
    sim = await startSimulator({ runtime: 'local', stepDelayMs: 0, progressSteps: 1 });
    // The simulator's catalog, with LoadImage's definition reduced to {}: which inputs it takes is unknown.
    cloud = new CloudClient({ baseUrl: sim.cloudUrl, fetch: editCatalog((info) => (info.LoadImage = {})), watcher: { socket: { idleCloseMs: 5 } } });
    const submitted: unknown[] = [];
    const result = await cloud.runWorkflow(scaleWorkflow('placeholder.png'), { uploads: { '1.image': png() }, onSubmitted: (s) => submitted.push(s.warnings) });
    expect(result.status).toBe('completed');
    expect(submitted).toMatchObject([[{ nodeId: '1', code: 'unchecked_node' }]]);
  });

  it('runs a workflow using a node whose definition cannot be read, and says so', async () => {
    sim = await startSimulator({ runtime: 'local', stepDelayMs: 0, progressSteps: 1 });
    // The simulator's catalog, with TruncateText's inputs in a shape the SDK cannot read.
    cloud = new CloudClient({ baseUrl: sim.cloudUrl, fetch: editCatalog((info) => ((info.TruncateText as { input: { required: Record<string, unknown> } }).input.required.text = 'STRING')), watcher: { socket: { idleCloseMs: 5 } } });
    await cloud.files.upload(png(), { filename: 'cat.png' });
    const submitted: unknown[] = [];
    const result = await cloud.runWorkflow({ ...scaleWorkflow('cat.png'), ...TRUNCATE(0) }, { onSubmitted: (s) => submitted.push(s.warnings) });
    expect(result.status).toBe('completed');
    expect(submitted).toMatchObject([[{ nodeId: '9', code: 'unchecked_node', severity: 'warning', message: expect.stringContaining('input.required.text') }]]);
  });
});

describe('a node definition the SDK cannot read', () => {
  const BASE = 'https://cloud.test';
  const { server, seen } = useMsw();
  const SAVE = { input: { required: { images: ['IMAGE'], filename_prefix: ['STRING'] } }, output_node: true };
  // Its inputs are not `[type, options?]`: the SDK cannot tell what a workflow must set.
  const ODD = { input: { required: { text: 'STRING', max_length: { type: 'INT' } } }, display_name: 42, output_is_list: 'no' };

  it('costs that node its checks, with a warning, never the catalog', async () => {
    server.use(
      http.get(`${BASE}/api/object_info`, () => HttpResponse.json({ SaveImage: SAVE, OddText: ODD, Broken: null })),
      http.post(`${BASE}/api/prompt`, () => HttpResponse.json({ prompt_id: 'p1', number: 0, node_errors: {} })),
    );
    const cloud = new CloudClient({ baseUrl: BASE, apiKey: 'sk-odd', retry: false });
    const info = await cloud.nodes.list();
    expect(Object.keys(info)).toEqual(['SaveImage', 'OddText', 'Broken']);
    const workflow: Workflow = {
      '1': { class_type: 'OddText', inputs: { text: 7 } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 7 } },
    };
    const issues = await cloud.validateWorkflow(workflow);
    expect(issues).toMatchObject([
      { nodeId: '1', code: 'unchecked_node', severity: 'warning', message: expect.stringContaining('OddText') },
      { nodeId: '2', input: 'filename_prefix', code: 'wrong_type' },
    ]);
    expect(issues[0]?.message).toContain('input.required.text');
    // A warning does not stop a submission; the answer carries it.
    const fine: Workflow = { ...workflow, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } };
    const submitted = await cloud.jobs.submit(fine);
    expect(submitted.warnings).toMatchObject([{ nodeId: '1', code: 'unchecked_node' }]);
    expect(seen.filter((r) => r.url.pathname === '/api/prompt')).toHaveLength(1);
    await cloud.close();
  });

});
