import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import { generateNodeTypes } from '../../src/codegen/index.js';
import { typeCheck } from './catalogs.js';

// The generator's rules (docs/workflows.md#generating-node-types), one catalog that has each.
const spec = (type: unknown, options: Record<string, unknown> = {}) => [type, options];
const RULES = {
  Sampler: {
    display_name: 'Sampler */ end',
    description: 'Samples.\nSecond line with */ inside.',
    category: 'sampling',
    deprecated: true,
    input: {
      required: {
        model: spec('MODEL'),
        seed: spec('INT', { min: 0, max: 100, step: 1, default: 5, tooltip: 'The seed */ here' }),
        sampler: spec('COMBO', { options: ['euler', "it's", 'a\\b'], default: 'euler' }),
        legacy: spec(['one', 'two', 3]),
        text: spec('STRING', { multiline: true }),
        flag: spec('BOOLEAN'),
        anything: spec('*'),
        either: spec('IMAGE,MASK'),
        folder: spec([]),
        'odd name': spec('FLOAT'),
      },
      optional: { denoise: spec('FLOAT', { default: 1 }), seed: spec('STRING') },
      hidden: { prompt: 'PROMPT', unique_id: 'UNIQUE_ID' },
    },
    output: ['LATENT', 'IMAGE', 'IMAGE', ['a', 'b']],
    output_name: ['LATENT', 'IMAGE', 'IMAGE', 'choice list'],
    output_tooltips: ['The latent */', null, null, null],
  },
  Dynamic: {
    experimental: true,
    input: {
      required: {
        mode: spec('COMFY_DYNAMICCOMBO_V3', {
          options: [
            { key: 'by size', inputs: { required: { width: spec('INT') }, optional: { crop: spec('COMBO', { options: ['none', 'center'] }) } } },
            { key: 'none', inputs: { required: {} } },
          ],
        }),
        images: spec('COMFY_AUTOGROW_V3', { template: { input: { required: { image: spec('IMAGE') } }, prefix: 'image', min: 2, max: 3 } }),
        values: spec('COMFY_AUTOGROW_V3', { template: { input: { required: { value: spec('FLOAT,INT') } }, names: ['a', 'b'], min: 0 } }),
        input: spec('COMFY_MATCHTYPE_V3', { template: { template_id: 't', allowed_types: 'IMAGE,MASK' } }),
        any: spec('COMFY_MATCHTYPE_V3', { template: { template_id: 't', allowed_types: '*' } }),
      },
      optional: { extra: spec('COMFY_DYNAMICCOMBO_V3', { options: [{ key: 'on', inputs: { required: { strength: spec('FLOAT') } } }] }) },
    },
    output: ['COMFY_MATCHTYPE_V3'],
    output_name: ['output'],
  },
  Future: { input: { required: { thing: spec('COMFY_SOMETHINGNEW_V3', {}), plain: spec('INT') } }, output: [] },
  Widgets: {
    input: {
      required: {
        color: spec('COLOR', { default: '#fff', socketless: true }),
        box: spec('BOUNDING_BOX', { default: { x: 0 }, socketless: true }),
        rate: spec('FLOAT,INT', { widgetType: 'FLOAT', default: 25 }),
      },
    },
    output: ['IMAGE'],
  },
  'odd class */ name': { input: { required: {} }, output: ['IMAGE'], output_name: ['id'] },
  'Big\u2028Combo': { input: { required: { ckpt: spec(Array.from({ length: 201 }, (_, i) => `m${i}.safetensors`)) } }, output: [] },
};

async function generated(catalog: unknown = RULES, options = {}): Promise<string> {
  return generateNodeTypes(catalog, options);
}

/** The generated text of one class's member, from its doc comment to its closing line. */
function memberOf(text: string, key: string): string {
  const start = text.indexOf(`\n  ${key}: {\n`);
  expect(start, key).toBeGreaterThan(0);
  const docStart = text.lastIndexOf('\n  };\n', start);
  return text.slice(docStart + 6, text.indexOf('\n  };\n', start) + 5);
}

