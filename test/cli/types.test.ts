import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ejectWorkflow, generateNodeTypes } from '../../src/codegen/index.js';
import { runPiped, startTarget, type SimTarget } from './helpers.js';

// A local runtime that answers its catalog and, unlike the simulator, its version
// (GET /api/system_stats, system.comfyui_version); it records the key each request carried.
const CATALOG = {
  KSampler: { input: { required: { seed: ['INT', { min: 0 }], sampler_name: [['euler', 'heun']] } }, output: ['LATENT'], output_name: ['LATENT'] },
};
const KEY = 'types-test-key-1234';

let target: SimTarget;
let dir: string;
let runtime: Server;
let runtimeUrl: string;
const keys: string[] = [];

beforeAll(async () => {
  target = await startTarget();
  dir = mkdtempSync(join(tmpdir(), 'graphcloud-cli-types-'));
  runtime = createServer((req, res) => {
    keys.push(`${req.url} ${req.headers['x-api-key'] ?? ''}`);
    const body = req.url === '/api/object_info' ? CATALOG : req.url === '/api/system_stats' ? { system: { comfyui_version: '0.33.0', os: 'posix' } } : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { error: 'not found' }));
  });
  await new Promise<void>((listening) => runtime.listen(0, '127.0.0.1', listening));
  const address = runtime.address();
  runtimeUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await target?.sim.close();
  await new Promise((closed) => runtime?.close(closed));
  rmSync(dir, { recursive: true, force: true });
});

