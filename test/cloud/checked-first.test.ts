import { readFileSync } from 'node:fs';
import { http, HttpResponse, ws } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import { CloudClient, WorkflowAddressError } from '../../src/index.js';
import { type UiWorkflow } from '../../src/cloud/workflow/types.js';
import { RegistryClient } from '../../src/registry/client.js';
import { useMsw } from '../helpers/msw.js';

// Issue 19 item 12: arguments are checked before any request or socket, like every other argument.
const BASE = 'https://cloud.test';
const { server, seen } = useMsw();
const link = ws.link('wss://cloud.test/ws');
let sockets = 0;
let cloud: CloudClient | undefined;

afterEach(async () => {
  await cloud?.close();
  cloud = undefined;
  sockets = 0;
});

function make(): CloudClient {
  server.use(
    link.addEventListener('connection', () => void sockets++),
    http.all(`${BASE}/*`, () => HttpResponse.json({})),
  );
  return (cloud = new CloudClient({ baseUrl: BASE, apiKey: 'sk-checked-first-0a1b2c3d', retry: false }));
}

// "Photo" LoadImage -> "Resize" ImageScale -> "Save" SaveImage, a note and a muted preview: every node that runs has a title.
const RESIZE = JSON.parse(readFileSync(new URL('../../examples/workflows/resize.json', import.meta.url), 'utf8')) as UiWorkflow;
const API = { '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } }, '9': { class_type: 'SaveImage', inputs: { images: ['1', 0] }, _meta: { title: 'Save' } } };

describe('cloud.files.get()', () => {
  it('refuses a file type other than output, input or temp, naming it, before any request', async () => {
    const c = make();
    for (const call of [() => c.files.get({ filename: 'a.png', type: 'bogus' }), () => c.files.getResponse({ filename: 'a.png', type: 'bogus' })]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues).toEqual([expect.objectContaining({ path: 'ref.type', received: 'bogus' })]);
    }
    expect(seen).toEqual([]);
  });
});

describe('cloud.runWorkflow()', () => {
  it.each([
    ['an API-format workflow', API, '9 (SaveImage "Save")'],
    ['a UI-format workflow whose nodes all have titles', RESIZE, '11 (ImageScale "Resize")'],
  ] as const)('refuses an upload address that names no node in %s before opening the socket or reading node definitions', async (_name, workflow, listed) => {
    const c = make();
    const error = await c.runWorkflow(structuredClone(workflow) as never, { uploads: { 'Nope.image': new Uint8Array([1, 2, 3]) } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowAddressError);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('"Nope.image"');
    expect((error as Error).message).toContain(listed);
    expect(seen).toEqual([]);
    expect(sockets).toBe(0);
  });

  it('reads the node definitions, and opens no socket, when an untitled node could carry the name (its display name)', async () => {
    const untitled = structuredClone(RESIZE);
    untitled.nodes = untitled.nodes.map((node) => (node.type === 'ImageScale' ? { ...node, title: undefined } : node));
    const c = make();
    server.use(http.get(`${BASE}/api/object_info`, () => HttpResponse.json({ ImageScale: { input: { required: { image: ['IMAGE'] } }, output: ['IMAGE'], display_name: 'Upscale Image', name: 'ImageScale' } })));
    const error = await c.runWorkflow(untitled, { uploads: { 'Nope.image': new Uint8Array([1]) } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(seen.map((r) => r.url.pathname)).toEqual(['/api/object_info']);
    expect(sockets).toBe(0);
  });
});

describe('registry.versions.list() and registry.nodes.versions()', () => {
  it('refuse a status the registry does not know, naming it, before any request', async () => {
    server.use(http.all('https://registry.test/*', () => HttpResponse.json([])));
    const registry = new RegistryClient({ baseUrl: 'https://registry.test', retry: false });
    const calls = [
      () => registry.versions.list({ statuses: ['NodeVersionStatusActive', 'Active' as never] }),
      () => registry.nodes.versions('up', { statuses: ['bogus' as never] }),
    ];
    for (const call of calls) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]?.path).toMatch(/^params\.statuses\[\d\]$/);
      expect((error as Error).message).toContain('NodeVersionStatusFlagged');
    }
    expect(seen).toEqual([]);
    await registry.close();
  });
});
