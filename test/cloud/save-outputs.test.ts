import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import { CloudClient } from '../../src/index.js';
import { useMsw } from '../helpers/msw.js';
import { png, until } from './helpers.js';

// cloud.files.saveOutputs(): a run's outputs into a folder, streamed, safely named, never
// overwriting unless asked. msw plays the server (sizes, hostile names, a broken stream).
const BASE = 'https://cloud.test';
const { server, seen } = useMsw();
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
const folder = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'graphcloud-save-'));
  dirs.push(dir);
  return dir;
};
const cloud = () => new CloudClient({ baseUrl: BASE, apiKey: 'sk-save', runtime: 'local', retry: false });
const serveView = () => server.use(http.get(`${BASE}/api/view`, ({ request }) => new HttpResponse(new TextEncoder().encode(`bytes of ${new URL(request.url).searchParams.get('filename')}`), { headers: { 'content-type': 'image/png' } })));
const image = (filename: string, type = 'output') => ({ filename, subfolder: '', type });

describe('cloud.files.saveOutputs()', () => {
  it('writes every output under its own name, and a second output of the same name as "name (2)"', async () => {
    serveView();
    const dir = await folder();
    const outputs = { '9': { images: [image('a.png'), image('b.png')] }, '12': { images: [image('a.png', 'temp')], text: ['not a file'] } };
    const saved = await cloud().files.saveOutputs({ outputs }, dir);
    expect(saved.map((s) => [s.nodeId, s.path.slice(dir.length + 1), s.bytes])).toEqual([
      ['9', 'a.png', 14],
      ['9', 'b.png', 14],
      ['12', 'a (2).png', 14],
    ]);
    expect((await readdir(dir)).sort()).toEqual(['a (2).png', 'a.png', 'b.png']);
    expect(await readFile(join(dir, 'b.png'), 'utf8')).toBe('bytes of b.png');
  });

  it('refuses names already in the folder before downloading anything, unless overwrite is set', async () => {
    serveView();
    const dir = await folder();
    await writeFile(join(dir, 'a.png'), 'mine');
    const error = await cloud().files.saveOutputs({ outputs: { '9': { images: [image('a.png'), image('b.png')] } } }, dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]?.received).toEqual([join(dir, 'a.png')]);
    expect(seen).toHaveLength(0);
    expect(await readdir(dir)).toEqual(['a.png']);
    await cloud().files.saveOutputs({ outputs: { '9': { images: [image('a.png')] } } }, dir, { overwrite: true });
    expect(await readFile(join(dir, 'a.png'), 'utf8')).toBe('bytes of a.png');
  });

  it('keeps every file inside the folder whatever names a hostile server sends', async () => {
    serveView();
    const parent = await folder();
    const dir = join(parent, 'out');
    const names = ['../../escape.png', '..', '/etc/passwd', 'C:\\Windows\\x.png', 'CON.png', 'a\u0000b.png', '.hidden'];
    const saved = await cloud().files.saveOutputs({ outputs: { '1': { images: names.map((n) => image(n)) } } }, dir);
    expect(saved.every((s) => s.path.startsWith(`${dir}/`) && !s.path.slice(dir.length + 1).includes('/'))).toBe(true);
    expect(await readdir(parent)).toEqual(['out']);
    expect((await readdir(dir)).sort()).toEqual(['_CON.png', 'a_b.png', 'escape.png', 'hidden', 'output', 'passwd', 'x.png']);
  });

  it('writes bytes already downloaded (download: true) without asking the server again', async () => {
    const dir = await folder();
    const ref = image('a.png');
    const saved = await cloud().files.saveOutputs({ outputs: { '9': { images: [ref] } }, files: [{ nodeId: '9', kind: 'images', ref, data: new Uint8Array(png()), mimeType: 'image/png' }] }, dir);
    expect(saved[0]?.bytes).toBe(png().byteLength);
    expect(seen).toHaveLength(0);
  });

  it('streams a file to disk as it arrives, not after', async () => {
    const dir = await folder();
    const target = join(dir, 'big.bin');
    const chunk = new Uint8Array(256 * 1024).fill(7);
    let sent = 0;
    server.use(
      http.get(`${BASE}/api/view`, () => {
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (sent === 8) return controller.close();
            // The next chunk goes only once the last one is on disk.
            if (sent > 0) await until(() => sizeOf(target) >= sent * chunk.byteLength);
            sent++;
            controller.enqueue(chunk);
          },
        });
        return new HttpResponse(body);
      }),
    );
    const [saved] = await cloud().files.saveOutputs({ outputs: { '9': { video: [image('big.bin')] } } }, dir);
    expect(saved?.bytes).toBe(8 * chunk.byteLength);
    expect((await stat(target)).size).toBe(8 * chunk.byteLength);
  });

  it('leaves no partial file when a download breaks', async () => {
    const dir = await folder();
    server.use(
      http.get(`${BASE}/api/view`, () => {
        let pulls = 0;
        return new HttpResponse(new ReadableStream<Uint8Array>({ pull: (controller) => (pulls++ === 0 ? controller.enqueue(new Uint8Array(1000)) : controller.error(new Error('connection reset'))) }));
      }),
    );
    await expect(cloud().files.saveOutputs({ outputs: { '9': { images: [image('a.png')] } } }, dir)).rejects.toBeDefined();
    expect(await readdir(dir)).toEqual([]);
  });

  it('checks its arguments before anything is sent', async () => {
    const c = cloud();
    await expect(c.files.saveOutputs({} as never, '/tmp/x')).rejects.toBeInstanceOf(ValidationError);
    await expect(c.files.saveOutputs({ outputs: {} }, '')).rejects.toBeInstanceOf(ValidationError);
    await expect(c.files.saveOutputs({ outputs: {} }, '/tmp/x', { overwrite: 'yes' } as never)).rejects.toThrow('options.overwrite');
    expect(seen).toHaveLength(0);
  });
});

function sizeOf(path: string): number {
  try {
    return (process.getBuiltinModule('node:fs') as typeof import('node:fs')).statSync(path).size;
  } catch {
    return 0;
  }
}