describe('generateNodeTypes()', () => {
  it('types required and optional inputs, widgets with a link of their type, links by their type, and leaves hidden inputs out', async () => {
    const sampler = memberOf(await generated(), 'Sampler');
    for (const line of [
      "model: Link<'MODEL'>;",
      "seed: number | Link<'INT'>;",
      "sampler: 'euler' | 'it\\'s' | 'a\\\\b' | Link<'COMBO'>;",
      "legacy: 'one' | 'two' | 3 | Link<'COMBO'>;",
      "text: string | Link<'STRING'>;",
      "flag: boolean | Link<'BOOLEAN'>;",
      'anything: Link<string>;',
      "either: Link<'IMAGE' | 'MASK'>;",
      "folder: string | Link<'COMBO'>;",
      "'odd name': number | Link<'FLOAT'>;",
      "denoise?: number | Link<'FLOAT'>;",
    ]) {
      expect(sampler).toContain(line);
    }
    expect(sampler).not.toMatch(/prompt|unique_id|seed\?/);
  });

  it('writes outputs by spelled name and by index, a list-typed output as COMBO', async () => {
    const sampler = memberOf(await generated(), 'Sampler');
    expect(sampler).toMatch(/LATENT: 'LATENT';\n\s+IMAGE: 'IMAGE';\n\s+IMAGE_2: 'IMAGE';\n\s+choice_list: 'COMBO';\n\s+0: 'LATENT';\n\s+1: 'IMAGE';\n\s+2: 'IMAGE';\n\s+3: 'COMBO';/);
    expect(memberOf(await generated(), "'odd class \\*/ name'".replace('\\', ''))).toContain("id_: 'IMAGE';");
  });

  it('types the V3 dynamic kinds as the runtime expands them, and an unknown kind loosely', async () => {
    const text = await generated();
    const dynamic = memberOf(text, 'Dynamic');
    expect(dynamic).toMatch(/mode: 'by size';\n\s+'mode.crop'\?: 'none' \| 'center' \| Link<'COMBO'>;\n\s+'mode.width': number \| Link<'INT'>;\n\s+\} \| \{\n\s+mode: 'none';\n\s+\}\)/);
    expect(dynamic).toMatch(/\(\{\n\s+extra\?: undefined;\n\s+\} \| \{\n\s+extra: 'on';\n\s+'extra.strength': number \| Link<'FLOAT'>;/);
    for (const line of ["'images.image0': Link<'IMAGE'>;", "'images.image1': Link<'IMAGE'>;", "'images.image2'?: Link<'IMAGE'>;", "'values.a'?: number | Link<'FLOAT' | 'INT'>;", "input: Link<'IMAGE' | 'MASK'>;", 'any: Link<string>;', "output: '*';", "0: '*';"]) {
      expect(dynamic).toContain(line);
    }
    expect(dynamic).not.toContain('images.image3');
    const future = memberOf(text, 'Future');
    expect(future).toContain('[input: string]: unknown;');
    expect(future).toContain('thing?: unknown;');
    expect(future).toContain("plain: number | Link<'INT'>;");
    expect(memberOf(text, 'Sampler')).not.toContain('[input: string]');
  });

  it('types a widget of another kind by its default, and a combo above maxComboOptions by its values', async () => {
    const text = await generated();
    const widgets = memberOf(text, 'Widgets');
    expect(widgets).toContain("color: string | Link<'COLOR'>;");
    expect(widgets).toContain('box: unknown;');
    expect(widgets).toContain("rate: number | Link<'FLOAT' | 'INT'>;");
    expect(memberOf(text, "'Big\\u2028Combo'")).toContain("ckpt: string | Link<'COMBO'>;");
    expect(memberOf(await generated(RULES, { maxComboOptions: 201 }), "'Big\\u2028Combo'")).toContain("'m200.safetensors' | Link<'COMBO'>;");
  });

  it('documents nodes, inputs and outputs, escaping what would end a comment', async () => {
    const sampler = memberOf(await generated(), 'Sampler');
    expect(sampler).toContain('   * Sampler *\\/ end\n');
    expect(sampler).toContain('   * Second line with *\\/ inside.\n');
    expect(sampler).toContain('   * Category: sampling.\n');
    expect(sampler).toContain('   * @deprecated');
    expect(sampler).toMatch(/\* The seed \*\\\/ here\n\s+\* Min 0, max 100, step 1\.\n\s+\* @default 5\n/);
    expect(sampler).toContain('/** The latent *\\/ */');
    expect(memberOf(await generated(), 'Dynamic')).toContain('@experimental');
  });

  it('writes nodeOutputs: the output names of each class that has outputs', async () => {
    const text = await generated();
    expect(text).toContain("  Sampler: ['LATENT', 'IMAGE', 'IMAGE', 'choice list'],\n");
    expect(text).toContain("  'odd class */ name': ['id'],\n");
    expect(text).not.toMatch(/^ {2}Future: \[/m);
  });

  it('gives the same bytes for the same catalog, whatever its key order, and names the server, version and hash', async () => {
    const shuffled = Object.fromEntries(Object.entries(RULES).reverse().map(([key, value]) => [key, JSON.parse(JSON.stringify(value, (_k, v: unknown) => (isObject(v) ? Object.fromEntries(Object.entries(v).reverse()) : v))) as unknown]));
    const options = { server: 'http://127.0.0.1:8188', version: '0.33.0' };
    const text = await generated(RULES, options);
    expect(await generated(shuffled, options)).toBe(text);
    const canonical = JSON.stringify(RULES, (_k, v: unknown) => (isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
    const hash = createHash('sha256').update(canonical).digest('hex');
    expect(text.split('\n').slice(0, 4)).toEqual([
      '// Node types of http://127.0.0.1:8188 (version 0.33.0): 6 node classes.',
      "// Written by `graphcloud types` (graphcloud/codegen) from the server's catalog, GET /api/object_info.",
      "// Do not edit: generate the file again when the server's nodes change.",
      `// Catalog SHA-256 (canonical JSON, keys sorted): ${hash}`,
    ]);
    expect(text).toContain("import type { Link } from 'graphcloud';");
    expect(await generated(RULES, { importFrom: '../lib/index.js' })).toContain("import type { Link } from '../lib/index.js';");
  });

  it('checks its options and the catalog', async () => {
    await expect(generateNodeTypes(RULES, { maxComboOptions: -1 })).rejects.toThrow(ValidationError);
    await expect(generateNodeTypes(RULES, { maxComboOption: 3 } as never)).rejects.toThrow(/did you mean "maxComboOptions"/);
    await expect(generateNodeTypes([] as never)).rejects.toThrow(/a catalog/);
  });

  it('compiles in a strict project, where each rule holds', async () => {
    const usage = `
import { workflow } from 'graphcloud';
import type { Nodes } from './nodes.js';
const wf = workflow<Nodes>();
const d = wf.Dynamic({ mode: 'by size', 'mode.width': 8, 'images.image0': wf.Widgets({ color: '#000', box: {}, rate: 1 }).IMAGE, 'images.image1': wf.Widgets({ color: '#000', box: {}, rate: 1 })[0], input: wf.Widgets({ color: '#000', box: {}, rate: 1 }).IMAGE, any: wf.Future({ plain: 1 }).out(0) });
wf.Sampler({ model: d.output, seed: d.out('output'), sampler: "it's", legacy: 'one', text: 't', flag: false, anything: d.output, either: d.output, folder: 'y', 'odd name': 2 });
wf.Future({ plain: 1, thing: { any: 1 }, 'thing.deep': 2 });
wf.node('odd class */ name', {}).id_;
// @ts-expect-error an option's input under another option
wf.Dynamic({ mode: 'none', 'mode.width': 8, 'images.image0': d.output, 'images.image1': d.output, input: d.output, any: d.output });
// @ts-expect-error a required autogrow input missing
wf.Dynamic({ mode: 'none', 'images.image0': d.output, input: d.output, any: d.output });
// @ts-expect-error a COLOR is no IMAGE
wf.Dynamic({ mode: 'none', 'images.image0': d.output, 'images.image1': d.output, input: wf.Sampler({ model: d.output, seed: 1, sampler: 'euler', legacy: 3, text: '', flag: true, anything: d.output, either: d.output, folder: 'x', 'odd name': 1 }).LATENT, any: d.output });
`;
    expect(typeCheck({ 'nodes.ts': await generated(), 'usage.ts': usage })).toEqual([]);
  }, 120_000);
});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