describe('graphcloud types', () => {
  it("writes the module of the cloud's catalog (GRAPHCLOUD_CLOUD_URL) on standard output", async () => {
    const { code, stdout, stderr } = await runPiped(['types'], { env: target.env, secrets: target.secrets });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\/\/ Node types of http:\/\/127\.0\.0\.1:\d+: \d+ node classes\.\n/);
    expect(stdout).toContain('export interface Nodes {\n');
    expect(stdout).toContain("  LoadImage: ['IMAGE', 'MASK'],\n");
  });

  it('reads --url with the key of the environment, names the version, and creates the folders of --out', async () => {
    const out = join(dir, 'src', 'generated', 'nodes.ts');
    keys.length = 0;
    const { code, lines, stderr } = await runPiped(['types', '--url', runtimeUrl, '--out', out, '--max-combo', '1', '--import-from', '@acme/graphcloud'], { env: { GRAPHCLOUD_API_KEY: KEY }, secrets: [KEY] });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(lines).toEqual([{ type: 'types', path: out, nodes: 1, bytes: Buffer.byteLength(text), server: runtimeUrl, version: '0.33.0' }]);
    expect(text).toBe(await generateNodeTypes(CATALOG, { server: runtimeUrl, version: '0.33.0', maxComboOptions: 1, importFrom: '@acme/graphcloud' }));
    expect(text).toContain("sampler_name: string | Link<'COMBO'>;");
    expect(keys.sort()).toEqual([`/api/object_info ${KEY}`, `/api/system_stats ${KEY}`]);
  });

  it('reads a saved catalog with --object-info', async () => {
    const file = join(dir, 'catalog.json');
    writeFileSync(file, JSON.stringify(CATALOG));
    const { code, stdout } = await runPiped(['types', '--object-info', file], { env: {} });
    expect(code).toBe(0);
    expect(stdout).toBe(await generateNodeTypes(CATALOG, { server: file }));
  });

  it('refuses contradicting or bad flags before reading anything', async () => {
    const both = await runPiped(['types', '--object-info', 'x.json', '--url', runtimeUrl], { env: {} });
    expect(both.code).toBe(2);
    expect(both.lines[0]).toMatchObject({ type: 'error', message: expect.stringMatching(/--object-info reads a saved catalog/) });
    const count = await runPiped(['types', '--object-info', 'x.json', '--max-combo', 'many'], { env: {} });
    expect(count.code).toBe(2);
    expect(count.lines[0]).toMatchObject({ message: expect.stringMatching(/--max-combo takes a whole number/) });
    const missing = await runPiped(['types'], { env: {} });
    expect(missing.code).toBe(2);
    expect(missing.lines[0]).toMatchObject({ message: 'No cloud URL is set.' });
  });

  describe('--eject', () => {
    // A saved UI-format workflow of the CLI fixtures (LoadImage, ImageScale, SaveImage, a Note, a
    // muted PreviewImage: three nodes run) and the catalog it is ejected over.
    const saved = join('test', 'cli', 'fixtures', 'resize-ui.json');
    const workflowOf = () => JSON.parse(readFileSync(saved, 'utf8')) as unknown;
    const RESIZE_CATALOG = {
      LoadImage: { input: { required: { image: [['example.png'], { image_upload: true }] } }, output: ['IMAGE', 'MASK'], output_name: ['IMAGE', 'MASK'], display_name: 'Load Image' },
      ImageScale: {
        input: { required: { image: ['IMAGE'], upscale_method: [['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos']], width: ['INT', { default: 512 }], height: ['INT', { default: 512 }], crop: [['disabled', 'center']] } },
        output: ['IMAGE'],
        output_name: ['IMAGE'],
        display_name: 'Upscale Image',
      },
      SaveImage: { input: { required: { images: ['IMAGE'], filename_prefix: ['STRING', { default: 'ComfyUI' }] } }, output: [], output_name: [], output_node: true, display_name: 'Save Image' },
      PreviewImage: { input: { required: { images: ['IMAGE'] } }, output: [], output_name: [], output_node: true, display_name: 'Preview Image' },
    };

    it('writes a saved workflow as builder code over --types, converted with the catalog of --object-info, on standard output', async () => {
      const catalog = join(dir, 'resize-catalog.json');
      writeFileSync(catalog, JSON.stringify(RESIZE_CATALOG));
      const { code, stdout, stderr } = await runPiped(['types', '--eject', saved, '--object-info', catalog, '--types', './nodes.js'], { env: {} });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toBe(ejectWorkflow(workflowOf(), RESIZE_CATALOG as never, { typesImport: './nodes.js', source: saved }));
      expect(stdout).toContain("import type { Nodes } from './nodes.js';\n");
      expect(stdout).toContain('wf.ImageScale({');
    });

    it("reads the cloud's catalog by default, takes --import-from for workflow's module, and writes --out in folders it creates", async () => {
      const out = join(dir, 'src', 'workflows', 'resize.ts');
      const { code, lines, stderr } = await runPiped(['types', '--eject', saved, '--types', '../nodes.js', '--import-from', '@acme/graphcloud', '--out', out], { env: target.env, secrets: target.secrets });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const text = readFileSync(out, 'utf8');
      expect(text).toContain("import { workflow, type WorkflowBuilder } from '@acme/graphcloud';\nimport type { Nodes } from '../nodes.js';\n");
      expect(lines).toEqual([{ type: 'eject', path: out, source: saved, nodes: 3, untyped: 0, bytes: Buffer.byteLength(text) }]);
    });

    it('refuses --eject without --types, --types without --eject, and --max-combo with --eject, before reading anything', async () => {
      const noTypes = await runPiped(['types', '--eject', saved, '--object-info', 'x.json'], { env: {} });
      expect(noTypes.code).toBe(2);
      expect(noTypes.lines[0]).toMatchObject({ type: 'error', message: expect.stringMatching(/--eject needs --types <module>/) });
      const noEject = await runPiped(['types', '--types', './nodes.js', '--object-info', 'x.json'], { env: {} });
      expect(noEject.code).toBe(2);
      expect(noEject.lines[0]).toMatchObject({ message: expect.stringMatching(/--types names the node types ejected code imports/) });
      const combo = await runPiped(['types', '--eject', saved, '--types', './nodes.js', '--max-combo', '5', '--object-info', 'x.json'], { env: {} });
      expect(combo.code).toBe(2);
      expect(combo.lines[0]).toMatchObject({ message: expect.stringMatching(/--max-combo shapes generated node types/) });
      const missing = await runPiped(['types', '--eject', join(dir, 'nope.json'), '--types', './nodes.js', '--object-info', 'x.json'], { env: {} });
      expect(missing.code).toBe(2);
      expect(missing.lines[0]).toMatchObject({ message: expect.stringMatching(/Cannot read .*nope\.json/) });
    });

    it('fails with the conversion error when a node of the saved workflow is not in the catalog', async () => {
      const catalog = join(dir, 'small-catalog.json');
      writeFileSync(catalog, JSON.stringify({ LoadImage: RESIZE_CATALOG.LoadImage }));
      const { code, lines } = await runPiped(['types', '--eject', saved, '--object-info', catalog, '--types', './nodes.js'], { env: {} });
      expect(code).toBe(2);
      expect(lines[0]).toMatchObject({ type: 'error', message: expect.stringMatching(/ImageScale/) });
    });
  });
});
