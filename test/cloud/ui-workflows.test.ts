import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import { CloudClient, InvalidWorkflowError, validateWorkflow, WorkflowAddressError, WorkflowConversionError } from '../../src/index.js';
import { type UiWorkflow } from '../../src/cloud/workflow/types.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { png, scaleWorkflow } from './helpers.js';

// Workflows as people save them from the web UI, run as they are (examples/workflows/resize.json:
// "Photo" LoadImage -> "Resize" ImageScale -> "Save" SaveImage, a note and a muted preview).
const RESIZE = JSON.parse(readFileSync(new URL('../../examples/workflows/resize.json', import.meta.url), 'utf8')) as UiWorkflow;
const ui = (): UiWorkflow => structuredClone(RESIZE);

let sim: Simulator | undefined;
let cloud: CloudClient | undefined;
afterEach(async () => {
  await cloud?.close();
  await sim?.close();
  cloud = undefined;
  sim = undefined;
});

async function setup(): Promise<{ sim: Simulator; cloud: CloudClient }> {
  sim = await startSimulator({ stepDelayMs: 0, progressSteps: 1 });
  cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, watcher: { socket: { idleCloseMs: 5 } } });
  return { sim, cloud };
}

const count = (s: Simulator, method: string, path: string): number => s.state.requests.filter((r) => r.method === method && r.path === path).length;

describe('cloud.runWorkflow() with a UI-format workflow', () => {
  it('converts it, sets inputs and uploads by title, and runs it; the definitions are fetched once per client', async () => {
    const { sim, cloud } = await setup();
    const first = await cloud.runWorkflow(ui(), { uploads: { 'Photo.image': { file: png(), filename: 'boat.png' } }, inputs: { 'Resize.width': 40, 'Save.filename_prefix': 'boat' } });
    expect(first.status).toBe('completed');
    expect(first.outputs['12']).toEqual({ images: [{ filename: 'boat_00001_.png', subfolder: '', type: 'output' }] });
    const job = await cloud.jobs.get(first.promptId);
    expect(job?.workflow?.['11']?.inputs).toMatchObject({ width: 40, image: ['10', 0] });
    expect(job?.workflow?.['10']?.inputs.image).toBe('boat.png');
    // The muted preview and the note are not sent.
    expect(Object.keys(job?.workflow ?? {}).sort()).toEqual(['10', '11', '12']);
    const second = await cloud.runWorkflow(ui(), { uploads: { 'LoadImage.image': png(8, 8) } });
    expect(second.status).toBe('completed');
    expect(count(sim, 'GET', '/api/object_info')).toBe(1);
  });

  it('refuses a misspelled upload address before anything is uploaded, listing the node inputs', async () => {
    const { sim, cloud } = await setup();
    const error = await cloud.runWorkflow(ui(), { uploads: { 'Photo.img': png() } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowAddressError);
    expect((error as WorkflowAddressError).candidates).toEqual(['image']);
    expect((error as Error).message).toContain('node 10 (LoadImage) has no input "img"');
    expect(count(sim, 'POST', '/api/upload/image') + count(sim, 'POST', '/api/prompt')).toBe(0);
  });

  it('refuses a misspelled input of an API-format workflow ("1.img") before uploading or submitting', async () => {
    const { sim, cloud } = await setup();
    const error = await cloud.runWorkflow(scaleWorkflow('x'), { uploads: { '1.img': png() } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowAddressError);
    expect((error as Error).message).toContain('node 1 (LoadImage) has no input "img"');
    expect(count(sim, 'POST', '/api/upload/image') + count(sim, 'POST', '/api/prompt')).toBe(0);
  });

  it('refuses an address naming no node, listing the nodes by id, class type and title', async () => {
    const { cloud } = await setup();
    const error = await cloud.runWorkflow(ui(), { inputs: { 'Resise.width': 40 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowAddressError);
    expect((error as Error).message).toContain('11 (ImageScale "Resize")');
  });

  it('names the node a conversion cannot place, fetching the definitions once more first, and sends nothing', async () => {
    const { sim, cloud } = await setup();
    await cloud.nodes.list();
    const broken = ui();
    broken.nodes[1] = { ...broken.nodes[1]!, type: 'FancyScaler' };
    const error = await cloud.runWorkflow(broken, { uploads: { 'Photo.image': png() } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowConversionError);
    expect(error).toMatchObject({ code: 'unknown_node_type', nodeId: '11', nodeType: 'FancyScaler', nodeTitle: 'Resize' });
    expect(count(sim, 'GET', '/api/object_info')).toBe(2);
    expect(count(sim, 'POST', '/api/upload/image') + count(sim, 'POST', '/api/prompt')).toBe(0);
  });

  it('refuses a workflow of which nothing runs (every node muted) before sending anything', async () => {
    const { sim, cloud } = await setup();
    const muted = ui();
    for (const node of muted.nodes) node.mode = 2;
    const error = await cloud.runWorkflow(muted).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('at least one node that runs');
    expect(count(sim, 'POST', '/api/prompt')).toBe(0);
  });

  it('checks the converted workflow against the definitions (validate) before uploading', async () => {
    const { sim, cloud } = await setup();
    const error = await cloud.runWorkflow(ui(), { uploads: { 'Photo.image': png() }, inputs: { 'Resize.width': -5 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidWorkflowError);
    expect((error as InvalidWorkflowError).workflowIssues).toEqual([expect.objectContaining({ nodeId: '11', input: 'width', code: 'out_of_range' })]);
    expect(count(sim, 'POST', '/api/upload/image')).toBe(0);
  });
});

describe('cloud.jobs.submit() with a UI-format workflow', () => {
  it('converts it before sending: the server only ever sees the API format', async () => {
    const { sim, cloud } = await setup();
    await cloud.files.upload(png(), { filename: 'example.png' });
    const { promptId } = await cloud.jobs.submit(ui());
    await sim.state.waitForIdle();
    expect((await cloud.jobs.get(promptId))?.status).toBe('completed');
  });

  it('is still refused by the server when sent without the SDK (as a real server does)', async () => {
    const { sim } = await setup();
    const res = await fetch(`${sim.cloudUrl}/api/prompt`, { method: 'POST', headers: { 'X-API-Key': sim.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: ui() }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_prompt', message: expect.stringContaining('class_type') } });
  });
});

describe('validateWorkflow() with a UI-format workflow', () => {
  it('reports one issue saying how to convert it, not one per key, and sends nothing', async () => {
    const { sim, cloud } = await setup();
    const issues = await cloud.validateWorkflow(ui());
    expect(issues).toEqual([expect.objectContaining({ nodeId: '(workflow)', code: 'ui_format', message: expect.stringContaining('toApiWorkflow') })]);
    expect(validateWorkflow(ui() as never, {})).toHaveLength(1);
    expect(sim.state.requests).toHaveLength(0);
  });

  it('knows a UI-format workflow made in another realm (a vm context, an iframe) as the converter does', () => {
    const foreign = runInNewContext(`(${JSON.stringify(ui())})`) as UiWorkflow;
    expect(validateWorkflow(foreign as never, {})).toEqual([expect.objectContaining({ nodeId: '(workflow)', code: 'ui_format' })]);
  });
});
