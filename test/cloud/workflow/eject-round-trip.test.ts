import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateNodeTypes } from '../../../src/codegen/index.js';
import { ejectWorkflow } from '../../../src/cloud/workflow/eject.js';
import { toApiWorkflow } from '../../../src/cloud/workflow/index.js';
import type { ObjectInfo } from '../../../src/cloud/workflow/node-definitions.js';
import { nodeDefinitions } from '../../../src/testing/cloud/nodes.js';
import { realCatalog } from '../../codegen/catalogs.js';
import { objectInfo as fixtureInfo } from './fixtures/object-info.js';
import { subgraphWorkflow } from './fixtures/subgraph.js';
import { textToImage, textToImagePrompt } from './fixtures/text-to-image.js';

// Every saved workflow the repository holds: ejected, compiled by tsc against the node types
// `graphcloud types` generates from the catalog the workflow is converted with (generateNodeTypes()),
// run, and the builder's toJSON() compared with toApiWorkflow() of the file (the file itself when in
// API format).
const here = fileURLToPath(new URL('.', import.meta.url));
const repo = join(here, '../../..');
const json = (path: string) => JSON.parse(readFileSync(join(repo, path), 'utf8')) as unknown;
const simulator = nodeDefinitions(['example.png']) as unknown as ObjectInfo;
// ComfyUI 0.33.0's catalog (test/codegen/fixtures/README.md): the public group-node workflow's classes.
const comfyui = realCatalog('0.33.0') as ObjectInfo;

interface Case {
  name: string;
  saved: unknown;
  info: ObjectInfo;
}
const cases: Case[] = [
  { name: 'test/cloud/fixtures/group-node-stable-cascade-inpaint.json', saved: json('test/cloud/fixtures/group-node-stable-cascade-inpaint.json'), info: comfyui },
  { name: 'test/cloud/workflow/fixtures/group-node-renamed-widgets.json', saved: json('test/cloud/workflow/fixtures/group-node-renamed-widgets.json'), info: fixtureInfo },
  { name: 'test/cloud/workflow/fixtures/group-node-widget-sockets.json', saved: json('test/cloud/workflow/fixtures/group-node-widget-sockets.json'), info: fixtureInfo },
  { name: 'test/cloud/workflow/fixtures/text-to-image (UI)', saved: textToImage, info: fixtureInfo },
  { name: 'test/cloud/workflow/fixtures/text-to-image (API)', saved: textToImagePrompt, info: fixtureInfo },
  { name: 'test/cloud/workflow/fixtures/subgraph', saved: subgraphWorkflow(), info: fixtureInfo },
  { name: 'test/cli/fixtures/resize-ui.json', saved: json('test/cli/fixtures/resize-ui.json'), info: simulator },
  { name: 'examples/workflows/resize.json', saved: json('examples/workflows/resize.json'), info: simulator },
];

// A node the server never runs (VAE Decode with its vae unlinked, as saved files hold): written
// through the untyped view, since the node types refuse it.
const unlinkedVae = (() => {
  const ui = structuredClone(textToImage) as { nodes: { type: string; inputs?: { name: string; link: number | null }[] }[] };
  ui.nodes.find((node) => node.type === 'VAEDecode')!.inputs!.find((input) => input.name === 'vae')!.link = null;
  return ui;
})();

const random = () => 0.25;
const now = new Date('2026-01-02T03:04:05Z');
let folder: string;
const files: { name: string; file: string; expected: unknown }[] = [];
let diagnostics: string[] = [];
let typedVaeErrors: string[] = [];

beforeAll(async () => {
  folder = mkdtempSync(join(here, '.ejected-'));
  const sdk = relative(folder, join(repo, 'src/index.js'));
  // One module of node types per catalog, as `graphcloud types --import-from <sdk>` writes it.
  const typesOf = new Map<ObjectInfo, string>();
  for (const info of new Set(cases.map((item) => item.info))) {
    const base = `nodes${typesOf.size}`;
    writeFileSync(join(folder, `${base}.ts`), await generateNodeTypes(info, { importFrom: sdk }));
    typesOf.set(info, `./${base}.js`);
  }
  cases.forEach((item, at) => {
    const code = ejectWorkflow(item.saved, item.info, { typesImport: typesOf.get(item.info)!, sdkImport: sdk, source: item.name, random, now });
    writeFileSync(join(folder, `w${at}.ts`), code);
    const expected = 'nodes' in (item.saved as object) ? toApiWorkflow(item.saved, item.info, { random, now }) : item.saved;
    files.push({ name: item.name, file: join(folder, `w${at}.ts`), expected: JSON.parse(JSON.stringify(expected)) });
  });
  const untyped = ejectWorkflow(unlinkedVae, fixtureInfo, { typesImport: typesOf.get(fixtureInfo)!, sdkImport: sdk, random, now });
  writeFileSync(join(folder, 'untyped-vae.ts'), untyped);
  writeFileSync(join(folder, 'typed-vae.ts'), untyped.replace("untyped.node('VAEDecode', ", 'wf.VAEDecode('));
  const checked = [...files.map(({ file }) => file), join(folder, 'untyped-vae.ts'), join(folder, 'typed-vae.ts')];
  // One program for every file: the SDK is checked once.
  const program = ts.createProgram(checked, {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noUnusedLocals: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  });
  const errors = (file: string) => ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  typedVaeErrors = errors(join(folder, 'typed-vae.ts'));
  diagnostics = [...files, { name: 'untyped-vae', file: join(folder, 'untyped-vae.ts') }].flatMap(({ name, file }) => errors(file).map((message) => `${name}: ${message}`));
}, 180_000);

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

describe('ejectWorkflow() round trip', () => {
  it(`compiles the code of all ${cases.length} saved workflows against generated node types`, () => {
    expect(diagnostics).toEqual([]);
  });

  it('needs the untyped view for a node whose required link the file leaves unconnected', () => {
    expect(typedVaeErrors.join('\n')).toMatch(/Property '"?vae"?' is missing/);
  });

  it('rebuilds, by running the code, the API workflow toApiWorkflow() makes of each file', async () => {
    const differing: string[] = [];
    for (const { name, file, expected } of files) {
      const module = (await import(pathToFileURL(file).href)) as { default: () => { toJSON(): unknown } };
      // The same value; the order of node ids that are not numbers may differ (the code follows links).
      if (!isDeepStrictEqual(JSON.parse(JSON.stringify(module.default().toJSON())), expected)) differing.push(name);
    }
    expect(differing).toEqual([]);
    expect(files).toHaveLength(8);
  }, 60_000);
});
