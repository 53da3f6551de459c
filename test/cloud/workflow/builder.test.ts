import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { ValidationError } from '../../../src/core/index.js';
import { CloudClient } from '../../../src/index.js';
import { setInputs, validateWorkflow, workflow, type Link, type NodeRef, type Output, type Workflow } from '../../../src/index.js';
import { spellOutputNames } from '../../../src/cloud/workflow/builder.js';
import type { ObjectInfo } from '../../../src/cloud/workflow/node-definitions.js';
import { startSimulator, type Simulator } from '../../../src/testing/index.js';
import { png } from '../helpers.js';

// The builder's runtime (src/cloud/workflow/builder.ts); the generated types are tested in
// test/codegen. A small hand-written catalog type stands for generated code here.
interface Nodes {
  LoadImage: { inputs: { image: string | Link<'COMBO'> }; outputs: { IMAGE: 'IMAGE'; MASK: 'MASK'; 0: 'IMAGE'; 1: 'MASK' } };
  ImageScale: {
    inputs: { image: Link<'IMAGE'>; upscale_method: 'nearest-exact' | 'bilinear' | Link<'COMBO'>; width: number | Link<'INT'>; height: number | Link<'INT'>; crop: 'disabled' | 'center' | Link<'COMBO'> };
    outputs: { IMAGE: 'IMAGE'; 0: 'IMAGE' };
  };
  SaveImage: { inputs: { images: Link<'IMAGE'>; filename_prefix?: string | Link<'STRING'> }; outputs: Record<never, never> };
  PrimitiveInt: { inputs: { value: number | Link<'INT'> }; outputs: { INT: 'INT'; 0: 'INT' } };
}

function scaleGraph(image = 'cat.png') {
  const wf = workflow<Nodes>();
  const photo = wf.LoadImage({ image }, { title: 'Photo' });
  const width = wf.PrimitiveInt({ value: 64 });
  const scaled = wf.ImageScale({ image: photo.IMAGE, upscale_method: 'bilinear', width: width.INT, height: 0, crop: 'disabled' });
  const save = wf.SaveImage({ images: scaled[0], filename_prefix: 'out' }, { title: 'Save' });
  return { wf, photo, width, scaled, save };
}

const OUTPUTS = { LoadImage: ['IMAGE', 'MASK'], ImageScale: ['IMAGE'], PrimitiveInt: ['INT'] };

describe('workflow()', () => {
  it('numbers nodes in call order and writes links as [id, index], titles as _meta', () => {
    const wf = workflow<Nodes>({ outputs: OUTPUTS });
    const photo = wf.LoadImage({ image: 'cat.png' }, { title: 'Photo' });
    const scaled = wf.ImageScale({ image: photo.IMAGE, upscale_method: 'bilinear', width: 64, height: 0, crop: 'disabled' });
    wf.SaveImage({ images: scaled.IMAGE });
    expect(JSON.parse(JSON.stringify(wf))).toEqual({
      '1': { class_type: 'LoadImage', inputs: { image: 'cat.png' }, _meta: { title: 'Photo' } },
      '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 64, height: 0, crop: 'disabled' } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0] } },
    });
  });

  it('keeps a given id and skips it when numbering the others; refuses a duplicate id', () => {
    const wf = workflow();
    wf.node('LoadImage', { image: 'a.png' }, { id: '2' });
    const next = wf.node('LoadImage', { image: 'b.png' });
    expect([next.id, wf.node('X').id]).toEqual(['1', '3']);
    expect(() => wf.node('X', {}, { id: '2' })).toThrow(ValidationError);
  });

  it('resolves an output taken by index without any table or catalog', () => {
    const wf = workflow();
    const photo = wf.node('LoadImage', { image: 'a.png' });
    wf.node('SaveImage', { images: photo.out(1) });
    expect(wf.toJSON()['2']?.inputs).toEqual({ images: ['1', 1] });
  });

  it('refuses to write an output known by name only, saying how to give its index', () => {
    const { wf } = scaleGraph();
    expect(() => wf.toJSON()).toThrow(/output index of node 1 \(LoadImage\).*outputs: \{ LoadImage: \[\.\.\.\] \}.*cloud\.runWorkflow\(\)/s);
  });

  it('names the outputs a class has when a name is wrong', () => {
    const wf = workflow({ outputs: OUTPUTS });
    const photo = wf.node('LoadImage', { image: 'a.png' });
    wf.node('SaveImage', { images: photo.out('IMGE') });
    expect(() => wf.toJSON()).toThrow(/an output of LoadImage: IMAGE, MASK/);
  });

  it('refuses a node handle where one of its outputs belongs', () => {
    const wf = workflow();
    const photo = wf.node('LoadImage', { image: 'a.png' });
    wf.node('SaveImage', { images: photo });
    expect(() => wf.toJSON()).toThrow(/one output of node 1 \(LoadImage\)/);
  });

  it('is not a promise, and neither is a node handle', async () => {
    const wf = workflow();
    const photo = wf.node('LoadImage', { image: 'a.png' });
    expect(await Promise.resolve(photo)).toBe(photo);
    expect(await Promise.resolve(wf)).toBe(wf);
  });

  it('checks its options and node options when given', () => {
    expect(() => workflow({ outputs: { A: [1] as unknown as string[] } })).toThrow(ValidationError);
    expect(() => workflow({ output: {} } as never)).toThrow(ValidationError);
    const wf = workflow();
    expect(() => wf.node('A', {}, { titel: 'x' } as never)).toThrow(/only id and title/);
    expect(() => wf.node('A', [] as never)).toThrow(ValidationError);
    expect(() => wf.node('', {})).toThrow(ValidationError);
  });

  it('resolves names with a catalog in validateWorkflow() and setInputs()', () => {
    const { wf } = scaleGraph();
    const info: ObjectInfo = { LoadImage: { input: { required: { image: ['STRING', {}] } }, output: ['IMAGE', 'MASK'], output_name: ['IMAGE', 'MASK'] }, PrimitiveInt: { input: {}, output: ['INT'] }, ImageScale: { input: {}, output: ['IMAGE'] }, SaveImage: { input: {}, output: [] } };
    const set = setInputs(wf, { 'Photo.image': 'dog.png' }, info);
    expect(set['1']?.inputs.image).toBe('dog.png');
    expect(set['3']?.inputs).toMatchObject({ image: ['1', 0], width: ['2', 0] });
    expect(validateWorkflow(wf, info).filter((i) => i.code !== 'unchecked_node')).toEqual([]);
  });
});

