import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { generateNodeTypes } from '../../src/codegen/index.js';
import { CloudClient, workflow } from '../../src/index.js';
import { nodeDefinitions } from '../../src/testing/cloud/nodes.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { png } from '../cloud/helpers.js';
import { nodeOutputs, type Nodes } from './fixtures/simulator-nodes.js';

// fixtures/simulator-nodes.ts is what `graphcloud types` writes from the simulator's catalog (no
// file uploaded yet): generated, committed, so that the typed workflow below is type-checked by the
// repository's own `tsc` and run by vitest.
const FIXTURE = new URL('fixtures/simulator-nodes.ts', import.meta.url);
const OPTIONS = { server: 'the simulator (graphcloud/testing)', importFrom: '../../../src/index.js' };

describe('generated node types on the simulator', () => {
  let sim: Simulator | undefined;
  let cloud: CloudClient | undefined;
  afterEach(async () => {
    await cloud?.close();
    await sim?.close();
  });

  it('are what the generator writes from the simulator catalog (regenerate fixtures/simulator-nodes.ts when it changes)', async () => {
    expect(readFileSync(FIXTURE, 'utf8')).toBe(await generateNodeTypes(nodeDefinitions([]), OPTIONS));
  });

  it('type a workflow that runs end to end, its outputs read with outputsOf()', async () => {
    sim = await startSimulator({ stepDelayMs: 0, progressSteps: 1 });
    cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey });
    const wf = workflow<Nodes>({ outputs: nodeOutputs });
    const photo = wf.LoadImage({ image: 'placeholder.png' }, { title: 'Photo' });
    const scaled = wf.ImageScale({ image: photo.IMAGE, upscale_method: 'bilinear', width: 32, height: 0, crop: 'center' });
    const inverted = wf.ImageInvert({ image: scaled[0] });
    const save = wf.SaveImage({ images: inverted.IMAGE, filename_prefix: 'typed' });
    // nodeOutputs resolves the names: the workflow is written with no catalog.
    expect(wf.toJSON()).toMatchObject({ '2': { inputs: { image: ['1', 0] } }, '3': { inputs: { image: ['2', 0] } }, '4': { inputs: { images: ['3', 0] } } });
    const result = await cloud.runWorkflow(wf, { uploads: { 'Photo.image': { file: png(), filename: 'cat.png' } } });
    expect(result.status).toBe('completed');
    expect(result.outputsOf(save).images).toEqual([{ filename: expect.stringMatching(/^typed_/), subfolder: '', type: 'output' }]);
  });
});