describe('spellOutputNames()', () => {
  it('keeps unique identifiers and spells the rest predictably', () => {
    expect(spellOutputNames(['IMAGE', 'IMAGE', 'IMAGE', 'upscale model', '3d', '', 'id', 'out', 'classType'])).toEqual(['IMAGE', 'IMAGE_2', 'IMAGE_3', 'upscale_model', '_3d', '_', 'id_', 'out_', 'classType_']);
  });

  it("gives a trailing _ to then and Object.prototype's names, which a handle could not give by name", () => {
    const names = ['then', 'constructor', 'toString', '__proto__', 'hasOwnProperty'];
    expect(spellOutputNames(names)).toEqual(['then_', 'constructor_', 'toString_', '__proto___', 'hasOwnProperty_']);
    const wf = workflow({ outputs: { A: names } });
    const a = wf.node('A') as unknown as Record<string, unknown>;
    wf.node('C', Object.fromEntries(spellOutputNames(names).map((name) => [name, a[name]])));
    expect(wf.toJSON()['2']?.inputs).toEqual({ then_: ['1', 0], constructor_: ['1', 1], toString_: ['1', 2], __proto___: ['1', 3], hasOwnProperty_: ['1', 4] });
  });
});

describe('workflow() types', () => {
  it('types outputs by name and index, and links by their catalog type', () => {
    const { photo, scaled } = scaleGraph();
    expectTypeOf(photo.IMAGE).toEqualTypeOf<Output<'IMAGE'>>();
    expectTypeOf(photo[1]).toEqualTypeOf<Output<'MASK'>>();
    expectTypeOf(scaled).toMatchTypeOf<NodeRef<Nodes['ImageScale']>>();
    const wf = workflow<Nodes>();
    // @ts-expect-error a MASK is not an IMAGE
    wf.SaveImage({ images: photo.MASK });
    // @ts-expect-error a value the combo does not offer
    wf.ImageScale({ image: photo.IMAGE, upscale_method: 'cubic', width: 1, height: 1, crop: 'disabled' });
    // @ts-expect-error a required input missing
    wf.ImageScale({ image: photo.IMAGE, upscale_method: 'bilinear', width: 1, crop: 'disabled' });
    // @ts-expect-error an input the node does not have
    wf.SaveImage({ images: photo.IMAGE, quality: 90 });
    // @ts-expect-error a class the catalog does not have
    wf.KSampler({});
  });

  it('compiles untyped use without casts', () => {
    const wf = workflow();
    const a = wf.node('Anything', { x: 1 });
    const b = wf.node('Other', { input: a.out('WHATEVER'), n: a.out(2) });
    expectTypeOf(b.id).toEqualTypeOf<string>();
    expectTypeOf(wf.toJSON).returns.toEqualTypeOf<Workflow>();
  });
});

describe('cloud.runWorkflow(builder) on the simulator', () => {
  let sim: Simulator | undefined;
  let cloud: CloudClient | undefined;
  afterEach(async () => {
    await cloud?.close();
    await sim?.close();
  });

  it('runs a typed workflow whose outputs are named, resolving them with the catalog, and reads outputsOf()', async () => {
    sim = await startSimulator({ stepDelayMs: 0, progressSteps: 1 });
    cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey });
    const wf = workflow<Nodes>();
    const photo = wf.LoadImage({ image: 'placeholder.png' }, { title: 'Photo' });
    const scaled = wf.ImageScale({ image: photo.IMAGE, upscale_method: 'bilinear', width: 32, height: 0, crop: 'disabled' });
    const save = wf.SaveImage({ images: scaled.IMAGE, filename_prefix: 'built' });
    const result = await cloud.runWorkflow(wf, { uploads: { 'Photo.image': { file: png(), filename: 'cat.png' } } });
    expect(result.status).toBe('completed');
    expect(result.outputsOf(save).images).toEqual([{ filename: expect.stringMatching(/^built_/), subfolder: '', type: 'output' }]);
    expect(result.outputsOf('99')).toEqual({});
    expect(Object.keys(JSON.parse(JSON.stringify(result)))).not.toContain('outputsOf');
  });

  it('refuses a workflow whose named output the catalog does not have, before anything is sent', async () => {
    sim = await startSimulator({ stepDelayMs: 0 });
    cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey });
    const wf = workflow();
    const photo = wf.node('LoadImage', { image: 'x.png' });
    wf.node('SaveImage', { images: photo.out('PICTURE') });
    await expect(cloud.runWorkflow(wf)).rejects.toThrow(/an output of LoadImage: IMAGE, MASK/);
    expect(sim.state.jobs()).toEqual([]);
  });
});
